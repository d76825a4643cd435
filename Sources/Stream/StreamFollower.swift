import GatherDelivery
import GatherModel
import GatherPresenters

/// The relay's reading of the venue's stream, as a pure state machine: it holds the venue's state
/// at one version and says what to hand the Transport. The same rule as the pages: a patch
/// applies only to the version held; anything else (a gap, a patch that does not apply)
/// means "replay the subject from its snapshot" (junk is skipped: a version it hid
/// shows as a gap). It never invents, skips or reorders a version,
/// and what it hands on never goes back: while a replay catches up to the version already
/// announced, nothing is announced.
public struct StreamFollower: Sendable {
    /// What happened, for the relay's driver to carry out.
    public enum Action: Equatable, Sendable {
        /// A new version for the Transport: with the venue's patch bytes when the spectators can
        /// chain it, else snapshot only.
        case announce(StateFrames)
        case forwardTick(pitch: Int, bytes: [UInt8])
        case forwardPresence([UInt8])
        /// Unsubscribe and read the subject again from its snapshot.
        case replay(reason: String)
        /// Log once per kind of junk, not once per message.
        case reportJunk(String)
        case linkLost(sinceMs: Int64)
        case linkRestored
    }

    /// Silence from the venue (no state, tick or heartbeat) longer than this is a lost link.
    public static let silenceLimitMs: Int64 = 10_000

    /// The venue's state at `version`, as the follower holds it.
    public private(set) var held: (version: Int, state: JSONValue)?
    /// The last version handed to the Transport.
    public private(set) var announced: Int?
    public private(set) var lastHeardMs: Int64?
    public private(set) var linkLive = false
    public private(set) var natsConnected = false
    /// Set by `replay`, cleared by the next snapshot: patches seen meanwhile are not gaps.
    public private(set) var awaitingSnapshot = true
    private var reportedJunk: Set<String> = []
    private struct Fault: Equatable {
        var held: Int
        var version: Int
    }
    private var lastFault: Fault?

    public init() {}

    // MARK: - Events

    /// A message of the state subject, in stream order.
    public mutating func receivedState(_ bytes: [UInt8], now: Int64) -> [Action] {
        var actions = heard(now: now)
        switch StreamMessage.read(bytes) {
        case .snapshot(let version, let state):
            awaitingSnapshot = false
            held = (version, state)
            if announced.map({ version > $0 }) ?? true {
                announced = version
                actions.append(.announce(Self.frames(version: version, state: state, patch: nil)))
            }
        case .patch(let from, let version, let operations):
            if awaitingSnapshot { break }
            guard let current = held else { break }
            if version <= current.version { break }  // a duplicate, already held
            guard from == current.version else {
                actions += replayOrSkip(held: current.version, version: version,
                                        reason: "a gap: holding \(current.version), the stream went on from \(from)")
                break
            }
            let next: JSONValue
            do {
                next = try JSONPatch.apply(operations, to: current.state)
            } catch {
                actions += reportOnce("a patch to version \(version) that does not apply: \(error)")
                actions += replayOrSkip(held: current.version, version: version, reason: "a patch that does not apply")
                break
            }
            held = (version, next)
            if let announced, version > announced {
                let chained = announced == from
                self.announced = version
                actions.append(.announce(Self.frames(version: version, state: next, patch: chained ? bytes : nil)))
            }
        case .junk(let reason):
            // Skipped: replaying would meet it again. A version it hid shows as a gap next.
            actions += reportOnce("state subject: \(reason)")
        case .tick, .heartbeat, .presence:
            actions += reportOnce("state subject: a message that belongs on the ticks subject")
        }
        return actions
    }

    /// A message of the ticks subject (ticks, the venue's presence, heartbeats).
    public mutating func receivedTick(_ bytes: [UInt8], now: Int64) -> [Action] {
        var actions = heard(now: now)
        switch StreamMessage.read(bytes) {
        case .tick(let pitch):
            // A tick for a version the spectators do not have yet would be ahead of its state.
            if announced != nil { actions.append(.forwardTick(pitch: pitch, bytes: bytes)) }
        case .presence:
            actions.append(.forwardPresence(bytes))
        case .heartbeat(let version):
            if let current = held?.version, version > current, !awaitingSnapshot {
                actions += startReplay("the venue is at \(version), the stream gave \(current)")
            }
        case .junk(let reason):
            actions += reportOnce("ticks subject: \(reason)")
        case .snapshot, .patch:
            actions += reportOnce("ticks subject: a state message")
        }
        return actions
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

    /// The relay's once-a-second clock.
    public mutating func clock(now: Int64) -> [Action] {
        guard linkLive, let lastHeardMs, now - lastHeardMs > Self.silenceLimitMs else { return [] }
        linkLive = false
        return [.linkLost(sinceMs: lastHeardMs)]
    }

    /// The replay the driver asked for has begun: the next snapshot is the new base.
    public mutating func replayStarted() { awaitingSnapshot = true }

    // MARK: - Helpers

    private mutating func heard(now: Int64) -> [Action] {
        lastHeardMs = now
        guard !linkLive, natsConnected else { return [] }
        linkLive = true
        return [.linkRestored]
    }

    /// A replay fixes what this relay missed; when the replay meets the very same fault again,
    /// the fault is in the stream itself (a forged or damaged message): that message is skipped
    /// and the genuine patch after it chains on, instead of replaying forever.
    private mutating func replayOrSkip(held: Int, version: Int, reason: String) -> [Action] {
        let fault = Fault(held: held, version: version)
        guard fault != lastFault else {
            return reportOnce("the stream itself holds a message that does not follow version \(held); skipped")
        }
        lastFault = fault
        return startReplay(reason)
    }

    private mutating func startReplay(_ reason: String) -> [Action] {
        awaitingSnapshot = true
        return [.replay(reason: reason)]
    }

    private mutating func reportOnce(_ text: String) -> [Action] {
        let kind = String(text.prefix(60))
        guard reportedJunk.count < 32, reportedJunk.insert(kind).inserted else { return [] }
        return [.reportJunk(text)]
    }

    /// A relay serves gather.v2 only: the gather.v1 snapshot is never read, so it stays empty.
    static func frames(version: Int, state: JSONValue, patch: [UInt8]?) -> StateFrames {
        StateFrames(version: version, v1Snapshot: [],
                    v2Snapshot: JSONWriter.bytes(["type": "snapshot", "version": .int(version), "state": state]),
                    v2Patch: patch)
    }
}
