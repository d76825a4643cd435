import GatherDelivery
import GatherModel
import GatherPresenters
import GatherSecurity

/// The relay's reading of the venue's stream, as a pure state machine: it holds the venue's state
/// at one version of one epoch and says what to hand the Transport.
///
/// - Only what the venue signed is believed: a snapshot verifies against the epoch it names, a
///   patch or a tick against the epoch of the snapshot before it (the one held), a heartbeat
///   against its own. Anything else is dropped and counted, and changes nothing.
/// - Epochs: holding epoch E, a snapshot of another epoch replaces the state only when its
///   `epochStartedAt` is later than E's (a venue restarted, or restored from a backup with lower
///   versions); within an epoch a version never goes back.
/// - A patch applies only to the version held; a gap (or a patch that does not apply) means
///   "replay the subject from its snapshot". While a replay catches up to the version already
///   announced, nothing is announced.
/// - The venue's current run (`VenueRun`) is learnt from what only the venue says live: numbered
///   ticks-subject messages. One with a `seq` not above the last acted on is a replay and counts
///   for nothing, not even as hearing the venue. A state of an older run than the newest heard,
///   or over 100 versions behind it, is not served: the follower is `behind` and replays.
public struct StreamFollower: Sendable {
    /// What happened, for the relay's driver to carry out.
    public enum Action: Equatable, Sendable {
        /// A new version for the Transport: with the venue's patch bytes when the spectators can
        /// chain it, else snapshot only.
        case announce(StateFrames)
        /// Bytes rebuilt from a verified tick's fields.
        case forwardTick(pitch: Int, bytes: [UInt8])
        /// Bytes rebuilt from a verified presence's counts.
        case forwardPresence([UInt8])
        /// Unsubscribe and read the subject again from its snapshot.
        case replay(reason: String)
        /// A message not acted on (counted in `dropped`); the driver logs these throttled.
        case dropped(reason: String)
        case linkLost(sinceMs: Int64)
        case linkRestored
    }

    /// The venue's state as the follower holds it.
    public struct Held: Equatable, Sendable {
        public var epoch: StreamEpoch
        public var version: Int
        public var state: JSONValue
    }

    /// Silence from the venue (no verified state, tick or heartbeat) longer than this is a lost link.
    public static let silenceLimitMs: Int64 = 10_000

    /// The newest run of the venue this follower heard of, and how far it has been heard.
    public struct VenueRun: Equatable, Sendable {
        public var epoch: StreamEpoch
        /// The last ticks-subject `seq` acted on in this epoch (0: none yet).
        public var lastSeq = 0
        /// The version the venue's newest heartbeat named.
        public var version: Int?
        /// Heard live (a numbered ticks message of this epoch), not only read from the stream.
        public var confirmed = false
        /// When a state of this run was first held without being confirmed (the grace's start).
        public var unconfirmedSinceMs: Int64?
    }

    /// Held longer than this without the venue confirming its run (it may be gone), the state is
    /// served anyway, with `link` false. The venue says something on its ticks subject at least
    /// every 5 s; the grace is the silence that makes a link lost.
    public static let confirmationGraceMs: Int64 = silenceLimitMs
    /// A state more versions than this behind the venue's heartbeat is not served.
    public static let maximumVersionsBehind = 100

    public let venueKey: Ed25519PublicKey
    public internal(set) var held: Held?
    /// The last version handed to the Transport, and its epoch.
    public internal(set) var announced: (epoch: StreamEpoch, version: Int)?
    public internal(set) var venueRun: VenueRun?
    public internal(set) var lastHeardMs: Int64?
    public internal(set) var linkLive = false
    public internal(set) var natsConnected = false
    /// Set by `replay`, cleared by the next snapshot: patches seen meanwhile are not gaps.
    public internal(set) var awaitingSnapshot = true
    /// Messages dropped: not signed by the venue, not understood, too big, stray, or replayed.
    public internal(set) var dropped = 0
    struct Fault: Equatable {
        var held: Int
        var version: Int
    }
    var lastFault: Fault?

