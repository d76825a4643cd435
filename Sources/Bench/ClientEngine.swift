import CLibWebSockets
import GatherLWS
import Foundation

/// Where the server is and how to trust it.
struct ServerTarget: Sendable {
    var address = "127.0.0.1"
    var port: Int
    /// The name checked against the certificate; the generated one carries 127.0.0.1 and localhost.
    var host = "127.0.0.1"
    var caPath: String
    /// wss:// (the venue's door, a relay with --tls-cert) or plain ws:// (a relay's default).
    var tls = true
}

/// Where a connection comes from: phones on a LAN each have their own address, and the server
/// caps WebSockets (100) and unfinished TCP connections (32) per address, so the bench binds each
/// socket to one of `count` loopback addresses, 127.0.B.1–250 from block `firstBlock` on, in
/// turn: consecutive connections (and so the handshakes in flight) never share one.
struct SourceAddresses {
    static let perBlock = 250
    /// At most this many connections per address.
    static let connectionsPerAddress = 50

    let firstBlock: Int
    let count: Int

    /// Enough addresses for `connections` with at most `connectionsPerAddress` each, and at least
    /// as many as handshakes in flight: a few spectators on one address would otherwise run into
    /// the server's cap on unfinished connections per address.
    init(firstBlock: Int, connections: Int, inFlight: Int = ClientEngine.defaultInFlight) {
        self.firstBlock = firstBlock
        count = max(inFlight, (connections + Self.connectionsPerAddress - 1) / Self.connectionsPerAddress)
    }

    var all: [String] {
        (0..<count).map { "127.0.\(firstBlock + $0 / Self.perBlock).\(1 + $0 % Self.perBlock)" }
    }
}

/// Many gather.v1 or gather.v2 client connections in ONE lws context served by ONE thread.
///
/// The driver thread never calls lws (only `lws_cancel_service`, the one thread-safe call):
/// it queues `EngineRequest`s and waits on `condition` for what the service thread records.
final class ClientEngine: @unchecked Sendable {
    let target: ServerTarget
    let condition = NSCondition()
    /// Guarded by `condition`.
    var shared = EngineShared()

    // MARK: Service thread only

    var connections: [Int: BenchConnection] = [:]
    var pendingOpens: [BenchConnection] = []
    var inFlight = 0
    var tickWatcher: BenchConnection?
    let maximumInFlight: Int
    private var context: OpaquePointer?
    private let finished = DispatchSemaphore(value: 0)
    /// What the context's creation info points into; freed with the engine, after the context.
    private let storage = LWSContextStorage()
    /// Whether lws runs on libev (epoll) rather than poll(); then `lws_service` only returns at the end.
    private(set) var usesEventLibrary = false
    /// The context as the service thread sees it.
    private var serviceContext: OpaquePointer?
    private var opening = false
    /// Deferred work on the loop (outside any connection's callback): more connects, or the end.
    private let refillTimer = LoopTimer()
    private let stopTimer = LoopTimer()
    /// Every connection's lws_client_connect_info but its context, user number and source address,
    /// one per target: spectator `index` connects to target `index % count` (relays share followers).
    private var connectTemplates: [lws_client_connect_info] = []
    /// `iface` of lws_client_connect_info: lws binds the socket to it before connecting.
    private let sourceAddresses: [UnsafePointer<CChar>]
    /// The subprotocol every connection of this engine offers.
    let wire: String

    /// `manySockets`: run on libev (epoll) if it is there. Only one engine per process may: libev
    /// lets one loop own the process's signal watchers, and lws attaches some to every loop.
    static let defaultInFlight = 64

    /// Follower bookkeeping (relay scenarios): per version, how many spectators hold it; when all
    /// ready ones do, `versionReached` is called on the service thread with the last arrival.
    var versionReached: ((Int, UInt64) -> Void)?

