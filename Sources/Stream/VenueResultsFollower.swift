import CNats
import Dispatch
import Foundation
import GatherDelivery
import GatherSecurity
import Logging
import Synchronization

/// The club's side of "back from the pitch": follows the venue's results subject in the hub's
/// mirror of the venue's stream (an ordered consumer over everything it holds, again after every
/// reconnection), believes only what the venue's key signed (`VenueResult.read`, as a relay reads
/// a snapshot) and hands each result with a `clubDate` to `apply` once per process; the club's
/// database makes it once across instances and restarts. A message it cannot believe is dropped,
/// counted (`/healthz` `venueDropped`) and logged at most once per 10 s.
public final class VenueResultsFollower: Sendable {
    public struct Configuration: Sendable {
        public var endpoint: NATSEndpoint
        public var venue: VenueName
        /// The stream to read on the hub: its mirror of the venue's (by default `GATHER_VENUE`).
        public var streamName: String
        public var venueKey: Ed25519PublicKey

        public init(endpoint: NATSEndpoint, venue: VenueName, streamName: String, venueKey: Ed25519PublicKey) {
            self.endpoint = endpoint
            self.venue = venue
            self.streamName = streamName
            self.venueKey = venueKey
        }
    }

    /// What the club made of one verified result.
    public enum Outcome: Equatable, Sendable {
        case applied
        /// Its id was applied before (another instance, an earlier run, a replay).
        case alreadyApplied
        /// Nothing to apply, for good (a date this club does not have, one already played).
        case ignored(reason: String)
        /// The database did not answer: the subject is read again in a second.
        case failed(reason: String)
    }

    public struct Health: Sendable, Equatable {
        public var nats = "reconnecting"
        /// Messages not believed: not signed by the venue, not a result, too big.
        public var dropped = 0
        /// Results this instance applied (a replay's are `alreadyApplied`, not counted).
        public var applied = 0
    }

    private let queue = DispatchQueue(label: "gather.club.results", qos: .utility)
    private let configuration: Configuration
    private let logger: Logger
    private let apply: @Sendable (VenueResult) -> Outcome
    private let link: NATSLink
    private let owner = WeakTarget<VenueResultsFollower>()
    private let health = Mutex(Health())
    private let local: QueueBound<Local>

    /// What only the follower's queue touches.
    private struct Local {
        var subscription: OpaquePointer?
        /// Subscribers of earlier readings, kept briefly: libnats may still be inside their callback.
        var subscribers: [NATSSubscriber] = []
        var generation = 0
        var readAgain = false
        var lastReadAt = DispatchTime(uptimeNanoseconds: 0)
        /// Result ids settled in this process (applied, known, ignored): a replay skips them.
        var settled: Set<String> = []
        var timer: DispatchSourceTimer?
        var saidWaiting = false
        var dropLog = LogThrottle(windowSeconds: 10, burst: 1, maximumKeys: 1)
    }

    /// Ids remembered per process; past this the set starts again (the database still says "known").
    static let maximumSettled = 100_000

    /// `apply` runs on the follower's queue, one result at a time.
    public init(configuration: Configuration, logger: Logger, apply: @escaping @Sendable (VenueResult) -> Outcome) {
        self.configuration = configuration
        var logger = logger
        logger[metadataKey: "club.venue"] = "\(configuration.venue)"
        logger[metadataKey: "club.venue_stream"] = "\(configuration.streamName)"
        self.logger = logger
        self.apply = apply
        local = QueueBound(Local(), queue: queue)
        link = NATSLink(endpoint: configuration.endpoint, queue: queue) { [owner] in owner.target?.linkChanged($0) }
        owner.set(self)
    }

