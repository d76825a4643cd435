/// The latest frames that every connection shares: a slow connection skips to the newest.
struct SharedFrames {
    /// The newest state version, as each audience reads it.
    var state: SharedState?
    /// The latest tick of each pitch's countdown; `serial` counts every tick of every pitch.
    var ticks: [Int: (serial: Int, frame: SharedFrame)] = [:]
    var presence: (serial: Int, frame: SharedFrame)?
    /// The gather.v2 patches of the last few versions, oldest first: a phone a version or a few
    /// behind catches up with them; one further behind gets the newest snapshot instead.
    private(set) var patches: [(version: Int, frame: SharedFrame)] = []

    /// The pitch gather.v1 clients know: the first release had only that one.
    static let firstPitch = 1
    /// How many patches a connection may be behind before it gets a whole snapshot instead.
    static let patchWindow = 8

    /// Takes in a new version; a version without a patch (the first, or one after a gap)
    /// empties the window, as no patch chain reaches across it.
    mutating func publish(_ next: SharedState, patch: SharedFrame?) {
        if let patch {
            if let last = patches.last, last.version != next.version - 1 { patches.removeAll() }
            patches.append((next.version, patch))
            if patches.count > Self.patchWindow { patches.removeFirst(patches.count - Self.patchWindow) }
        } else {
            patches.removeAll()
        }
        state = next
    }

    /// The patch that turns `version - 1` into `version`, if it is still in the window.
    func patch(to version: Int) -> SharedFrame? {
        guard let first = patches.first, version >= first.version, version <= first.version + patches.count - 1
        else { return nil }
        return patches[version - first.version].frame
    }
}

/// One version's snapshots, encoded once for every connection of each protocol.
struct SharedState {
    var version: Int
    var v1Snapshot: SharedFrame
    var v2Snapshot: SharedFrame
    /// The source's timeline (`StateFrames.epoch`): versions compare only within one.
    var epoch: String? = nil
}
