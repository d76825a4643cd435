import CLibWebSockets
import Foundation
import GatherDelivery

/// Who may connect: every TCP connection counted by its peer's address from accept to
/// destruction, the WebSockets among them under their own cap, and the connections whose request
/// headers have not all arrived. Owned by the `ServiceLoop` and touched only on its service
/// thread; pure (no lws calls), so each rule is tested without sockets. `Key` is the lws `wsi` in
/// the server and any token in tests.
struct Admission<Key: Hashable> {
    /// What a WebSocket handshake is answered, once its path and origin have passed.
    enum HandshakeVerdict: Equatable {
        case admit
        /// The server is shutting down or full: 503.
        case serverFull
        /// Too many WebSockets from this address: 429.
        case addressFull
    }

    let maximumPendingPerAddress: Int
    let maximumConnections: Int
    let maximumConnectionsPerAddress: Int

    /// Every open TCP connection's peer, from accept to destruction, and the count per address.
    private(set) var acceptedPeers: [Key: String] = [:]
    private(set) var tcpConnectionsByAddress: [String: Int] = [:]
    /// Open WebSocket connections per peer address, for the per-address cap.
    private(set) var webSocketsByAddress: [String: Int] = [:]
    private(set) var openWebSockets = 0
    /// TCP connections whose request headers have not all arrived, since when (TLS included).
    private(set) var awaitingHeaders: [Key: UInt64] = [:]
    /// Connections closed at accept so far (logged on the first and every thousandth).
    private(set) var refusedAtAccept = 0

    init(maximumPendingPerAddress: Int, maximumConnections: Int, maximumConnectionsPerAddress: Int) {
        self.maximumPendingPerAddress = maximumPendingPerAddress
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
    }

    init(_ configuration: TransportConfiguration) {
        self.init(maximumPendingPerAddress: configuration.maximumPendingPerAddress,
                  maximumConnections: configuration.maximumConnections,
                  maximumConnectionsPerAddress: configuration.maximumConnectionsPerAddress)
    }

    // MARK: TCP, from accept to destruction

    /// Whether a connection from `address` is accepted at all: one host cannot hold the header
    /// tables (taken at accept) that every page load needs. Its WebSockets do not count here.
    mutating func admitAtAccept(from address: String) -> Bool {
        let pending = tcpConnectionsByAddress[address, default: 0] - webSocketsByAddress[address, default: 0]
        guard pending < maximumPendingPerAddress else {
            refusedAtAccept += 1
            return false
        }
        return true
    }

    /// Whether the refusal just counted is one to log (the first, then every thousandth).
    var refusalWorthLogging: Bool { refusedAtAccept == 1 || refusedAtAccept.isMultiple(of: 1000) }

    mutating func accepted(_ key: Key, from address: String, at now: UInt64) {
        acceptedPeers[key] = address
        tcpConnectionsByAddress[address, default: 0] += 1
        awaitingHeaders[key] = now
    }

    /// The request's headers are all in (a request, or an upgrade to judge).
    mutating func headersArrived(_ key: Key) {
        awaitingHeaders[key] = nil
    }

    mutating func destroyed(_ key: Key) {
        awaitingHeaders[key] = nil
        guard let address = acceptedPeers.removeValue(forKey: key) else { return }
        let left = tcpConnectionsByAddress[address, default: 1] - 1
        tcpConnectionsByAddress[address] = left > 0 ? left : nil
    }

    /// Request headers (and, on the TLS port, the TLS handshake before them) must all arrive
    /// within this long of the accept: a trickle of header bytes does not hold a connection.
    static var headerNanoseconds: UInt64 { 5_000_000_000 }

    /// The connections whose headers are overdue at `now`, forgotten here: the caller closes them.
    mutating func overdueHeaders(now: UInt64) -> [Key] {
        let overdue = awaitingHeaders.filter { now > $0.value && now - $0.value >= Self.headerNanoseconds }.map(\.key)
        for key in overdue { awaitingHeaders[key] = nil }
        return overdue
    }

    // MARK: WebSockets

    func judgeHandshake(from address: String, draining: Bool) -> HandshakeVerdict {
        guard !draining, openWebSockets < maximumConnections else { return .serverFull }
        guard webSocketsByAddress[address, default: 0] < maximumConnectionsPerAddress else { return .addressFull }
        return .admit
    }

    mutating func webSocketOpened(from address: String) {
        openWebSockets += 1
        webSocketsByAddress[address, default: 0] += 1
    }

    /// Returns how many WebSockets `address` still has open.
    @discardableResult
    mutating func webSocketClosed(from address: String) -> Int {
        openWebSockets = max(0, openWebSockets - 1)
        let left = webSocketsByAddress[address, default: 1] - 1
        webSocketsByAddress[address] = left > 0 ? left : nil
        return max(0, left)
    }

    func hasWebSockets(from address: String) -> Bool { webSocketsByAddress[address] != nil }
}

// MARK: - Peer addresses

enum PeerAddress {
    /// The address as `lws_get_peer_simple` spells it later, with IPv4-mapped IPv6 unwrapped.
    static func numeric(_ storage: UnsafeMutablePointer<sockaddr_storage>, length: socklen_t) -> String {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let result = storage.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            getnameinfo($0, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST)
        }
        guard result == 0 else { return "unknown" }
        let text = String(cString: host)
        return text.hasPrefix("::ffff:") && text.contains(".") ? String(text.dropFirst(7)) : text
    }

    /// The peer's numeric address, as lws saw it at accept time.
    static func of(_ wsi: OpaquePointer) -> String {
        let remote = [CChar](unsafeUninitializedCapacity: 64) { buffer, count in
            buffer.initialize(repeating: 0)
            count = lws_get_peer_simple(wsi, buffer.baseAddress, buffer.count) == nil ? 0 : strlen(buffer.baseAddress!)
        }
        return remote.isEmpty ? "unknown" : String(decoding: remote.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
