import CLibWebSockets
import Dispatch
import Foundation
import GatherDelivery
import GatherLWS
import Logging
import Synchronization

/// The handle of a Transport: static pages, a few HTTP endpoints and the WebSocket at `/live`, on
/// libwebsockets with ONE service thread. This object is what other threads hold: it hands
/// deliveries over, stops the server and counts connections, all under one lock. Everything
/// else — connections, frames, lws — belongs to the `ServiceLoop` that the service thread makes
/// and owns. The one lws call made from another thread is `lws_cancel_service`, the one lws
/// documents as safe from any thread.
public final class LiveServer: DeliveryTarget {
    let configuration: TransportConfiguration
    let logger: Logger
    /// Whatever decides what connections are sent (the Coordinator, or a relay).
    let source: any TransportSource
    /// Publish → socket latency of snapshots and bytes written, for `/metrics`.
    public let fanOut = FanOutMetrics()
    /// Signalled by the service thread when its loop has ended and the context is gone.
    let stopped = DispatchSemaphore(value: 0)

    /// What other threads and the service thread share.
    struct Shared {
        var handOff: [(delivery: Delivery, at: UInt64)] = []
        /// API responses by request serial, for the service thread to write.
        var apiReplies: [(serial: UInt64, response: HTTPResponse)] = []
        /// Set while the context exists; nil before `start()` and once it is being destroyed.
        var context: WakeableContext?
        var stopRequested = false
        var started = false
        var openConnections = 0
    }

    let shared = Mutex(Shared())

    public init(configuration: TransportConfiguration, logger: Logger, source: any TransportSource) {
        self.configuration = configuration
        self.logger = logger
        self.source = source
    }

    public var connectionCount: Int { shared.withLock { $0.openConnections } }

    // MARK: - Starting

    /// Makes the service thread, which creates the context and its listeners, and returns the
    /// bound ports once they listen (or the reason they do not).
    public func start() throws -> ListeningPorts {
        if let problem = configuration.problem { throw TransportError(problem) }
        try checkFiles()
        guard shared.withLock({ state in defer { state.started = true }; return !state.started }) else {
            throw TransportError("the server was started already")
        }
        FileDescriptorLimit.fit(connections: configuration.maximumConnections)
        LWSLogBridge.install(logger: logger)
        let report = StartReport()
        let thread = Thread { [self] in
            // The loop is made here and never leaves this thread.
            let loop = ServiceLoop(server: self)
            let ports: ListeningPorts
            do {
                ports = try loop.open()
            } catch {
                report.finish(.failure(error))
                return
            }
            report.finish(.success(ports))
            loop.run()
        }
        thread.name = "gather.transport"
        thread.stackSize = 1 << 20
        thread.start()
        return try report.wait().get()
    }

    private func checkFiles() throws {
        if let tls = configuration.tls {
            for (what, path) in [("certificate", tls.certificatePath), ("private key", tls.privateKeyPath)] {
                guard FileManager.default.isReadableFile(atPath: path) else {
                    throw TransportError("cannot read the \(what) \(path)")
                }
            }
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: configuration.publicDirectory, isDirectory: &isDirectory),
              isDirectory.boolValue
        else { throw TransportError("the pages folder \(configuration.publicDirectory) does not exist") }
    }

    // MARK: - Hand-off (any thread)

    /// Queues deliveries for the service thread, in order.
    public func deliver(_ deliveries: [Delivery]) {
        guard !deliveries.isEmpty else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        shared.withLock { state in
            // Before `start()` the deliveries wait (the Coordinator publishes its first snapshot
            // then); they are applied on the service thread's first wake-up.
            guard !state.stopRequested else { return }
            state.handOff.append(contentsOf: deliveries.map { ($0, now) })
            state.context?.wake()
        }
    }

    /// Queues an API response (from `APIReply`, any thread) and wakes the service thread. After
    /// a shutdown began it is dropped: the connection is going anyway.
    func queueAPIReply(serial: UInt64, response: HTTPResponse) {
        shared.withLock { state in
            guard !state.stopRequested else { return }
            state.apiReplies.append((serial, response))
            state.context?.wake()
        }
    }

    /// Closes every WebSocket with 1001, stops the service thread and frees the context. Idempotent.
    public func shutdown() {
        let running: Bool = shared.withLock { state in
            guard let context = state.context, !state.stopRequested else { return false }
            state.stopRequested = true
            context.wake()
            return true
        }
        guard running else { return }
        if stopped.wait(timeout: .now() + 5) == .timedOut {
            logger.warning("transport did not stop within 5 s")
        }
    }
}

/// How the service thread tells `start()` whether its listeners are up.
private final class StartReport: Sendable {
    private let result = Mutex<Result<ListeningPorts, any Error>?>(nil)
    private let ready = DispatchSemaphore(value: 0)

    func finish(_ outcome: Result<ListeningPorts, any Error>) {
        result.withLock { $0 = outcome }
        ready.signal()
    }

    func wait() -> Result<ListeningPorts, any Error> {
        ready.wait()
        return result.withLock { $0! }
    }
}

/// The lws context as other threads may hold it: all they can do is wake its loop, with
/// `lws_cancel_service`, the one lws call documented as safe from any thread.
struct WakeableContext: @unchecked Sendable {
    private let context: OpaquePointer

    init(_ context: OpaquePointer) { self.context = context }

    func wake() { lws_cancel_service(context) }
}
