import GatherDelivery

/// The latest frames that every connection shares: a slow connection skips to the newest.
struct SharedFrames {
    /// The newest state version, as each audience reads it.
    private(set) var state: SharedState?
    /// The latest tick of each pitch's countdown; `serial` counts every tick of every pitch.
    var ticks: [Int: (serial: Int, frame: SharedFrame)] = [:]
    var presence: (serial: Int, frame: SharedFrame)?
    /// The gather.v2 patches of the last versions, for following connections a little behind and
    /// for clients that reconnect with the version they hold.
    private(set) var window = PatchWindow()

    /// The pitch gather.v1 clients know: the first release had only that one.
    static let firstPitch = 1
    /// How many versions a following connection may fall behind and still be sent each patch;
    /// further behind, it gets the newest snapshot instead (a stalled phone costs one version
    /// number, and a phone that comes back is not sent a backlog). A reconnecting client's
    /// catch-up may use the whole window.
    static let patchWindow = 8

    /// Where this audience's timelines are counted from: organisers' frames count from far above
    /// the shared ones, so a connection moving between the two is always sent a snapshot.
    private var timelineBase = 0

    init() {}

    init(timelineBase: Int) {
        self.timelineBase = timelineBase
    }

    /// Whether a version handed over replaces the one held: a newer version of the same epoch,
    /// or any version of another epoch (the source chose to follow that timeline).
    func accepts(version: Int, epoch: String?) -> Bool {
        guard let state else { return true }
        return epoch != state.epoch || version > state.version
    }

    /// Takes in a new version; a version without a patch (the first, or one after a gap) or of
    /// another epoch empties the window, as no patch chain reaches across it. Each epoch the
    /// shared state moves to is a new `timeline`, which connections compare with theirs.
    mutating func publish(_ next: SharedState, patch: SharedFrame?) {
        var next = next
        let sameEpoch = state.map { $0.epoch == next.epoch } ?? false
        next.timeline = sameEpoch ? state!.timeline : (state?.timeline ?? timelineBase) + 1
        if let patch, sameEpoch {
            window.append(version: next.version, patch: patch, epoch: next.epoch)
        } else if let patch {
            window.restart(epoch: next.epoch)
            window.append(version: next.version, patch: patch, epoch: next.epoch)
        } else {
            window.restart(epoch: next.epoch)
        }
        state = next
    }

    /// The same version rendered anew (organisers' links changed, not the gather): a new timeline,
    /// so every connection following these frames is sent this snapshot; no patch reaches it.
    mutating func refresh(_ next: SharedState) {
        var next = next
        next.timeline = (state?.timeline ?? timelineBase) + 1
        window.restart(epoch: next.epoch)
        state = next
    }

    /// The patch that turns `version - 1` into `version`, if it is still in the window.
    func patch(to version: Int) -> SharedFrame? { window.patch(to: version) }
}

/// One version's snapshots, encoded once for every connection of each protocol. The gather.v2
/// one is encoded when the first connection needs it (`FrameOnDemand`).
struct SharedState {
    var version: Int
    var v1Snapshot: SharedFrame
    private let v2Source: FrameOnDemand
    /// The timeline the version belongs to; nil for a source that has none (never matched).
    var epoch: String?
    /// Counts the epochs the shared state has moved through (set by `SharedFrames.publish`).
    var timeline = 0

    init(version: Int, v1Snapshot: SharedFrame, v2Snapshot: SharedFrame, epoch: String? = nil) {
        self.version = version
        self.v1Snapshot = v1Snapshot
        self.v2Source = FrameOnDemand(v2Snapshot)
        self.epoch = epoch
    }

    /// The source's frames as the Transport shares them; nothing of the gather.v2 snapshot is
    /// rendered or copied until a connection needs it.
    init(_ frames: StateFrames) {
        version = frames.version
        v1Snapshot = SharedFrame(frames.v1Snapshot)
        v2Source = FrameOnDemand(frames.v2SnapshotSource)
        epoch = frames.epoch
    }

    var v2Snapshot: SharedFrame { v2Source.frame }
}

/// A snapshot's frame, made from its bytes the first time a connection needs it and then shared
/// (service thread only, as every `SharedFrame`).
final class FrameOnDemand {
    private var source: SnapshotOnDemand?
    private var made: SharedFrame?

    init(_ frame: SharedFrame) { made = frame }
    init(_ source: SnapshotOnDemand) { self.source = source }

    var frame: SharedFrame {
        if let made { return made }
        let frame = SharedFrame(source?.bytes ?? [])
        made = frame
        source = nil
        return frame
    }
}

/// The gather.v2 patches of the last `versions` versions of one epoch, oldest first, one
/// contiguous chain ending at the newest version. Memory: at most 128 patches and at most
/// `byteLimit` bytes of them (a goal's patch is a few hundred bytes: ~40 KB for 128; the byte
/// limit bounds a run of unusually large patches at 8 MiB). The newest patch is always kept.
struct PatchWindow {
    static let versions = 128
    static let byteLimit = 8 << 20

    /// The epoch every patch here belongs to.
    private(set) var epoch: String?
    private var patches: [(version: Int, frame: SharedFrame)] = []
    private(set) var bytes = 0

    var count: Int { patches.count }
    var oldestVersion: Int? { patches.first?.version }
    var newestVersion: Int? { patches.last?.version }

    /// Drops every patch: the next version starts a new chain (of `epoch`).
    mutating func restart(epoch: String?) {
        patches.removeAll(keepingCapacity: true)
        bytes = 0
        self.epoch = epoch
    }

    /// Adds the patch to `version`; one that does not follow the newest starts the chain afresh.
    mutating func append(version: Int, patch: SharedFrame, epoch: String?) {
        if epoch != self.epoch || (newestVersion.map { $0 != version - 1 } ?? false) { restart(epoch: epoch) }
        patches.append((version, patch))
        bytes += patch.count
        var drop = max(0, patches.count - Self.versions)
        var remaining = bytes
        for index in 0..<drop { remaining -= patches[index].frame.count }
        while remaining > Self.byteLimit, drop < patches.count - 1 {
            remaining -= patches[drop].frame.count
            drop += 1
        }
        if drop > 0 {
            patches.removeFirst(drop)
            bytes = remaining
        }
    }

    /// The patch that turns `version - 1` into `version`, if it is still here.
    func patch(to version: Int) -> SharedFrame? {
        guard let first = patches.first?.version, version >= first, version - first < patches.count else { return nil }
        return patches[version - first].frame
    }

    /// Whether the patches to `version + 1` … `current` are all here.
    func holdsEveryPatch(after version: Int, through current: Int) -> Bool {
        guard let first = oldestVersion, let last = newestVersion else { return false }
        return version < current && version + 1 >= first && last == current
    }
}
