import CNats
import Dispatch
import Foundation
import GatherDelivery
import GatherModel
import GatherPresenters
import GatherSecurity
import Logging
import Synchronization

/// The venue server's side of the stream: publishes each version's gather.v2 bytes, the ticks and
/// a heartbeat to NATS, signed, on its own queue. The Coordinator's deliver closure only hands it
/// the deliveries (`enqueue`, a Mutex and a bounded queue), so NATS down, slow or gone never
/// delays an ack or a phone on the Wi-Fi.
public final class VenuePublisher: Sendable {
    public enum LinkState: String, Sendable {
        case connected
        case reconnecting
    }

    public let venue: VenueName
    /// This run of the venue: in every message id, every heartbeat, every signature.
    public let epoch: StreamEpoch
    let signingKey: Ed25519PrivateKey
    /// The public half, to believe only its own last result when it reads the stream back.
    let ownKey: Ed25519PublicKey?
    let queue = DispatchQueue(label: "gather.stream.publish", qos: .utility)
    let logger: Logger
    let link: NATSLink
    let watcherSubscriber: NATSSubscriber
    private let owner = WeakTarget<VenuePublisher>()
    let onRemoteWatchers: @Sendable (Int) -> Void

    // MARK: Shared (behind a Mutex: the Coordinator's queue, /healthz and the publisher's queue)

    struct Shared {
        var publications = PublishQueue()
        var drainScheduled = false
        var state = LinkState.reconnecting
        var publishedVersion: Int?
        var remoteWatchers = 0
        /// The venue's stream was found or made, and no publication or check has missed it since.
        var streamPresent = false
        /// State versions published, and the publisher thread's CPU time spent publishing them.
        var statePublications = 0
        var publishingCPUNanoseconds: UInt64 = 0
    }

    let shared = Mutex(Shared())

    /// What only the publisher's queue touches.
    struct Local {
        /// Set only through `setStreamReady`, which tells `/healthz` too.
        var streamReady = false
        /// What this run stored in its stream, to notice what it did not (`StreamIntegrity`).
        var integrity = StreamIntegrity()
        /// When the stream's last message was last compared with the venue's own.
        var lastIntegrityCheck = DispatchTime.now()
        /// Faults of the stream are logged at most once per 10 s, the rest summed up.
        var faultLog = LogThrottle(windowSeconds: 10, burst: 1, maximumKeys: 1)
        /// The `seq` of the last message on the ticks subject in this epoch (0: none yet).
        var ticksSeq = 0
        /// When the last message went out on the ticks subject: a heartbeat follows 5 s later.
        var lastTicksAt = DispatchTime.now()
        /// When the stream was last looked for while it was thought present (`clockTicked`).
        var lastStreamCheck = DispatchTime.now()
        var heartbeat: DispatchSourceTimer?
        var tally = WatcherTally()
        var saidDown = false
        var watcherSubscription: OpaquePointer?
        /// Where the finished gathers come from (set once by `followResults`), and what of them
        /// the stream already holds.
        var resultsSource: ResultsSource?
        var results = ResultsOutbox()
        /// Failures to publish a result are logged at most once per 10 s.
        var resultsLog = LogThrottle(windowSeconds: 10, burst: 1, maximumKeys: 1)
    }

    let local: QueueBound<Local>

    /// `onRemoteWatchers` is called (on the publisher's queue) when the sum of the relays'
    /// spectators changes.
    public init(endpoint: NATSEndpoint, venue: VenueName, epoch: StreamEpoch, signingKey: Ed25519PrivateKey,
                logger: Logger, onRemoteWatchers: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.venue = venue
        self.epoch = epoch
        self.signingKey = signingKey
        ownKey = (try? signingKey.publicKeyBytes()).flatMap(Ed25519PublicKey.init(rawBytes:))
        var logger = logger
        logger[metadataKey: "stream.venue"] = "\(venue)"
        self.logger = logger
        self.onRemoteWatchers = onRemoteWatchers
        local = QueueBound(Local(), queue: queue)
        link = NATSLink(endpoint: endpoint, queue: queue) { [owner] event in owner.target?.linkChanged(event) }
        watcherSubscriber = NATSSubscriber(queue: queue, maximumBytes: WatcherTally.maximumReportBytes) { [owner] message in
            owner.target?.heardWatchers(message)
        }
        owner.set(self)
    }

