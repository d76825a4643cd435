import CNats
import Dispatch
import Foundation
import GatherDelivery
import Logging
import Synchronization

/// The relay's source of the match: follows the venue's stream on NATS (replaying the state
/// subject from its snapshot, then live; the ticks subject; the heartbeats), runs the
/// `StreamFollower` on its own queue and hands the Transport `Delivery`s. It is also the
/// Transport's `TransportSource`: it greets spectators and refuses whatever they ask.
public final class RelayStream: TransportSource, @unchecked Sendable {
    public struct Configuration: Sendable {
        public var endpoint: NATSEndpoint
        public var venue: VenueName
        /// The stream to read: the venue's own, or a hub's mirror of it.
        public var streamName: String
        /// This relay's name in its watcher reports.
        public var relayID: String

        public init(endpoint: NATSEndpoint, venue: VenueName, streamName: String, relayID: String) {
            self.endpoint = endpoint
            self.venue = venue
            self.streamName = streamName
            self.relayID = relayID
        }
    }

    public let queue = DispatchQueue(label: "gather.relay", qos: .userInteractive)
    private let configuration: Configuration
    private let logger: Logger
    private let deliver: @Sendable ([Delivery]) -> Void
    private var link: NATSLink!
    private var ticksSubscriber: NATSSubscriber!

    // MARK: The relay's queue only

    private var follower = StreamFollower()
    private var spectators: Set<ConnectionID> = []
    private var stateSubscription: OpaquePointer?
    private var ticksSubscription: OpaquePointer?
    /// Subscribers of earlier replays, kept briefly: libnats may still be inside their callback.
    private var retiredSubscribers: [NATSSubscriber] = []
    private var generation = 0
    private var lastReplayAt: Int64 = .min
    private var replayWanted = false
    private var clockTimer: DispatchSourceTimer?
    private var ticksToReport = 0
    private var ticksToConsumerCheck = 0
    private var saidWaiting = false

    // MARK: Shared (behind a Mutex), for /healthz

    private let health = Mutex(Health())

    public struct Health: Sendable {
        public var version: Int?
        public var lastHeardMs: Int64?
        public var spectators = 0
        public var nats = "reconnecting"
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
        self.link = NATSLink(endpoint: configuration.endpoint, queue: queue) { [weak self] in self?.linkChanged($0) }
        self.ticksSubscriber = NATSSubscriber(queue: queue) { [weak self] in self?.heardTick($0) }
    }

