import CNats
import Dispatch
import Foundation
import GatherDelivery
import Logging

/// The venue server's side of the stream: publishes each version's gather.v2 bytes, the ticks and
/// a heartbeat to NATS, on its own queue. The Coordinator's deliver closure only hands it the
/// deliveries (`enqueue`, a lock and a bounded queue), so NATS down, slow or gone never delays an
/// ack or a phone on the Wi-Fi.
public final class VenuePublisher: @unchecked Sendable {
    public enum LinkState: String, Sendable {
        case connected
        case reconnecting
    }

    public let venue: VenueName
    private let queue = DispatchQueue(label: "gather.stream.publish", qos: .utility)
    private let logger: Logger
    private var link: NATSLink!
    private var watcherSubscriber: NATSSubscriber!

    // MARK: Shared (under `lock`)

    private let lock = NSLock()
    private var publications = PublishQueue()
    private var drainScheduled = false
    private var state = LinkState.reconnecting
    private var publishedVersion: Int?
    private var remoteWatchers = 0
    /// State versions published, and the publisher thread's CPU time spent publishing them.
    private var statePublications = 0
    private var publishingCPUNanoseconds: UInt64 = 0

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
    public init(endpoint: NATSEndpoint, venue: VenueName, logger: Logger,
                onRemoteWatchers: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.venue = venue
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
        lock.withLock { (state, publishedVersion, remoteWatchers) }
    }

    // MARK: - In (any thread: the Coordinator's queue)

    /// Keeps what the stream needs from one event's deliveries; returns at once.
    public func enqueue(_ deliveries: [Delivery]) {
        let schedule: Bool = lock.withLock {
            for delivery in deliveries { publications.add(delivery) }
            guard !drainScheduled, state == .connected else { return false }
            drainScheduled = true
            return true
        }
        if schedule { queue.async { [self] in drain() } }
    }

    // MARK: - Publishing (the publisher's queue)

    private func drain() {
        dispatchPrecondition(condition: .onQueue(queue))
        while true {
            let next: PublishQueue.Publication? = lock.withLock {
                guard streamReady, state == .connected, let next = publications.next() else {
                    drainScheduled = false
                    return nil
                }
                return next
            }
            guard let next else { return }
            let started = Self.threadCPUNanoseconds()
            let published = publish(next)
            let spent = Self.threadCPUNanoseconds() &- started
            lock.withLock {
                publishingCPUNanoseconds &+= spent
                if case .tick = next {} else { statePublications += 1 }
            }
            if !published {
                lock.withLock {
                    publications.restart()
                    drainScheduled = false
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
            let status = bytes.withUnsafeBufferPointer {
                natsConnection_Publish(handles.connection, venue.ticksSubject, $0.baseAddress, Int32($0.count))
            }
            if status == NATS_OK { lastPublishedAt = .now() }
            return true  // a lost tick is replaced by the next one
        case .snapshot(let version, let bytes):
            return publishState(bytes, version: version, rollup: true, jetStream: handles.jetStream)
        case .patch(let version, let bytes):
            return publishState(bytes, version: version, rollup: false, jetStream: handles.jetStream)
        }
    }

    private func publishState(_ bytes: [UInt8], version: Int, rollup: Bool, jetStream: OpaquePointer) -> Bool {
        var message: OpaquePointer?
        let made = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                natsMsg_Create(&message, venue.stateSubject, nil, $0, Int32(buffer.count))
            }
        }
        guard made == NATS_OK, let message else { return false }
        defer { natsMsg_Destroy(message) }
        if rollup { _ = natsMsgHeader_Set(message, "Nats-Rollup", "sub") }
        var options = jsPubOptions()
        jsPubOptions_Init(&options)
        options.MaxWait = 2_000
        var errorCode = jsErrCode(0)
        var ack: UnsafeMutablePointer<jsPubAck>?
        let status: natsStatus = rollup
            ? js_PublishMsg(&ack, jetStream, message, &options, &errorCode)
            : "\(venue).\(version)".withCString { id in
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
        lock.withLock { publishedVersion = version }
        return true
    }

    // MARK: - Events (the publisher's queue)

    private func linkChanged(_ event: NATSLink.Event) {
        switch event {
        case .connected:
            logger.notice("connected to NATS; publishing the venue's stream")
            saidDown = false
            streamReady = false
            lock.withLock {
                state = .connected
                publications.restart()
            }
            subscribeToWatchers()
            prepareStreamAndDrain()
        case .disconnected, .closed:
            if !saidDown {
                saidDown = true
                logger.warning("lost NATS; the Wi-Fi is served as always, the stream resumes with a snapshot")
            }
            lock.withLock { state = .reconnecting }
        }
    }

    private func prepareStreamAndDrain() {
        guard let handles = link.handles, lock.withLock({ state }) == .connected else { return }
        if !streamReady {
            do {
                try StreamSetup.ensure(venue: venue, jetStream: handles.jetStream, logger: logger)
                streamReady = true
            } catch {
                logger.warning("the venue's stream is not ready; retrying every second", metadata: ["error": "\(error)"])
                return
            }
        }
        lock.withLock { drainScheduled = true }
        drain()
    }

    private func clockTicked() {
        if !streamReady { prepareStreamAndDrain() }
        if tally.expire(now: Self.nowMs()) { reportRemoteWatchers() }
        guard streamReady, lock.withLock({ state }) == .connected,
              DispatchTime.now().uptimeNanoseconds - lastPublishedAt.uptimeNanoseconds >= 5_000_000_000,
              let handles = link.handles
        else { return }
        let version = lock.withLock { publishedVersion }
        let bytes = Array("{\"type\":\"heartbeat\",\"version\":\(version.map(String.init) ?? "null")}".utf8)
        _ = bytes.withUnsafeBufferPointer {
            natsConnection_Publish(handles.connection, venue.ticksSubject, $0.baseAddress, Int32($0.count))
        }
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
        lock.withLock { remoteWatchers = total }
        onRemoteWatchers(total)
    }

    /// What `/metrics` shows of the stream: publications of state and the CPU they cost.
    public func cost() -> (statePublications: Int, cpuSeconds: Double) {
        lock.withLock { (statePublications, Double(publishingCPUNanoseconds) / 1e9) }
    }

    static func threadCPUNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    static func nowMs() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}