    /// Starts connecting (in the background when NATS is down) and the heartbeat clock.
    public func start() throws {
        try link.start()
        queue.async { [self] in
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + 1, repeating: 1, leeway: .milliseconds(100))
            timer.setEventHandler { [weak self] in self?.clockTicked() }
            timer.resume()
            local.value.heartbeat = timer
            if !link.isConnected, !local.value.saidDown {
                local.value.saidDown = true
                logger.warning("NATS is not reachable yet: the Wi-Fi is served as always, the stream starts when it is")
            }
        }
    }

    /// Flushes briefly and closes; called once at shutdown.
    public func stop() {
        queue.sync {
            local.value.heartbeat?.cancel()
            local.value.heartbeat = nil
        }
        link.close()
    }

    /// Whether the NATS connection is up now (the banner's word on the stream).
    public var isConnected: Bool { link.isConnected }

    /// For `/healthz`.
    public func reading() -> (state: LinkState, publishedVersion: Int?, remoteWatchers: Int) {
        shared.withLock { ($0.state, $0.publishedVersion, $0.remoteWatchers) }
    }

    /// For `/healthz`: whether the venue's stream is there as far as the publisher knows (nil
    /// while NATS is unreachable: it cannot know).
    public var streamPresent: Bool? {
        shared.withLock { $0.state == .connected ? $0.streamPresent : nil }
    }

    // MARK: - In (any thread: the Coordinator's queue)

    /// Keeps what the stream needs from one event's deliveries; returns at once.
    public func enqueue(_ deliveries: [Delivery]) {
        let schedule: Bool = shared.withLock { shared in
            for delivery in deliveries { shared.publications.add(delivery) }
            guard !shared.drainScheduled, shared.state == .connected else { return false }
            shared.drainScheduled = true
            return true
        }
        if schedule { queue.async { [self] in drain() } }
    }

    // MARK: - Publishing (the publisher's queue)

    func drain() {
        while true {
            let streamReady = local.value.streamReady
            let next: PublishQueue.Publication? = shared.withLock { shared in
                guard streamReady, shared.state == .connected, let next = shared.publications.next() else {
                    shared.drainScheduled = false
                    return nil
                }
                return next
            }
            guard let next else { return }
            let started = Self.threadCPUNanoseconds()
            let published = publish(next)
            let spent = Self.threadCPUNanoseconds() &- started
            shared.withLock { shared in
                shared.publishingCPUNanoseconds &+= spent
                if case .tick = next {} else { shared.statePublications += 1 }
            }
            if !published {
                shared.withLock { shared in
                    shared.publications.restart()
                    shared.drainScheduled = false
                }
                return
            }
        }
    }

    /// True when NATS took it (a JetStream ack for state, a buffered write for ticks; a lost tick
    /// is replaced by the next one, so it never stops the drain).
    private func publish(_ publication: PublishQueue.Publication) -> Bool {
        let envelope: StreamEnvelope
        var seq = 0
        if case .tick = publication { seq = nextTicksSeq() }
        do {
            envelope = try StreamEnvelope.make(publication, venue: venue, epoch: epoch, key: signingKey, seq: seq)
        } catch {
            logger.error("cannot sign a message of the stream; a snapshot follows", metadata: ["error": "\(error)"])
            return false
        }
        switch link.publish(envelope) {
        case .published(let sequence, let duplicate):
            guard envelope.stored else {
                local.value.lastTicksAt = .now()
                return true
            }
            if !duplicate, let version = envelope.version { shared.withLock { $0.publishedVersion = version } }
            let verdict = local.withValue { $0.integrity.stored(sequence: sequence, duplicate: duplicate, body: envelope.body) }
            if case .fault(let reason) = verdict { repairStream(reason) }
            return true
        case .failed(let status, let jetStreamError, let noResponders):
            guard envelope.stored else { return true }
            local.value.integrity.forget()
            logger.warning("could not publish a version; a snapshot follows", metadata: [
                "stream.version": "\(envelope.version ?? -1)", "nats.status": "\(status)", "nats.js_error": "\(jetStreamError)",
            ])
            // A deleted stream answers a publication with no responders (libnats: JetStream error
            // 10076, "not enabled") or "stream not found": made again, then a snapshot.
            if noResponders || jetStreamError == Int(JSStreamNotFoundErr.rawValue)
                || jetStreamError == Int(JSNotEnabledErr.rawValue) || jetStreamError == 10_054 {
                setStreamReady(false)
            }
            return false
        }
    }

    // MARK: - Events (the publisher's queue)

    private func linkChanged(_ event: NATSLink.Event) {
        switch event {
        case .connected:
            logger.notice("connected to NATS; publishing the venue's stream")
            local.value.saidDown = false
            local.value.integrity.forget()
            local.value.results.forget()
            setStreamReady(false)
            shared.withLock { shared in
                shared.state = .connected
                shared.publications.restart()
            }
            subscribeToWatchers()
            prepareStreamAndDrain()
        case .disconnected, .closed:
            if !local.value.saidDown {
                local.value.saidDown = true
                logger.warning("lost NATS; the Wi-Fi is served as always, the stream resumes with a snapshot")
            }
            shared.withLock { $0.state = .reconnecting }
        }
    }

    private func prepareStreamAndDrain() {
        guard let handles = link.handles, shared.withLock({ $0.state }) == .connected else { return }
        if !local.value.streamReady {
            do {
                try StreamSetup.ensure(venue: venue, jetStream: handles.jetStream, logger: logger)
                setStreamReady(true)
            } catch {
                logger.warning("the venue's stream is not ready; retrying every second", metadata: ["error": "\(error)"])
                return
            }
        }
        shared.withLock { $0.drainScheduled = true }
        drain()
    }

    /// The one writer of `streamReady`, so `/healthz` never disagrees with the publisher.
    func setStreamReady(_ ready: Bool) {
        local.value.streamReady = ready
        if !ready { local.value.results.forget() }
        shared.withLock { $0.streamPresent = ready }
    }

    private func clockTicked() {
        lookForTheStream()
        if !local.value.streamReady { prepareStreamAndDrain() }
        checkLastMessage()
        publishResults()
        sayFaultsHeldBack()
        if local.value.tally.expire(now: Self.nowMs()) { reportRemoteWatchers() }
        // Every 5 s without another message on the ticks subject, even while versions are
        // published: only a numbered ticks message counts as hearing the venue (PROTOCOL §16.5).
        guard local.value.streamReady, shared.withLock({ $0.state }) == .connected,
              DispatchTime.now().uptimeNanoseconds - local.value.lastTicksAt.uptimeNanoseconds >= 5_000_000_000
        else { return }
        let version = shared.withLock { $0.publishedVersion }
        if let envelope = try? StreamEnvelope.heartbeat(version: version, venue: venue, epoch: epoch, key: signingKey,
                                                        at: Self.nowMs(), seq: nextTicksSeq()) {
            _ = link.publish(envelope)
        }
        local.value.lastTicksAt = .now()
    }

    /// 1 for this epoch's first message on the ticks subject, then +1 each.
    private func nextTicksSeq() -> Int {
        local.value.ticksSeq += 1
        return local.value.ticksSeq
    }

    /// Every `streamCheckSeconds` while it is thought present, asks NATS for the stream: one that
    /// was deleted between two versions is found, made again and given a snapshot without waiting
    /// for the next change, and `/healthz` says so meanwhile.
    private func lookForTheStream() {
        guard local.value.streamReady, let handles = link.handles, shared.withLock({ $0.state }) == .connected,
              DispatchTime.now().uptimeNanoseconds - local.value.lastStreamCheck.uptimeNanoseconds
                  >= Self.streamCheckSeconds * 1_000_000_000
        else { return }
        local.value.lastStreamCheck = .now()
        guard StreamSetup.isPresent(venue: venue, jetStream: handles.jetStream) == false else { return }
        logger.warning("the venue's stream is gone; making it again and publishing a snapshot",
                       metadata: ["stream.name": "\(venue.streamName)"])
        setStreamReady(false)
        local.value.integrity.forget()
        shared.withLock { $0.publications.restart() }
    }

    static let streamCheckSeconds: UInt64 = 2

    /// What `/metrics` shows of the stream: publications of state and the CPU they cost.
    public func cost() -> (statePublications: Int, cpuSeconds: Double) {
        shared.withLock { ($0.statePublications, Double($0.publishingCPUNanoseconds) / 1e9) }
    }

    static func threadCPUNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// `{"type":"heartbeat","version":V,"epoch":E,"epochStartedAt":T,"at":MS,"seq":N}`: a relay
    /// that missed a version, the venue's restart or a stream left at an older run learns it from
    /// this; `seq` makes a replayed one worthless.
    static func heartbeat(version: Int?, epoch: StreamEpoch, at: Int64, seq: Int) -> [UInt8] {
        JSONWriter.bytes(["type": "heartbeat", "version": version.map { .int($0) } ?? .null, "epoch": .string(epoch.id),
                          "epochStartedAt": .int(Int(epoch.startedAt)), "at": .int(Int(at)), "seq": .int(seq)])
    }

    static func nowMs() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}
