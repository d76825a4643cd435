import CNats
import Dispatch
import Foundation
import GatherDelivery
import GatherPresenters
import GatherSecurity
import Logging
import Synchronization

/// The relay's source of the match: follows the venue's stream on NATS (replaying the state
/// subject from its snapshot, then live; the ticks subject; the heartbeats), runs the
/// `StreamFollower` on its own queue and hands the Transport `Delivery`s. It is also the
/// Transport's `TransportSource`: it greets spectators and refuses whatever they ask.
public final class RelayStream: TransportSource, Sendable {
    public struct Configuration: Sendable {
        public var endpoint: NATSEndpoint
        public var venue: VenueName
        /// The stream to read: the venue's own, or a hub's mirror of it.
        public var streamName: String
        /// This relay's name in its watcher reports.
        public var relayID: String
        /// The venue's public key: nothing it did not sign is believed.
        public var venueKey: Ed25519PublicKey

        public init(endpoint: NATSEndpoint, venue: VenueName, streamName: String, relayID: String,
                    venueKey: Ed25519PublicKey) {
            self.endpoint = endpoint
            self.venue = venue
            self.streamName = streamName
            self.relayID = relayID
            self.venueKey = venueKey
        }
    }

    public let queue = DispatchQueue(label: "gather.relay", qos: .userInteractive)
    let configuration: Configuration
    let logger: Logger
    private let deliver: @Sendable ([Delivery]) -> Void
    let link: NATSLink
    let ticksSubscriber: NATSSubscriber
    let owner = WeakTarget<RelayStream>()
    let local: QueueBound<Local>

    /// What only the relay's queue touches.
    struct Local {
        var follower: StreamFollower
        var spectators: Set<ConnectionID> = []
        var stateSubscription: OpaquePointer?
        var ticksSubscription: OpaquePointer?
        /// Subscribers of earlier replays, kept briefly: libnats may still be inside their callback.
        var retiredSubscribers: [NATSSubscriber] = []
        var generation = 0
        var lastReplayAt: Int64 = .min
        var replayWanted = false
        var clockTimer: DispatchSourceTimer?
        var ticksToReport = 0
        var ticksToConsumerCheck = 0
        var saidWaiting = false
        /// Dropped messages are logged at most once per 10 s, the rest summed up.
        var dropLog = LogThrottle(windowSeconds: 10, burst: 1, maximumKeys: 1)
    }

    // MARK: Shared (behind a Mutex), for /healthz

    private let health = Mutex(Health())

    public struct Health: Sendable {
        public var version: Int?
        public var lastHeardMs: Int64?
        public var spectators = 0
        public var nats = "reconnecting"
        /// Messages dropped: not signed by the venue, not understood, too big.
        public var dropped = 0
        public var epoch: String?
        /// The state held is of an older run than the venue's newest heard, or over 100 versions
        /// behind it: the relay replays and serves nothing new until it holds the current run.
        public var behind = false
        /// The newest version heard of the venue's current run.
        public var venueVersion: Int?
    }

    /// Replays at most this often, whatever the stream holds; while the stream is not there yet
    /// (the relay started first), it looks for it four times a second.
    static let replayIntervalMs: Int64 = 1_000
    static let waitingIntervalMs: Int64 = 250
    /// The clock's period; watcher reports every 20 of them (5 s).
    static let clockPeriodMs = 250

    public init(configuration: Configuration, logger: Logger, deliver: @escaping @Sendable ([Delivery]) -> Void) {
        self.configuration = configuration
        var logger = logger
        logger[metadataKey: "relay.venue"] = "\(configuration.venue)"
        logger[metadataKey: "relay.stream"] = "\(configuration.streamName)"
        self.logger = logger
        self.deliver = deliver
        local = QueueBound(Local(follower: StreamFollower(venueKey: configuration.venueKey)), queue: queue)
        link = NATSLink(endpoint: configuration.endpoint, queue: queue) { [owner] in owner.target?.linkChanged($0) }
        ticksSubscriber = NATSSubscriber(queue: queue, maximumBytes: StreamMessage.maximumTicksBytes) { [owner] in
            owner.target?.heardTick($0)
        }
        owner.set(self)
    }