    public func start() throws {
        try link.start()
        queue.async { [self] in
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + 1, repeating: 1, leeway: .milliseconds(100))
            timer.setEventHandler { [weak self] in self?.clockTicked() }
            timer.resume()
            local.value.timer = timer
            if !link.isConnected { sayWaiting("NATS is not reachable yet") }
        }
    }

    public func stop() {
        queue.sync {
            local.value.timer?.cancel()
            local.value.timer = nil
        }
        link.close()
    }

    public func reading() -> Health { health.withLock { $0 } }

    // MARK: - The follower's queue

    private func linkChanged(_ event: NATSLink.Event) {
        switch event {
        case .connected:
            logger.notice("connected to NATS; following the venue's results")
            health.withLock { $0.nats = "connected" }
            local.value.saidWaiting = false
            readFromTheStart()
        case .disconnected, .closed:
            health.withLock { $0.nats = "reconnecting" }
            sayWaiting("lost NATS")
        }
    }

    private func clockTicked() {
        for summary in local.value.dropLog.summaries(now: DispatchTime.now().uptimeNanoseconds) {
            logger.warning("\(summary.line)")
        }
        if local.value.readAgain { readFromTheStart() }
    }

    /// An ordered consumer over the results subject from its first message; at most once a second.
    private func readFromTheStart() {
        guard link.isConnected, let handles = link.handles else { return }
        let now = DispatchTime.now()
        guard now.uptimeNanoseconds - local.value.lastReadAt.uptimeNanoseconds >= 1_000_000_000
                || local.value.lastReadAt.uptimeNanoseconds == 0
        else {
            local.value.readAgain = true
            return
        }
        let subscriber: NATSSubscriber = local.withValue { local in
            local.lastReadAt = now
            local.readAgain = false
            if let subscription = local.subscription {
                _ = natsSubscription_Unsubscribe(subscription)
                natsSubscription_Destroy(subscription)
                local.subscription = nil
            }
            local.generation += 1
            let generation = local.generation
            let subscriber = NATSSubscriber(queue: queue, maximumBytes: VenueResult.maximumBytes) { [owner] in
                owner.target?.heard($0, generation: generation)
            }
            local.subscribers.append(subscriber)
            if local.subscribers.count > 4 { local.subscribers.removeFirst() }
            return subscriber
        }
        let subscription: OpaquePointer
        switch subscribeOrderedFromStart(jetStream: handles.jetStream, stream: configuration.streamName,
                                         subject: configuration.venue.resultsSubject, subscriber: subscriber) {
        case .success(let made): subscription = made
        case .failure(let failure):
            sayWaiting("the stream \(configuration.streamName) is not there yet (JetStream error \(failure.errorCode))")
            local.value.readAgain = true
            return
        }
        _ = natsSubscription_SetPendingLimits(subscription, 100_000, 64 << 20)
        local.value.subscription = subscription
    }

    private func heard(_ message: NATSMessage, generation: Int) {
        guard generation == local.value.generation else { return }
        let reading = message.oversized
            ? VenueResult.Reading.dropped(reason: "a result over \(VenueResult.maximumBytes) bytes")
            : VenueResult.read(message.data, signature: message.signature, venue: configuration.venue,
                               key: configuration.venueKey)
        switch reading {
        case .dropped(let reason):
            health.withLock { $0.dropped += 1 }
            if local.value.dropLog.admit("dropped results", key: configuration.streamName,
                                         now: DispatchTime.now().uptimeNanoseconds) {
                logger.warning("dropped a message of the venue's results (logged at most once per 10 s)",
                               metadata: ["club.drop": "\(reason)"])
            }
        case .result(let result):
            guard !local.value.settled.contains(result.id) else { return }
            guard result.clubDate != nil else { return settle(result.id) }
            switch apply(result) {
            case .applied:
                health.withLock { $0.applied += 1 }
                logger.info("applied a result from the pitch", metadata: [
                    "club.result": "\(result.id)", "club.date": "\(result.clubDate ?? "")", "club.played": "\(result.memberIds.count)",
                ])
                settle(result.id)
            case .alreadyApplied:
                settle(result.id)
            case .ignored(let reason):
                logger.notice("a result from the pitch changes nothing", metadata: [
                    "club.result": "\(result.id)", "club.date": "\(result.clubDate ?? "")", "club.reason": "\(reason)",
                ])
                settle(result.id)
            case .failed(let reason):
                logger.warning("could not apply a result; reading the results again in a second",
                               metadata: ["club.result": "\(result.id)", "club.error": "\(reason)"])
                local.value.readAgain = true
                local.value.generation += 1  // what this reading still delivers waits for the next
            }
        }
    }

    private func settle(_ id: String) {
        local.withValue { local in
            if local.settled.count >= Self.maximumSettled { local.settled.removeAll() }
            local.settled.insert(id)
        }
    }

    private func sayWaiting(_ why: String) {
        guard !local.value.saidWaiting else { return }
        local.value.saidWaiting = true
        logger.warning("waiting for the venue's results: \(why); the club is served meanwhile")
    }
}