    init(target: ServerTarget, manySockets: Bool, wire: String, sources: SourceAddresses,
         maximumInFlight: Int = ClientEngine.defaultInFlight, targets: [ServerTarget]? = nil) throws {
        self.target = target
        self.wire = wire
        self.maximumInFlight = maximumInFlight
        sourceAddresses = sources.all.map(storage.cString)
        let path = storage.cString("/live")
        let subprotocol = storage.cString(wire)
        connectTemplates = (targets ?? [target]).map { target in
            var template = lws_client_connect_info()
            template.address = storage.cString(target.address)
            template.port = Int32(target.port)
            template.ssl_connection = target.tls ? Int32(LCCSCF_USE_SSL.rawValue) : 0
            template.path = path
            template.host = storage.cString(target.host)
            template.protocol = subprotocol
            template.local_protocol_name = subprotocol
            return template
        }
        try createContext(eventLibrary: manySockets)
    }

    // MARK: - Context

    private func createContext(eventLibrary: Bool) throws {
        gather_lws_set_log(gather_lws_log_err(), nil)  // lws's own notices would drown the table
        var created = eventLibrary ? makeContext(eventLibrary: true) : nil
        usesEventLibrary = created != nil
        if created == nil { created = makeContext(eventLibrary: false) }
        guard let created else {
            throw BenchError("libwebsockets could not create a client context (is \(target.caPath) a CA in PEM?)")
        }
        condition.withLock { context = created }
        let thread = Thread { [self] in serviceLoop() }
        if eventLibrary, !usesEventLibrary {
            FileHandle.standardError.write(Data("gather-bench: libev not available, using poll()\n".utf8))
        }
        thread.name = "gather-bench.lws"
        thread.stackSize = 1 << 20
        thread.start()
    }

    private func makeContext(eventLibrary: Bool) -> OpaquePointer? {
        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        info.options = gather_lws_option_do_ssl_global_init() | (eventLibrary ? gather_lws_option_libev() : 0)
        info.client_ssl_ca_filepath = storage.cString(target.caPath)
        info.protocols = storage.protocolList([
            lws_protocols(name: storage.cString(wire), callback: benchCallbackThunk,
                          per_session_data_size: 0, rx_buffer_size: 16_384, id: 0, user: nil, tx_packet_size: 0),
        ])
        // The bench itself never pings: the only traffic measured is the server's.
        info.retry_and_idle_policy = storage.retryPolicy(secondsSinceValidPing: 3000, secondsSinceValidHangup: 3600)
        // No fd_limit_per_thread: below the open-file limit lws 4.1 finds a socket's connection by a
        // linear search for every socket event.
        info.count_threads = 1
        info.timeout_secs = 30
        // A whole snapshot per read and per callback, instead of 4 KB pieces to reassemble.
        info.pt_serv_buf_size = 16_384
        LWSContextOwner.register(self, in: &info)
        return lws_create_context(&info)
    }

    // MARK: - The service thread

    /// With poll() each `lws_service` is one wake-up; with libev it runs the loop until
    /// `stopTimer` starts the context's destruction, as lws's event-library examples do.
    private func serviceLoop() {
        guard let context = condition.withLock({ self.context }) else { return }
        serviceContext = context
        refillTimer.attach(context) { [unowned self] in refill() }
        stopTimer.attach(context) { lws_context_destroy(context) }
        while true {
            applyRequests()
            openPending(context)
            if condition.withLock({ shared.stopRequested }) { break }
            if lws_service(context, 0) != 0 { break }
        }
        lws_context_destroy(context)
        refillTimer.detach()
        stopTimer.detach()
        finished.signal()
    }

    /// Called where a handshake finished: start the next ones from the loop, not from inside a
    /// connection's callback.
    func handshakeSettled() {
        guard usesEventLibrary, !pendingOpens.isEmpty else { return }
        refillTimer.schedule()
    }

    private func refill() {
        guard let serviceContext else { return }
        openPending(serviceContext)
    }

