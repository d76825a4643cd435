import CLibWebSockets
import COpenSSL
import Foundation
import GatherDelivery
import GatherLWS
import Logging

/// The one TLS port: static pages, a few HTTP endpoints and the `gather.v1` WebSocket at `/live`,
/// on libwebsockets with ONE service thread. Other threads only `perform` (a locked hand-off
/// followed by `lws_cancel_service`, the one lws call that is safe from another thread).
public final class LiveServer: @unchecked Sendable {
    let configuration: TransportConfiguration
    let logger: Logger
    weak var events: ConnectionEvents?

    // MARK: Shared with other threads (under `lock`)

    let lock = NSLock()
    private var handOff: [(delivery: Delivery, at: UInt64)] = []
    var context: OpaquePointer?
    private var stopRequested = false
    private var openConnections = 0
    let stopped = DispatchSemaphore(value: 0)
    private var thread: Thread?

    // MARK: Service thread only

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
    var draining = false
    /// The once-a-second sweep (service thread; set while the loop runs).
    var upkeepTimer: LoopTimer?
    /// When a shutdown stops waiting for phones to take their close frames.
    var drainDeadline: UInt64?
    /// Whether lws runs on the libev event library (epoll) rather than its poll() loop.
    var usesEventLibrary = false
    /// The poll loop's exit flag (the event library's loop ends by destroying the context).
    var serviceFinished = false
    /// Bytes held in partly received messages, across every connection.
    var partialMessageBytes = 0
    /// What the context's creation info points into; freed with the server, after the context.
    let storage = LWSContextStorage()
    /// The TLS listener's bound port, where the spectator door sends organisers.
    var tlsPort = 0
    /// The plain-HTTP listener for spectators, when there is one.
    var spectatorVhost: OpaquePointer?
    /// The WebSocket protocols (gather.v2, gather.v1), to wake every connection of each.
    var liveProtocols: [UnsafePointer<lws_protocols>] = []

    public init(configuration: TransportConfiguration, logger: Logger, events: ConnectionEvents) {
        self.configuration = configuration
        self.logger = logger
        self.events = events
    }

    /// Publish → socket latency of snapshots, for `/metrics`.
    public let fanOut = FanOutMetrics()

    public var connectionCount: Int { lock.withLock { openConnections } }

    func setConnectionCount(_ count: Int) { lock.withLock { openConnections = count } }

    // MARK: - Starting

    /// Creates the context and its listeners, and starts the service thread. Returns the bound
    /// ports (TLS, and the spectator door when there is one).
    public func start() throws -> (tls: Int, spectator: Int?) {
        try checkFiles()
        FileDescriptorLimit.fit(connections: configuration.maximumConnections)
        LWSLogBridge.install(logger: logger)
        let created = try makeContext()
        lock.withLock {
            context = created.context
            spectatorVhost = created.spectatorVhost
            tlsPort = created.tlsPort
            usesEventLibrary = created.usesEventLibrary
            if !handOff.isEmpty { lws_cancel_service(created.context) }
        }
        let thread = Thread { [self] in self.serviceLoop() }
        thread.name = "gather.transport"
        thread.stackSize = 1 << 20
        self.thread = thread
        thread.start()
        return (created.tlsPort, created.spectatorPort)
    }

    private func checkFiles() throws {
        for (what, path) in [("certificate", configuration.certificatePath), ("private key", configuration.privateKeyPath)] {
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw TransportError("cannot read the \(what) \(path)")
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
        lock.withLock {
            // Before `start()` the deliveries wait (the Coordinator publishes its first snapshot
            // then); they are applied on the service thread's first wake-up.
            guard !stopRequested else { return }
            let now = DispatchTime.now().uptimeNanoseconds
            handOff.append(contentsOf: deliveries.map { ($0, now) })
            if let context { lws_cancel_service(context) }
        }
    }

    /// Takes what other threads queued (service thread).
    func takeHandOff() -> (deliveries: [(delivery: Delivery, at: UInt64)], stopping: Bool) {
        lock.withLock {
            defer { handOff.removeAll(keepingCapacity: true) }
            return (handOff, stopRequested)
        }
    }

    /// Closes every WebSocket with 1001, stops the service thread and frees the context. Idempotent.
    public func shutdown() {
        let running: Bool = lock.withLock {
            guard let context, !stopRequested else { return false }
            stopRequested = true
            lws_cancel_service(context)
            return true
        }
        guard running else { return }
        if stopped.wait(timeout: .now() + 5) == .timedOut {
            logger.warning("transport did not stop within 5 s")
        }
    }
}

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
    /// A ping goes out on the next writable callback, before any other frame.
    var pingDue = false
    let openedAt = DispatchTime.now().uptimeNanoseconds

    init(id: ConnectionID, wsi: OpaquePointer, wire: WireProtocol, door: Door, remoteAddress: String, replyLimit: Int,
         pingIntervalSeconds: Int) {
        self.id = id
        self.wsi = wsi
        self.wire = wire
        self.door = door
        self.remoteAddress = remoteAddress
        outbox = Outbox(replyLimit: replyLimit, readsPatches: wire == .v2)
        keepAlive = KeepAlive(intervalSeconds: pingIntervalSeconds, now: DispatchTime.now().uptimeNanoseconds)
    }
}

/// OpenSSL settings: TLS 1.2 and 1.3 only, ECDHE with AEAD ciphers only.
enum TLSPolicy {
    static let tls12Ciphers = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384",
        "ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
    ].joined(separator: ":")
    static let tls13Ciphers = "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"

    /// Applied to the server's SSL_CTX when lws offers it.
    static func harden(_ context: OpaquePointer) {
        _ = gather_ssl_ctx_set_min_proto_version(context, gather_tls1_2_version())
        // Frees idle connections' TLS buffers, the largest part of a quiet spectator's memory.
        _ = gather_ssl_ctx_set_mode(context, gather_ssl_mode_release_buffers())
        // No resumption state kept or sent: a phone on the LAN redoes a full ECDHE handshake
        // (cheap on a LAN) and thousands of idle spectators cost less memory.
        _ = gather_ssl_ctx_disable_session_cache(context)
        _ = SSL_CTX_set_num_tickets(context, 0)
    }
}
