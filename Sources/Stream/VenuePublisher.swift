import CNats
import Dispatch
import Foundation
import GatherDelivery
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
        /// The venue's stream was found or made, and no publication or check has missed it since.
        var streamPresent = false
        /// State versions published, and the publisher thread's CPU time spent publishing them.
        var statePublications = 0
        var publishingCPUNanoseconds: UInt64 = 0
    }

    private let shared = Mutex(Shared())

    // MARK: The publisher's queue only

    private var streamReady = false {
        didSet { shared.withLock { [streamReady] in $0.streamPresent = streamReady } }
    }
    /// When the stream was last looked for while it was thought present (`clockTicked`).
    private var lastStreamCheck = DispatchTime.now()
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
            // A deleted stream answers a publication with no responders (libnats: JetStream error
            // 10076, "not enabled") or "stream not found": made again, then a snapshot.
            if errorCode == JSStreamNotFoundErr || errorCode == JSNotEnabledErr || status == NATS_NO_RESPONDERS
                || errorCode.rawValue == 10_054 { streamReady = false }
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
        lookForTheStream()
        if !streamReady { prepareStreamAndDrain() }
        if tally.expire(now: Self.nowMs()) { reportRemoteWatchers() }
        guard streamReady, shared.withLock({ $0.state }) == .connected,
              DispatchTime.now().uptimeNanoseconds - lastPublishedAt.uptimeNanoseconds >= 5_000_000_000,
              let handles = link.handles
        else { return }
        let version = shared.withLock { $0.publishedVersion }
        let bytes = Array("{\"type\":\"heartbeat\",\"version\":\(version.map(String.init) ?? "null")}".utf8)
        _ = bytes.withUnsafeBufferPointer {
            natsConnection_Publish(handles.connection, venue.ticksSubject, $0.baseAddress, Int32($0.count))
        }
        lastPublishedAt = .now()
    }

    /// Every `streamCheckSeconds` while it is thought present, asks NATS for the stream: one that
    /// was deleted between two versions is found, made again and given a snapshot without waiting
    /// for the next change, and `/healthz` says so meanwhile.
    private func lookForTheStream() {
        guard streamReady, let handles = link.handles, shared.withLock({ $0.state }) == .connected,
              DispatchTime.now().uptimeNanoseconds - lastStreamCheck.uptimeNanoseconds >= Self.streamCheckSeconds * 1_000_000_000
        else { return }
        lastStreamCheck = .now()
        guard StreamSetup.isPresent(venue: venue, jetStream: handles.jetStream) == false else { return }
        logger.warning("the venue's stream is gone; making it again and publishing a snapshot",
                       metadata: ["stream.name": "\(venue.streamName)"])
        streamReady = false
        shared.withLock { $0.publications.restart() }
    }

    static let streamCheckSeconds: UInt64 = 2

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

    static func nowMs() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}