    public init(venueKey: Ed25519PublicKey) { self.venueKey = venueKey }

    // MARK: - Events

    /// A message of the state subject, in stream order, with its `Gather-Signature`.
    public mutating func receivedState(_ bytes: [UInt8], signature: String?, now: Int64) -> [Action] {
        switch StreamMessage.read(bytes) {
        case .snapshot(let version, let state, let epoch):
            guard verifies(bytes, epoch: epoch.id, signature) else { return drop("a snapshot the venue did not sign") }
            return tookSnapshot(version: version, state: state, epoch: epoch, now: now)
        case .patch(let from, let version, let operations):
            guard !awaitingSnapshot, let current = held else { return [] }  // the replay's snapshot comes first
            guard verifies(bytes, epoch: current.epoch.id, signature) else {
                return drop("a patch the venue did not sign in the epoch held")
            }
            return tookPatch(bytes, from: from, version: version, operations: operations, current: current)
        case .junk(let reason):
            return drop("state subject: \(reason)")
        case .tick, .heartbeat, .presence:
            return drop("state subject: a message that belongs on the ticks subject")
        }
    }

    /// A message of the ticks subject (ticks, the venue's presence, heartbeats). `oversized`: it
    /// was over `StreamMessage.maximumTicksBytes` and was not even copied.
    public mutating func receivedTick(_ bytes: [UInt8], signature: String?, oversized: Bool = false, now: Int64) -> [Action] {
        guard !oversized, bytes.count <= StreamMessage.maximumTicksBytes else {
            return drop("a ticks message over \(StreamMessage.maximumTicksBytes) bytes")
        }
        switch StreamMessage.read(bytes) {
        case .tick(let tick, let seq):
            return heardNumbered(bytes, signature: signature, seq: seq, what: "tick", now: now) {
                .forwardTick(pitch: tick.pitch, bytes: $0)
            } rebuilt: { tick.bytes }
        case .presence(let presence, let seq):
            return heardNumbered(bytes, signature: signature, seq: seq, what: "presence", now: now) {
                .forwardPresence($0)
            } rebuilt: { presence.bytes }
        case .heartbeat(let heartbeat):
            guard verifies(bytes, epoch: heartbeat.epoch.id, signature) else { return drop("a heartbeat the venue did not sign") }
            return heardHeartbeat(heartbeat, now: now)
        case .junk(let reason):
            return drop("ticks subject: \(reason)")
        case .snapshot, .patch:
            return drop("ticks subject: a state message")
        }
    }

    /// NATS connected or lost; on reconnect the relay replays (it may have missed versions).
    public mutating func natsChanged(connected: Bool, now: Int64) -> [Action] {
        natsConnected = connected
        if !connected {
            guard linkLive else { return [] }
            linkLive = false
            return [.linkLost(sinceMs: lastHeardMs ?? now)]
        }
        return startReplay("connected to NATS")
    }

    /// The relay's clock: the 10-s silence rule, and the grace for a run nobody confirms.
    public mutating func clock(now: Int64) -> [Action] {
        var actions = graceEnded(now: now)
        guard linkLive, let lastHeardMs, now - lastHeardMs > Self.silenceLimitMs else { return actions }
        linkLive = false
        actions.append(.linkLost(sinceMs: lastHeardMs))
        return actions
    }

    /// The replay the driver asked for has begun: the next snapshot is the new base.
    public mutating func replayStarted() { awaitingSnapshot = true }

    // MARK: - State

