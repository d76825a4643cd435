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
/// a heartbeat to NATS, on its own queue. The Coordinator's deliver closure only hands it the
/// deliveries (`enqueue`, a Mutex and a bounded queue), so NATS down, slow or gone never delays an
/// ack or a phone on the Wi-Fi.
public final class VenuePublisher: @unchecked Sendable {
    public enum LinkState: String, Sendable {
        case connected
        case reconnecting
    }

    public let venue: VenueName
    /// This run of the venue: in every message id, every heartbeat, every signature.
    public let epoch: StreamEpoch
    private let signingKey: Ed25519PrivateKey
    private let queue = DispatchQueue(label: "gather.stream.publish", qos: .utility)
    private let logger: Logger
    private var link: NATSLink!
    private var watcherSubscriber: NATSSubscriber!

    // MARK: Shared (behind a Mutex: the Coordinator's queue, /healthz and the publisher's queue)

    private struct Shared {
        var publications = PublishQueue()
        var drainScheduled = false
        var state = LinkState.reconnecting
        var publishedVersion: Int?
        var remoteWatchers = 0
        /// State versions published, and the publisher thread's CPU time spent publishing them.
        var statePublications = 0
        var publishingCPUNanoseconds: UInt64 = 0
    }

    private let shared = Mutex(Shared())

    // MARK: The publisher's queue only

    private var streamReady = false
    private var lastPublishedAt = DispatchTime.now()
    private var heartbeat: DispatchSourceTimer?
    private var tally = WatcherTally()
    private var saidDown = false
    private var watcherSubscription: OpaquePointer?
    private let onRemoteWatchers: @Sendable (Int) -> Void

    /// `onRemoteWatchers` is called (on the publisher's queue) when the sum of the relays'
    /// spectators changes.
    public init(endpoint: NATSEndpoint, venue: VenueName, epoch: StreamEpoch, signingKey: Ed25519PrivateKey,
                logger: Logger, onRemoteWatchers: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.venue = venue
        self.epoch = epoch
        self.signingKey = signingKey
        var logger = logger
        logger[metadataKey: "stream.venue"] = "\(venue)"
        self.logger = logger
        self.onRemoteWatchers = onRemoteWatchers
        self.link = NATSLink(endpoint: endpoint, queue: queue) { [weak self] event in self?.linkChanged(event) }
        self.watcherSubscriber = NATSSubscriber(queue: queue) { [weak self] message in self?.heardWatchers(message) }
    }

