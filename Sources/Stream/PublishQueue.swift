import GatherDelivery

/// What the venue's publisher still has to send to NATS, bounded whatever NATS does: a pure
/// value the publisher's queue asks for the next publication. When patches pile up (NATS slow or
/// away) they collapse into one snapshot of the newest version, which covers what was missed.
public struct PublishQueue: Sendable {
    public enum Publication: Equatable, Sendable {
        /// With `Nats-Rollup: sub`: the subject then holds it and the patches after it.
        case snapshot(version: Int, bytes: [UInt8])
        /// With `Nats-Msg-Id: VENUE.VERSION`.
        case patch(version: Int, bytes: [UInt8])
        /// Core NATS on the ticks subject (ticks and the venue's presence).
        case tick(bytes: [UInt8])
    }

    /// A snapshot at least this often, so a replay never reads more than this many patches.
    public static let snapshotEvery = 100

    public let limit: Int
    /// The newest version the Coordinator rendered.
    public private(set) var latest: StateFrames?
    private var pending: [StateFrames] = []
    /// Start, reconnect, overflow, failure: the next state publication is a snapshot of `latest`.
    public private(set) var needsSnapshot = true
    /// A snapshot due right after the patch of the same version (every `snapshotEvery` versions).
    private var snapshotAfterPatch: StateFrames?
    private var patchesSinceSnapshot = 0
    private var ticks: [Int: [UInt8]] = [:]
    private var presence: [UInt8]?

    public init(limit: Int = 256) { self.limit = limit }

    public var isEmpty: Bool {
        (needsSnapshot ? latest == nil : pending.isEmpty) && snapshotAfterPatch == nil && ticks.isEmpty && presence == nil
    }

    // MARK: - In (the Coordinator's deliveries)

    public mutating func add(_ delivery: Delivery) {
        switch delivery {
        case .publishState(let frames):
            latest = frames
            guard !needsSnapshot else { return }
            if pending.count >= limit {
                pending.removeAll()
                snapshotAfterPatch = nil
                needsSnapshot = true
            } else {
                pending.append(frames)
            }
        case .publishTick(let pitch, let bytes):
            ticks[pitch] = bytes
        case .publishPresence(let bytes):
            presence = bytes
        case .greet, .send, .handled, .close:
            break
        // What only organisers read never leaves the venue.
        case .publishOrganiserState, .publishOrganiserPresence, .clearOrganiserView, .setAudience:
            break
        }
    }

    // MARK: - Out (the publisher's queue)

    /// The next thing to publish, in order: state first (a tick must not overtake its version).
    public mutating func next() -> Publication? {
        if let due = snapshotAfterPatch {
            snapshotAfterPatch = nil
            patchesSinceSnapshot = 0
            return .snapshot(version: due.version, bytes: due.v2Snapshot)
        }
        if needsSnapshot, let latest {
            needsSnapshot = false
            pending.removeAll()
            patchesSinceSnapshot = 0
            return .snapshot(version: latest.version, bytes: latest.v2Snapshot)
        }
        if !needsSnapshot, !pending.isEmpty {
            let frames = pending.removeFirst()
            guard let patch = frames.v2Patch else {
                patchesSinceSnapshot = 0
                return .snapshot(version: frames.version, bytes: frames.v2Snapshot)
            }
            patchesSinceSnapshot += 1
            if patchesSinceSnapshot >= Self.snapshotEvery { snapshotAfterPatch = frames }
            return .patch(version: frames.version, bytes: patch)
        }
        if let presence {
            self.presence = nil
            return .tick(bytes: presence)
        }
        if let pitch = ticks.keys.min(), let bytes = ticks.removeValue(forKey: pitch) {
            return .tick(bytes: bytes)
        }
        return nil
    }

    /// A state publication failed, or NATS came back: what it held may be lost, so the next is a
    /// fresh snapshot. Ticks from before are stale.
    public mutating func restart() {
        needsSnapshot = true
        pending.removeAll()
        snapshotAfterPatch = nil
        ticks.removeAll()
        presence = nil
    }
}