    private mutating func tookSnapshot(version: Int, state: JSONValue, epoch: StreamEpoch, now: Int64) -> [Action] {
        if let current = held {
            // An older run of the venue, replayed: changes nothing.
            guard current.epoch.admits(epoch) else { return [] }
            // Within the epoch, a snapshot older than the state held is one replayed out of turn
            // (a replay's own snapshot may be older: its patches follow).
            if current.epoch == epoch, !awaitingSnapshot, version < current.version { return [] }
        }
        awaitingSnapshot = false
        held = Held(epoch: epoch, version: version, state: state)
        learnRunOfHeldState(now: now)
        guard mayServeHeld else { return [] }
        guard let last = announced, last.epoch == epoch, version <= last.version else {
            if announced?.epoch != epoch { lastFault = nil }
            announced = (epoch, version)
            return [.announce(Self.frames(version: version, state: state, patch: nil, epoch: epoch))]
        }
        return []
    }

    private mutating func tookPatch(_ bytes: [UInt8], from: Int, version: Int, operations: [PatchOperation],
                                    current: Held) -> [Action] {
        if version <= current.version { return [] }  // a duplicate, already held
        guard from == current.version else {
            return replayOrSkip(held: current.version, version: version,
                                reason: "a gap: holding \(current.version), the stream went on from \(from)")
        }
        let next: JSONValue
        do {
            next = try JSONPatch.apply(operations, to: current.state)
        } catch {
            return replayOrSkip(held: current.version, version: version, reason: "a patch that does not apply: \(error)")
        }
        held = Held(epoch: current.epoch, version: version, state: next)
        guard mayServeHeld else { return [] }
        guard let last = announced, last.epoch == current.epoch, version > last.version else { return releaseHeld() }
        announced = (current.epoch, version)
        return [.announce(Self.frames(version: version, state: next, patch: last.version == from ? bytes : nil,
                                      epoch: current.epoch))]
    }

    // MARK: - Helpers

    func verifies(_ bytes: [UInt8], epoch: String, _ signature: String?) -> Bool {
        StreamSignature.verify(bytes, epoch: epoch, signature: signature, key: venueKey)
    }

    mutating func drop(_ reason: String) -> [Action] {
        dropped += 1
        return [.dropped(reason: reason)]
    }

    mutating func forward(_ bytes: [UInt8], _ action: ([UInt8]) -> Action) -> [Action] {
        guard bytes.count <= StreamMessage.maximumForwardedBytes else {
            return drop("a tick or presence over \(StreamMessage.maximumForwardedBytes) bytes as rebuilt")
        }
        return [action(bytes)]
    }

    mutating func heard(now: Int64) -> [Action] {
        lastHeardMs = now
        guard !linkLive, natsConnected else { return [] }
        linkLive = true
        return [.linkRestored]
    }

    /// A replay fixes what this relay missed; when the replay meets the very same fault again,
    /// the fault is in the stream itself (a damaged message the venue signed): that message is
    /// skipped and the patch after it chains on, instead of replaying forever.
    private mutating func replayOrSkip(held: Int, version: Int, reason: String) -> [Action] {
        let fault = Fault(held: held, version: version)
        guard fault != lastFault else {
            return drop("the stream itself holds a message that does not follow version \(held)")
        }
        lastFault = fault
        return startReplay(reason)
    }

    mutating func startReplay(_ reason: String) -> [Action] {
        awaitingSnapshot = true
        return [.replay(reason: reason)]
    }

    /// A relay serves gather.v2 only: the gather.v1 snapshot is never read, so it stays empty. The
    /// gather.v2 snapshot is rendered only when a follower needs it (most versions reach every
    /// follower as the venue's patch), once for all of them.
    static func frames(version: Int, state: JSONValue, patch: [UInt8]?, epoch: StreamEpoch) -> StateFrames {
        StateFrames(version: version, v1Snapshot: [],
                    v2Snapshot: SnapshotOnDemand {
                        JSONWriter.bytes(MessagePresenter.snapshot(version: version, state: state, epoch: epoch))
                    },
                    v2Patch: patch, epoch: epoch.id)
    }
}