    public func start() throws {
        try link.start()
        queue.async { [self] in
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + .milliseconds(Self.clockPeriodMs),
                           repeating: .milliseconds(Self.clockPeriodMs), leeway: .milliseconds(50))
            timer.setEventHandler { [weak self] in self?.clockTicked() }
            timer.resume()
            clockTimer = timer
            if !link.isConnected { sayWaiting("NATS is not reachable yet") }
        }
    }

    public func stop() {
        queue.sync {
            clockTimer?.cancel()
            clockTimer = nil
        }
        link.close()
    }

    public func reading() -> Health { health.withLock { $0 } }

    // MARK: - TransportSource (the Transport's thread → the relay's queue)

    public func connectionOpened(_ id: ConnectionID, remoteAddress: String, protocol wire: WireProtocol, door: Door) {
        queue.async { [self] in
            spectators.insert(id)
            health.withLock { $0.spectators = spectators.count }
            var deliveries: [Delivery] = [.greet(id, RelayReplies.welcome(serverTime: Self.nowMs()))]
            // After its snapshot (the Transport sends state before replies); also before the
            // relay ever heard the venue, so a page does not show "Live" over nothing.
            if !follower.linkLive {
                deliveries.append(.send(id, RelayReplies.link(live: false, sinceMs: follower.lastHeardMs)))
            }
            deliver(deliveries)
        }
    }

    public func connectionClosed(_ id: ConnectionID) {
        queue.async { [self] in
            spectators.remove(id)
            health.withLock { $0.spectators = spectators.count }
        }
    }

    public func received(_ text: String, from id: ConnectionID) {
        queue.async { [self] in
            // `.handled` after the reply: the Transport reads no further from a connection with
            // too many messages waiting here.
            let reply = RelayReplies.reply(to: text, version: follower.announced ?? 0)
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
            perform(follower.natsChanged(connected: true, now: now))
        case .disconnected, .closed:
            health.withLock { $0.nats = "reconnecting" }
            sayWaiting("lost NATS")
            perform(follower.natsChanged(connected: false, now: now))
        }
    }

    private func heardState(_ message: NATSMessage, generation: Int) {
        guard generation == self.generation else { return }
        perform(follower.receivedState(message.data, now: Self.nowMs()))
    }

    private func heardTick(_ message: NATSMessage) {
        perform(follower.receivedTick(message.data, now: Self.nowMs()))
    }

    private func clockTicked() {
        let now = Self.nowMs()
        perform(follower.clock(now: now))
        if replayWanted { replay() }
        ticksToConsumerCheck -= 1
        if ticksToConsumerCheck <= 0 {
            ticksToConsumerCheck = 2_000 / Self.clockPeriodMs
            checkConsumer()
        }
        ticksToReport -= 1
        if ticksToReport <= 0 {
            ticksToReport = 5_000 / Self.clockPeriodMs
            reportWatchers()
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
                replayWanted = true
            case .reportJunk(let text):
                logger.warning("skipped a message that is not the venue's gather.v2", metadata: ["relay.detail": "\(text)"])
            case .linkLost(let sinceMs):
                logger.warning("the venue went quiet", metadata: ["relay.last_heard_ms": "\(sinceMs)"])
                let bytes = RelayReplies.link(live: false, sinceMs: sinceMs)
                deliveries += spectators.sorted().map { .send($0, bytes) }
            case .linkRestored:
                logger.notice("hearing the venue again")
                let bytes = RelayReplies.link(live: true, sinceMs: nil)
                deliveries += spectators.sorted().map { .send($0, bytes) }
            }
        }
        health.withLock { [announced = follower.announced, lastHeardMs = follower.lastHeardMs] health in
            health.version = announced
            health.lastHeardMs = lastHeardMs
        }
        if !deliveries.isEmpty { deliver(deliveries) }
        if replayWanted { replay() }
    }

    // MARK: - Subscriptions

    private func subscribeToTicks() {
        guard ticksSubscription == nil, let handles = link.handles else { return }
        var subscription: OpaquePointer?
        let status = natsConnection_Subscribe(&subscription, handles.connection, configuration.venue.ticksSubject,
                                              natsMessageThunk, ticksSubscriber.context)
        guard status == NATS_OK else { return }
        _ = natsSubscription_SetPendingLimits(subscription, 10_000, 8 << 20)
        ticksSubscription = subscription
    }

    /// Reads the state subject again from its snapshot (an ordered consumer over everything the
    /// stream holds for it: one snapshot and the patches after it), at most as often as `replay(Waiting)IntervalMs`.
    private func replay() {
        let now = Self.nowMs()
        guard link.isConnected, let handles = link.handles else { return }
        let interval = stateSubscription == nil ? Self.waitingIntervalMs : Self.replayIntervalMs
        guard lastReplayAt == .min || now - lastReplayAt >= interval else { return }
        lastReplayAt = now
        replayWanted = false
        if let stateSubscription {
            _ = natsSubscription_Unsubscribe(stateSubscription)
            natsSubscription_Destroy(stateSubscription)
            self.stateSubscription = nil
        }
        generation += 1
        let generation = self.generation
        let subscriber = NATSSubscriber(queue: queue) { [weak self] in self?.heardState($0, generation: generation) }
        retiredSubscribers.append(subscriber)
        if retiredSubscribers.count > 4 { retiredSubscribers.removeFirst() }
        follower.replayStarted()

        var options = jsSubOptions()
        jsSubOptions_Init(&options)
        options.Ordered = true
        options.Config.DeliverPolicy = js_DeliverAll
        // The server's heartbeat on this consumer, 1 s instead of libnats' 5 s: libnats recreates
        // an ordered consumer after missed heartbeats (checked every two), so when the hub node
        // holding it dies the relay resumes in seconds, not 10-20 s.
        options.Config.Heartbeat = 1_000_000_000
        var errorCode = jsErrCode(0)
        var subscription: OpaquePointer?
        let status: natsStatus = configuration.streamName.withCString { stream in
            options.Stream = stream
            return js_Subscribe(&subscription, handles.jetStream, configuration.venue.stateSubject, natsMessageThunk,
                                subscriber.context, nil, &options, &errorCode)
        }
        guard status == NATS_OK, let subscription else {
            sayWaiting("the stream \(configuration.streamName) is not there yet (JetStream error \(errorCode.rawValue))")
            replayWanted = true
            return
        }
        _ = natsSubscription_SetPendingLimits(subscription, 100_000, 64 << 20)
        stateSubscription = subscription
        saidWaiting = false
    }

    /// libnats re-creates an ordered consumer whose hub node died only after missed heartbeats,
    /// and on a hub of three that took over 10 s while the mirror elected its new leader. Asked
    /// every 2 s (at most 0.5 s on this queue), the hub says as soon as it can that the consumer
    /// is gone, and the relay replays at once.
    private func checkConsumer() {
        guard let stateSubscription, link.isConnected else { return }
        var options = jsOptions()
        jsOptions_Init(&options)
        options.Wait = 500
        var info: UnsafeMutablePointer<jsConsumerInfo>?
        var errorCode = jsErrCode(0)
        let status = natsSubscription_GetConsumerInfo(&info, stateSubscription, &options, &errorCode)
        jsConsumerInfo_Destroy(info)
        guard status != NATS_OK, errorCode == JSConsumerNotFoundErr else { return }
        logger.info("replaying the venue's stream", metadata: ["relay.reason": "the hub no longer has its consumer"])
        replayWanted = true
        replay()
    }

    private func reportWatchers() {
        guard link.isConnected, let connection = link.handles?.connection else { return }
        let bytes = Array("{\"relay\":\"\(configuration.relayID)\",\"spectators\":\(spectators.count)}".utf8)
        _ = bytes.withUnsafeBufferPointer {
            natsConnection_Publish(connection, configuration.venue.watchersSubject, $0.baseAddress, Int32($0.count))
        }
    }

    private func sayWaiting(_ why: String) {
        guard !saidWaiting else { return }
        saidWaiting = true
        logger.warning("waiting for the venue: \(why); serving the pages meanwhile")
    }

    public static func nowMs() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}