    public func start() throws {
        try link.start()
        queue.async { [self] in
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + .milliseconds(Self.clockPeriodMs),
                           repeating: .milliseconds(Self.clockPeriodMs), leeway: .milliseconds(50))
            timer.setEventHandler { [weak self] in self?.clockTicked() }
            timer.resume()
            local.value.clockTimer = timer
            if !link.isConnected { sayWaiting("NATS is not reachable yet") }
        }
    }

    public func stop() {
        queue.sync {
            local.value.clockTimer?.cancel()
            local.value.clockTimer = nil
        }
        link.close()
    }

    public func reading() -> Health { health.withLock { $0 } }

    // MARK: - TransportSource (the Transport's thread → the relay's queue)

    public func connectionOpened(_ id: ConnectionID, remoteAddress: String, protocol wire: WireProtocol, door: Door) {
        queue.async { [self] in
            let deliveries: [Delivery] = local.withValue { local in
                local.spectators.insert(id)
                let count = local.spectators.count
                health.withLock { $0.spectators = count }
                let follower = local.follower
                var deliveries: [Delivery] = [.greet(id, RelayReplies.welcome(serverTime: Self.nowMs(),
                                                                              epoch: follower.announced?.epoch))]
                // After its snapshot (the Transport sends state before replies); also before the
                // relay ever heard the venue, so a page does not show "Live" over nothing.
                if !follower.linkLive {
                    deliveries.append(.send(id, RelayReplies.link(live: false, sinceMs: follower.lastHeardMs)))
                }
                return deliveries
            }
            deliver(deliveries)
        }
    }

    public func connectionClosed(_ id: ConnectionID) {
        queue.async { [self] in
            let count = local.withValue { local in
                local.spectators.remove(id)
                return local.spectators.count
            }
            health.withLock { $0.spectators = count }
        }
    }

    public func received(_ text: String, from id: ConnectionID) {
        queue.async { [self] in
            // `.handled` after the reply: the Transport reads no further from a connection with
            // too many messages waiting here.
            let reply = RelayReplies.reply(to: text, version: local.value.follower.announced?.version ?? 0)
            deliver((reply.map { [Delivery.send(id, $0)] } ?? []) + [.handled(id)])
        }
    }

    // MARK: - NATS events (the relay's queue)

    private func linkChanged(_ event: NATSLink.Event) {
        let now = Self.nowMs()
        switch event {
        case .connected:
            logger.notice("connected to NATS; following the venue's stream")
            health.withLock { $0.nats = "connected" }
            subscribeToTicks()
            perform(local.withValue { $0.follower.natsChanged(connected: true, now: now) })
        case .disconnected, .closed:
            health.withLock { $0.nats = "reconnecting" }
            sayWaiting("lost NATS")
            perform(local.withValue { $0.follower.natsChanged(connected: false, now: now) })
        }
    }

    func heardState(_ message: NATSMessage, generation: Int) {
        let now = Self.nowMs()
        let actions: [StreamFollower.Action] = local.withValue { local in
            guard generation == local.generation else { return [] }
            return local.follower.receivedState(message.data, signature: message.signature, now: now)
        }
        perform(actions)
    }

    private func heardTick(_ message: NATSMessage) {
        let now = Self.nowMs()
        perform(local.withValue {
            $0.follower.receivedTick(message.data, signature: message.signature, oversized: message.oversized, now: now)
        })
    }

    private func clockTicked() {
        let now = Self.nowMs()
        perform(local.withValue { $0.follower.clock(now: now) })
        if local.value.replayWanted { replay() }
        let summaries = local.value.dropLog.summaries(now: DispatchTime.now().uptimeNanoseconds)
        for summary in summaries { logger.warning("\(summary.line)") }
        if isDue(\.ticksToConsumerCheck, everyMs: 2_000) { checkConsumer() }
        if isDue(\.ticksToReport, everyMs: 5_000) { reportWatchers() }
    }

    /// Counts one clock tick down on `counter`; true (and the counter wound up again) once per
    /// `everyMs`.
    private func isDue(_ counter: WritableKeyPath<Local, Int>, everyMs: Int) -> Bool {
        local.withValue { local in
            local[keyPath: counter] -= 1
            guard local[keyPath: counter] <= 0 else { return false }
            local[keyPath: counter] = everyMs / Self.clockPeriodMs
            return true
        }
    }

    // MARK: - Actions

    private func perform(_ actions: [StreamFollower.Action]) {
        var deliveries: [Delivery] = []
        for action in actions {
            switch action {
            case .announce(let frames):
                deliveries.append(.publishState(frames))
            case .forwardTick(let pitch, let bytes):
                deliveries.append(.publishTick(pitch: pitch, bytes: bytes))
            case .forwardPresence(let bytes):
                deliveries.append(.publishPresence(bytes))
            case .replay(let reason):
                logger.info("replaying the venue's stream", metadata: ["relay.reason": "\(reason)"])
                local.value.replayWanted = true
            case .dropped(let reason):
                let admitted = local.value.dropLog.admit("dropped messages", key: "the venue's subjects",
                                                         now: DispatchTime.now().uptimeNanoseconds)
                if admitted {
                    logger.warning("dropped a message of the venue's stream (logged at most once per 10 s)",
                                   metadata: ["relay.detail": "\(reason)"])
                }
            case .linkLost(let sinceMs):
                logger.warning("the venue went quiet", metadata: ["relay.last_heard_ms": "\(sinceMs)"])
                let bytes = RelayReplies.link(live: false, sinceMs: sinceMs)
                deliveries += local.value.spectators.sorted().map { .send($0, bytes) }
            case .linkRestored:
                logger.notice("hearing the venue again")
                let bytes = RelayReplies.link(live: true, sinceMs: nil)
                deliveries += local.value.spectators.sorted().map { .send($0, bytes) }
            }
        }
        let (announced, lastHeardMs, dropped) = local.withValue { ($0.follower.announced, $0.follower.lastHeardMs, $0.follower.dropped) }
        let (behind, venueVersion) = local.withValue { ($0.follower.behind, $0.follower.venueVersion) }
        health.withLock { health in
            health.behind = behind
            health.venueVersion = venueVersion
            health.version = announced?.version
            health.epoch = announced?.epoch.id
            health.lastHeardMs = lastHeardMs
            health.dropped = dropped
        }
        if !deliveries.isEmpty { deliver(deliveries) }
        if local.value.replayWanted { replay() }
    }

    public static func nowMs() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}