    /// Starts connections while fewer than `maximumInFlight` handshakes are under way, so the
    /// handshake rate measures the server rather than a SYN flood on its backlog.
    private func openPending(_ context: OpaquePointer) {
        guard !opening else { return }
        opening = true
        defer { opening = false }
        while inFlight < maximumInFlight, !pendingOpens.isEmpty {
            let connection = pendingOpens.removeFirst()
            inFlight += 1
            var info = connectTemplates[connection.index % connectTemplates.count]
            info.context = context
            info.opaque_user_data = UnsafeMutableRawPointer(bitPattern: connection.number)
            info.iface = sourceAddresses[connection.number % sourceAddresses.count]
            guard let wsi = lws_client_connect_via_info(&info) else {
                settleFailure(connection, reason: "lws_client_connect_via_info refused at once")
                continue
            }
            connection.wsi = wsi
        }
    }

    func applyRequests() {
        let (requests, stopping): ([EngineRequest], Bool) = condition.withLock {
            defer { shared.requests.removeAll(keepingCapacity: true) }
            return (shared.requests, shared.stopRequested)
        }
        if usesEventLibrary, stopping { stopTimer.schedule() }
        defer { if usesEventLibrary, !pendingOpens.isEmpty { refillTimer.schedule() } }
        for request in requests {
            switch request {
            case .open(let number, let role, let index):
                let connection = BenchConnection(number: number, role: role, index: index)
                connections[number] = connection
                pendingOpens.append(connection)
            case .send(let number, let bytes, let id, let timed):
                guard let connection = connections[number], let wsi = connection.wsi, connection.ready else { continue }
                connection.outgoing.append((bytes, id, timed))
                lws_callback_on_writable(wsi)
            case .stall(let number):
                guard let connection = connections[number], let wsi = connection.wsi else { continue }
                connection.stalled = true
                lws_rx_flow_control(wsi, 0)
                // A small receive buffer fills at once, so the server meets backpressure quickly.
                var size: Int32 = 4096
                setsockopt(lws_get_socket_fd(wsi), SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
        }
    }
}

// MARK: - Driver side

extension ClientEngine {
    /// Queues requests and wakes the service thread.
    func post(_ requests: [EngineRequest]) {
        condition.withLock {
            shared.requests.append(contentsOf: requests)
            if let context { lws_cancel_service(context) }
        }
    }

    /// Reserves connection numbers and asks for them to be opened.
    func open(_ role: ConnectionRole, count: Int, firstIndex: Int = 0) -> [Int] {
        let numbers: [Int] = condition.withLock {
            let first = shared.nextNumber
            shared.nextNumber += count
            if role == .spectator, shared.arrivals.count < firstIndex + count {
                shared.arrivals.append(contentsOf: repeatElement(0, count: firstIndex + count - shared.arrivals.count))
            }
            return Array(first..<(first + count))
        }
        post(numbers.enumerated().map { offset, number in
            .open(number: number, role: role, index: firstIndex + offset)
        })
        return numbers
    }

    /// Waits until `predicate` holds or `seconds` pass; re-checks at least every 100 ms.
    @discardableResult
    func wait(seconds: Double, until predicate: (EngineShared) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(shared) {
            let now = Date()
            if now >= deadline { return false }
            _ = condition.wait(until: min(deadline, now.addingTimeInterval(0.1)))
        }
        return true
    }

    func read<T>(_ body: (EngineShared) -> T) -> T { condition.withLock { body(shared) } }

    func update<T>(_ body: (inout EngineShared) -> T) -> T { condition.withLock { body(&shared) } }

    /// Closes every connection and frees the context; idempotent.
    func shutdown() {
        let running: Bool = condition.withLock {
            guard let context, !shared.stopRequested else { return false }
            shared.stopRequested = true
            lws_cancel_service(context)
            return true
        }
        guard running else { return }
        _ = finished.wait(timeout: .now() + 15)
        condition.withLock { context = nil }
    }
}

/// A failure the bench reports as a sentence.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
