import CLibWebSockets
import Dispatch
import Foundation
import GatherDelivery
import GatherLWS
import Logging

/// Everything the lws service thread owns: the context and its listeners, and the three parts
/// every callback is handed to — `Admission` (who may connect), `HTTPResponder` (plain HTTP) and
/// `LiveConnections` (the WebSockets at `/live`), each owning its own state. Made on that thread
/// by `LiveServer.start()` and never handed to another (it is not `Sendable`); other threads
/// reach it only through its `LiveServer` handle's locked hand-off. Every entry point checks the
/// thread with a `precondition`, in release builds too, as swift-nio's `NIOLoopBound` does.
final class ServiceLoop {
    /// The handle: configuration, the hand-off, the source, the published metrics.
    let server: LiveServer
    let configuration: TransportConfiguration
    let logger: Logger
    /// The thread that made this loop: the only one that may touch it.
    private let owner = pthread_self()

    var admission: Admission<OpaquePointer>
    let http: HTTPResponder
    let live: LiveConnections
    let refusals: RefusalLog

    var context: OpaquePointer?
    /// The once-a-second sweep (set while the loop runs).
    var upkeepTimer: LoopTimer?
    /// When a shutdown stops waiting for phones to take their close frames.
    var drainDeadline: UInt64?
    /// Whether lws runs on the libev event library (epoll) rather than its poll() loop.
    var usesEventLibrary = false
    /// The poll loop's exit flag (the event library's loop ends by destroying the context).
    var serviceFinished = false
    /// What the context's creation info points into; freed with the loop, after the context.
    let storage = LWSContextStorage()
    /// The plain-HTTP listener for spectators, when there is one.
    var spectatorVhost: OpaquePointer?
    /// Why OpenSSL refused the TLS listener's settings, stashed by the lws callback that applies them.
    var tlsSetupFailure: TLSPolicy.Failure?

    init(server: LiveServer) {
        self.server = server
        configuration = server.configuration
        logger = server.logger
        refusals = RefusalLog(logger: server.logger)
        admission = Admission(server.configuration)
        http = HTTPResponder(configuration: server.configuration, replies: server, refusals: refusals)
        live = LiveConnections(configuration: server.configuration, source: server.source, refusals: refusals,
                               metrics: server.fanOut)
        http.beforeDynamicRoute = { [unowned live, unowned server] in live.fanOut.publish(to: server.fanOut) }
    }

    /// Stops the process at once when another thread reaches in (release builds too): a data
    /// race here would corrupt connection state quietly.
    @inline(__always)
    func preconditionOnServiceThread(_ function: StaticString = #function) {
        precondition(pthread_equal(owner, pthread_self()) != 0,
                     "ServiceLoop.\(function) called off the lws service thread that owns it")
    }

    /// The listener a connection came through: the plain-HTTP spectator vhost, or TLS.
    func door(of wsi: OpaquePointer) -> Door {
        guard let spectatorVhost, lws_get_vhost(wsi) == spectatorVhost else { return .tls }
        return .spectator
    }

    func publishConnectionCount() {
        let count = live.connections.count
        server.shared.withLock { $0.openConnections = count }
    }

    /// Takes what other threads queued.
    func takeHandOff() -> (deliveries: [(delivery: Delivery, at: UInt64)], stopping: Bool) {
        server.shared.withLock { state in
            defer { state.handOff.removeAll(keepingCapacity: true) }
            return (state.handOff, state.stopRequested)
        }
    }

    /// Takes the API responses other threads queued.
    func takeAPIReplies() -> [(serial: UInt64, response: HTTPResponse)] {
        server.shared.withLock { state in
            defer { state.apiReplies.removeAll(keepingCapacity: true) }
            return state.apiReplies
        }
    }

    /// Creates the context and its listeners, and makes the context reachable by the handle.
    func open() throws -> ListeningPorts {
        preconditionOnServiceThread()
        let created = try makeContext()
        context = created.context
        spectatorVhost = created.spectatorVhost
        http.tlsPort = created.tlsPort ?? 0
        usesEventLibrary = created.usesEventLibrary
        let wakeable = WakeableContext(created.context)
        server.shared.withLock { state in
            state.context = wakeable
            if !state.handOff.isEmpty || !state.apiReplies.isEmpty || state.stopRequested { wakeable.wake() }
        }
        return ListeningPorts(tls: created.tlsPort, spectator: created.spectatorPort)
    }
}

/// Only its own thread may hold a `ServiceLoop` (as hummingbird marks its loop-bound types).
@available(*, unavailable)
extension ServiceLoop: Sendable {}
