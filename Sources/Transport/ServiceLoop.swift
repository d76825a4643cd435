import CLibWebSockets
import Dispatch
import Foundation
import GatherDelivery
import GatherLWS
import Logging

/// Everything the lws service thread owns: the context, every connection, the shared frames.
/// Made on that thread by `LiveServer.start()` and never handed to another (it is not
/// `Sendable`); other threads reach it only through its `LiveServer` handle's locked hand-off.
/// Every lws callback comes in through one of its entry points, which check the thread in debug
/// builds, as swift-nio's `NIOLoopBound` does.
final class ServiceLoop {
    /// The handle: configuration, the hand-off, the source, the published metrics.
    let server: LiveServer
    let configuration: TransportConfiguration
    let logger: Logger
    var source: any TransportSource { server.source }
    /// The thread that made this loop: the only one that may touch it.
    private let owner = pthread_self()

    var context: OpaquePointer?
    var connections: [UInt64: LiveConnection] = [:]
    /// Open WebSocket connections per peer address, for the per-address cap.
    var connectionsByAddress: [String: Int] = [:]
    /// Every open TCP connection's peer, from accept to destruction, and the count per address.
    var acceptedPeers: [OpaquePointer: String] = [:]
    var tcpConnectionsByAddress: [String: Int] = [:]
    var refusedAtAccept = 0
    var shared = SharedFrames()
    /// When the current shared state version was handed over, for the fan-out histogram.
    var statePublishedAt: UInt64 = 0
    var tickSerial = 0
    var presenceSerial = 0
    var nextConnectionNumber: UInt64 = 0
    var httpBodies: [OpaquePointer: [UInt8]] = [:]
    var fanOut = FanOutCounter()
    var draining = false
    /// The once-a-second sweep (set while the loop runs).
    var upkeepTimer: LoopTimer?
    /// When a shutdown stops waiting for phones to take their close frames.
    var drainDeadline: UInt64?
    /// Whether lws runs on the libev event library (epoll) rather than its poll() loop.
    var usesEventLibrary = false
    /// The poll loop's exit flag (the event library's loop ends by destroying the context).
    var serviceFinished = false
    /// Each address's message budget, shared by its connections.
    var addressBudgets: [String: TokenBucket] = [:]
    /// Repeated refusals are counted, not logged one by one.
    var logThrottle = LogThrottle()
    /// TCP connections whose request headers have not all arrived, since when (TLS included).
    var awaitingHeaders: [OpaquePointer: UInt64] = [:]
    /// Bytes held in partly received messages, across every connection.
    var partialMessageBytes = 0
    /// What the context's creation info points into; freed with the loop, after the context.
    let storage = LWSContextStorage()
    /// The TLS listener's bound port, where the spectator door sends organisers (0: none).
    var tlsPort = 0
    /// The plain-HTTP listener for spectators, when there is one.
    var spectatorVhost: OpaquePointer?
    /// The WebSocket protocols (gather.v2, gather.v1), to wake every connection of each.
    var liveProtocols: [UnsafePointer<lws_protocols>] = []
    /// Why OpenSSL refused the TLS listener's settings, stashed by the lws callback that applies them.
    var tlsSetupFailure: TLSPolicy.Failure?
    /// The ping's payload is not empty on purpose: lws 4.1 does not report an empty pong
    /// (`LWS_CALLBACK_RECEIVE_PONG`), and the echo is how `KeepAlive` hears the peer.
    let pingFrame = SharedFrame(Array("alive?".utf8))

    init(server: LiveServer) {
        self.server = server
        configuration = server.configuration
        logger = server.logger
    }

    /// Debug builds stop at once when another thread reaches in.
    @inline(__always)
    func assertOnServiceThread(_ function: StaticString = #function) {
        assert(pthread_equal(owner, pthread_self()) != 0,
               "ServiceLoop.\(function) called off the lws service thread that owns it")
    }

    /// Logs a refusal, unless lines of its kind from that address are being counted instead.
    func noteRefusal(_ what: String, address: String, _ message: Logger.Message, metadata: Logger.Metadata = [:]) {
        let key = LogText.escaped(address)
        guard logThrottle.admit(what, key: key, now: DispatchTime.now().uptimeNanoseconds) else { return }
        var metadata = metadata
        metadata["net.peer"] = "\(key)"
        logger.notice(message, metadata: metadata)
    }

    func setConnectionCount(_ count: Int) { server.shared.withLock { $0.openConnections = count } }

    /// Takes what other threads queued.
    func takeHandOff() -> (deliveries: [(delivery: Delivery, at: UInt64)], stopping: Bool) {
        server.shared.withLock { state in
            defer { state.handOff.removeAll(keepingCapacity: true) }
            return (state.handOff, state.stopRequested)
        }
    }

    /// Creates the context and its listeners, and makes the context reachable by the handle.
    func open() throws -> ListeningPorts {
        assertOnServiceThread()
        let created = try makeContext()
        context = created.context
        spectatorVhost = created.spectatorVhost
        tlsPort = created.tlsPort ?? 0
        usesEventLibrary = created.usesEventLibrary
        let wakeable = WakeableContext(created.context)
        server.shared.withLock { state in
            state.context = wakeable
            if !state.handOff.isEmpty || state.stopRequested { wakeable.wake() }
        }
        return ListeningPorts(tls: created.tlsPort, spectator: created.spectatorPort)
    }
}

/// Only its own thread may hold a `ServiceLoop` (as hummingbird marks its loop-bound types).
@available(*, unavailable)
extension ServiceLoop: Sendable {}

/// Keeps one connection's state on the service thread.
final class LiveConnection {
    let id: ConnectionID
    let wsi: OpaquePointer
    let wire: WireProtocol
    let door: Door
    let remoteAddress: String
    var outbox: Outbox
    var incoming: [UInt8] = []
    var closing: (code: UInt16, reason: String)?
    /// Since when `upkeep` has seen it with something to write and no writable turn since.
    var waitingSince: UInt64?
    var keepAlive: KeepAlive
    /// Its tokens and its backlog waiting for the source.
    var budget: ConnectionBudget
    /// A ping goes out on the next writable callback, before any other frame.
    var pingDue = false
    let openedAt = DispatchTime.now().uptimeNanoseconds

    init(id: ConnectionID, wsi: OpaquePointer, wire: WireProtocol, door: Door, remoteAddress: String, replyLimit: Int,
         pingIntervalSeconds: Int, limits: MessageLimits) {
        self.id = id
        self.wsi = wsi
        self.wire = wire
        self.door = door
        self.remoteAddress = remoteAddress
        outbox = Outbox(replyLimit: replyLimit, readsPatches: wire == .v2)
        keepAlive = KeepAlive(intervalSeconds: pingIntervalSeconds, now: DispatchTime.now().uptimeNanoseconds)
        budget = ConnectionBudget(limits: limits, now: Int64(DispatchTime.now().uptimeNanoseconds / 1_000_000))
    }
}

@available(*, unavailable)
extension LiveConnection: Sendable {}
