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

    private let lock = NSLock()
    private var handOff: [(delivery: Delivery, at: UInt64)] = []
    private var context: OpaquePointer?
    private var stopRequested = false
    private var openConnections = 0
    private let stopped = DispatchSemaphore(value: 0)
    private var thread: Thread?

    // MARK: Service thread only

    var connections: [UInt64: LiveConnection] = [:]
    var shared = SharedFrames()
    /// When the current shared state version was handed over, for the fan-out histogram.
    var statePublishedAt: UInt64 = 0
    var tickSerial = 0
    var presenceSerial = 0
    var nextConnectionNumber: UInt64 = 0
    var httpBodies: [OpaquePointer: [UInt8]] = [:]
    var draining = false
    /// What the context's creation info points into; freed with the server, after the context.
    private let storage = LWSContextStorage()
    /// The plain-HTTP listener for spectators, when there is one.
    private(set) var spectatorVhost: OpaquePointer?
    /// The WebSocket protocols (gather.v2, gather.v1), to wake every connection of each.
    private(set) var liveProtocols: [UnsafePointer<lws_protocols>] = []

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

    /// Creates the context, binds, and starts the service thread. Returns the bound port.
    public func start() throws -> Int {
        try checkFiles()
        FileDescriptorLimit.fit(connections: configuration.maximumConnections)
        LWSLogBridge.install(logger: logger)

        var info = lws_context_creation_info()
        info.port = Int32(configuration.port)
        if configuration.host != "0.0.0.0", configuration.host != "::" { info.iface = storage.cString(configuration.host) }
        info.options = Self.contextOptions(host: configuration.host)
        info.ssl_cert_filepath = storage.cString(configuration.certificatePath)
        info.ssl_private_key_filepath = storage.cString(configuration.privateKeyPath)
        info.alpn = storage.cString("http/1.1")  // never h2 (CVE in 4.1.6's HTTP/2 header parser)
        info.ssl_cipher_list = storage.cString(TLSPolicy.tls12Ciphers)
        info.tls1_3_plus_cipher_list = storage.cString(TLSPolicy.tls13Ciphers)
        info.server_string = storage.cString("gather")
        info.protocols = makeProtocols()
        // lws's own validity pings are off: `upkeep(now:)` pings with a `KeepAlive` per connection
        // instead, because lws 4.1 files each validity timer in one sorted list.
        info.retry_and_idle_policy = storage.retryPolicy(secondsSinceValidPing: 0, secondsSinceValidHangup: 0)
        // No fd_limit_per_thread: below the process limit it switches lws 4.1 to a linear search of
        // every connection for each socket event. lws sizes its direct-indexed tables from the
        // open-file limit that `FileDescriptorLimit.fit` just set.
        info.count_threads = 1
        info.timeout_secs = 20
        info.max_http_header_pool = 256
        LWSContextOwner.register(self, in: &info)

        guard let created = lws_create_context(&info) else {
            throw TransportError("cannot listen on \(configuration.host):\(configuration.port) with the given certificate "
                + "(is the port already in use, or the certificate and key not a pair?)")
        }
        let vhost = lws_get_vhost_by_name(created, "default")
        let port = vhost.map { Int(lws_get_vhost_listen_port($0)) } ?? configuration.port
        guard port > 0 else {
            lws_context_destroy(created)
            throw TransportError("cannot listen on \(configuration.host):\(configuration.port): the port is in use")
        }
        lock.withLock {
            context = created
            if !handOff.isEmpty { lws_cancel_service(created) }
        }
        let thread = Thread { [self] in self.serviceLoop() }
        thread.name = "gather.transport"
        thread.stackSize = 1 << 20
        self.thread = thread
        thread.start()
        return port
    }

    /// TLS only (never plain HTTP on the port), lws checks UTF-8 too, IPv6 only when asked for.
    static func contextOptions(host: String) -> UInt64 {
        var options = gather_lws_option_do_ssl_global_init() | gather_lws_option_validate_utf8()
        if host == "0.0.0.0" || (!host.contains(":") && host != "localhost") {
            options |= gather_lws_option_disable_ipv6()
        }
        return options
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

    /// Allocated for every connection, though spectators never send: lws's 4 KB default would be
    /// most of an idle spectator's memory.
    static let receiveBufferBytes = 256
    /// A whole snapshot (or message) goes to OpenSSL in one call.
    static let largestSendBytes = 1 << 20

    private func makeProtocols() -> UnsafePointer<lws_protocols> {
        // rx_buffer_size is a buffer per connection (commands are small; longer messages come in
        // pieces that `received` reassembles). tx_packet_size must be set apart from it: at 0, lws
        // caps each send at rx_buffer_size, splitting every snapshot and buffering the rest.
        let live = WireProtocol.allCases.reversed().map { wire in
            lws_protocols(name: storage.cString(wire.rawValue), callback: liveCallbackThunk,
                          per_session_data_size: MemoryLayout<UInt64>.size,
                          rx_buffer_size: LiveServer.receiveBufferBytes, id: 0, user: nil,
                          tx_packet_size: LiveServer.largestSendBytes)
        }
        let list = storage.protocolList([
            lws_protocols(name: storage.cString("http"), callback: httpCallbackThunk,
                          per_session_data_size: 0, rx_buffer_size: 0, id: 0, user: nil, tx_packet_size: 0),
        ] + live)
        liveProtocols = (1...live.count).map { list + $0 }
        return list
    }

    // MARK: - The service thread

    private func serviceLoop() {
        guard let context = lock.withLock({ self.context }) else { return }
        var drainDeadline: Date?
        // lws 4.1 ignores lws_service's timeout and sleeps until its next timer: this one wakes
        // the loop every second for pings, stalled readers, metrics and the shutdown deadline.
        let upkeepTimer = LoopTimer()
        upkeepTimer.attach(context) { [unowned self, unowned upkeepTimer] in
            upkeep(now: DispatchTime.now().uptimeNanoseconds)
            upkeepTimer.schedule(afterMicroseconds: 1_000_000)
        }
        upkeepTimer.schedule(afterMicroseconds: 1_000_000)
        defer { upkeepTimer.detach() }
        while true {
            if lws_service(context, 0) < 0 { break }
            fanOut.publish()
            if draining {
                if drainDeadline == nil { drainDeadline = Date().addingTimeInterval(2) }
                if connections.isEmpty || Date() > drainDeadline! { break }
            }
        }
        lock.withLock { self.context = nil }
        lws_context_destroy(context)
        stopped.signal()
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
    var outbox: Outbox
    var incoming: [UInt8] = []
    var closing: (code: UInt16, reason: String)?
    /// Since when `upkeep` has seen it with something to write and no writable turn since.
    var waitingSince: UInt64?
    var keepAlive: KeepAlive
    /// A ping goes out on the next writable callback, before any other frame.
    var pingDue = false
    let openedAt = DispatchTime.now().uptimeNanoseconds

    init(id: ConnectionID, wsi: OpaquePointer, wire: WireProtocol, door: Door, replyLimit: Int,
         pingIntervalSeconds: Int) {
        self.id = id
        self.wsi = wsi
        self.wire = wire
        self.door = door
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