    /// Starts connecting (in the background when NATS is down) and the heartbeat clock.
    public func start() throws {
        try link.start()
        queue.async { [self] in
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + 1, repeating: 1, leeway: .milliseconds(100))
            timer.setEventHandler { [weak self] in self?.clockTicked() }
            timer.resume()
            heartbeat = timer
            if !link.isConnected, !saidDown {
                saidDown = true
                logger.warning("NATS is not reachable yet: the Wi-Fi is served as always, the stream starts when it is")
            }
        }
    }

    /// Flushes briefly and closes; called once at shutdown.
    public func stop() {
        queue.sync {
            heartbeat?.cancel()
            heartbeat = nil
        }
        link.close()
    }

    /// Whether the NATS connection is up now (the banner's word on the stream).
    public var isConnected: Bool { link.isConnected }

    /// For `/healthz`.
    public func reading() -> (state: LinkState, publishedVersion: Int?, remoteWatchers: Int) {
        shared.withLock { ($0.state, $0.publishedVersion, $0.remoteWatchers) }
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

    private func drain() {
        dispatchPrecondition(condition: .onQueue(queue))
        while true {
            let next: PublishQueue.Publication? = shared.withLock { [streamReady] shared in
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

    /// True when NATS took it (a JetStream ack for state, a buffered write for ticks).
    private func publish(_ publication: PublishQueue.Publication) -> Bool {
        guard let handles = link.handles else { return false }
        switch publication {
        case .tick(let bytes):
            if publishTick(bytes, connection: handles.connection) { lastPublishedAt = .now() }
            return true  // a lost tick is replaced by the next one
        case .snapshot(let version, let bytes):
            return publishState(bytes, version: version, rollup: true, jetStream: handles.jetStream)
        case .patch(let version, let bytes):
            return publishState(bytes, version: version, rollup: false, jetStream: handles.jetStream)
        }
    }

    /// A signed message on `subject`, or nil when libnats or OpenSSL could not make one (never
    /// published unsigned: a relay would drop it anyway).
    private func signedMessage(_ bytes: [UInt8], subject: String) -> OpaquePointer? {
        let signature: String
        do {
            signature = try StreamSignature.sign(bytes, epoch: epoch.id, key: signingKey)
        } catch {
            logger.error("cannot sign a message of the stream", metadata: ["error": "\(error)"])
            return nil
        }
        var message: OpaquePointer?
        let made = bytes.withUnsafeBufferPointer { buffer in
            natsMsg_Create(&message, subject, nil, buffer.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                           Int32(buffer.count))
        }
        guard made == NATS_OK, let message else { return nil }
        guard natsMsgHeader_Set(message, StreamSignature.header, signature) == NATS_OK else {
            natsMsg_Destroy(message)
            return nil
        }
        return message
    }

    /// Core NATS on the ticks subject, signed; true when libnats took it.
    private func publishTick(_ bytes: [UInt8], connection: OpaquePointer) -> Bool {
        guard let message = signedMessage(bytes, subject: venue.ticksSubject) else { return false }
        defer { natsMsg_Destroy(message) }
        return natsConnection_PublishMsg(connection, message) == NATS_OK
    }

    private func publishState(_ bytes: [UInt8], version: Int, rollup: Bool, jetStream: OpaquePointer) -> Bool {
        guard let message = signedMessage(bytes, subject: venue.stateSubject) else { return false }
        defer { natsMsg_Destroy(message) }
        if rollup, natsMsgHeader_Set(message, "Nats-Rollup", "sub") != NATS_OK { return false }
        var options = jsPubOptions()
        jsPubOptions_Init(&options)
        options.MaxWait = 2_000
        var errorCode = jsErrCode(0)
        var ack: UnsafeMutablePointer<jsPubAck>?
        let status: natsStatus = rollup
            ? js_PublishMsg(&ack, jetStream, message, &options, &errorCode)
            : "\(venue).\(epoch.id).\(version)".withCString { id in
                options.MsgId = id
                return js_PublishMsg(&ack, jetStream, message, &options, &errorCode)
            }
        jsPubAck_Destroy(ack)
        guard status == NATS_OK else {
            logger.warning("could not publish a version; a snapshot follows", metadata: [
                "stream.version": "\(version)", "nats.status": "\(String(cString: natsStatus_GetText(status)))",
                "nats.js_error": "\(errorCode.rawValue)",
            ])
            if errorCode == JSStreamNotFoundErr || errorCode.rawValue == 10_054 { streamReady = false }
            return false
        }
        lastPublishedAt = .now()
        shared.withLock { $0.publishedVersion = version }
        return true
    }

    // MARK: - Events (the publisher's queue)

    private func linkChanged(_ event: NATSLink.Event) {
        switch event {
        case .connected:
            logger.notice("connected to NATS; publishing the venue's stream")
            saidDown = false
            streamReady = false
            shared.withLock { shared in
                shared.state = .connected
                shared.publications.restart()
            }
            subscribeToWatchers()
            prepareStreamAndDrain()
        case .disconnected, .closed:
            if !saidDown {
                saidDown = true
                logger.warning("lost NATS; the Wi-Fi is served as always, the stream resumes with a snapshot")
            }
            shared.withLock { $0.state = .reconnecting }
        }
    }

    private func prepareStreamAndDrain() {
        guard let handles = link.handles, shared.withLock({ $0.state }) == .connected else { return }
        if !streamReady {
            do {
                try StreamSetup.ensure(venue: venue, jetStream: handles.jetStream, logger: logger)
                streamReady = true
            } catch {
                logger.warning("the venue's stream is not ready; retrying every second", metadata: ["error": "\(error)"])
                return
            }
        }
        shared.withLock { $0.drainScheduled = true }
        drain()
    }

    private func clockTicked() {
        if !streamReady { prepareStreamAndDrain() }
        if tally.expire(now: Self.nowMs()) { reportRemoteWatchers() }
        guard streamReady, shared.withLock({ $0.state }) == .connected,
              DispatchTime.now().uptimeNanoseconds - lastPublishedAt.uptimeNanoseconds >= 5_000_000_000,
              let handles = link.handles
        else { return }
        let version = shared.withLock { $0.publishedVersion }
        _ = publishTick(Self.heartbeat(version: version, epoch: epoch), connection: handles.connection)
        lastPublishedAt = .now()
    }

    // MARK: - Watchers (relays' reports)

    private func subscribeToWatchers() {
        guard watcherSubscription == nil, let handles = link.handles else { return }
        var subscription: OpaquePointer?
        let status = natsConnection_Subscribe(&subscription, handles.connection, venue.watchersSubject,
                                              natsMessageThunk, watcherSubscriber.context)
        guard status == NATS_OK else {
            logger.warning("cannot hear the relays' watcher counts", metadata: ["nats.status": "\(String(cString: natsStatus_GetText(status)))"])
            return
        }
        // Bounded: relays report every 5 s; a flood beyond this is dropped by libnats, not queued.
        _ = natsSubscription_SetPendingLimits(subscription, 1_000, 1 << 20)
        watcherSubscription = subscription
    }

    private func heardWatchers(_ message: NATSMessage) {
        if tally.record(message.data, now: Self.nowMs()) { reportRemoteWatchers() }
    }

    private func reportRemoteWatchers() {
        let total = tally.total
        shared.withLock { $0.remoteWatchers = total }
        onRemoteWatchers(total)
    }

    /// What `/metrics` shows of the stream: publications of state and the CPU they cost.
    public func cost() -> (statePublications: Int, cpuSeconds: Double) {
        shared.withLock { ($0.statePublications, Double($0.publishingCPUNanoseconds) / 1e9) }
    }

    static func threadCPUNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// `{"type":"heartbeat","version":V,"epoch":E,"epochStartedAt":T}`: a relay that missed a
    /// version, or the venue's restart, learns it from this.
    static func heartbeat(version: Int?, epoch: StreamEpoch) -> [UInt8] {
        JSONWriter.bytes(["type": "heartbeat", "version": version.map { .int($0) } ?? .null, "epoch": .string(epoch.id),
                          "epochStartedAt": .int(Int(epoch.startedAt))])
    }

    static func nowMs() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}
