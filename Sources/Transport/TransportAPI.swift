import GatherDelivery

public struct HTTPRequest: Sendable {
    public let method: String
    /// Without the query.
    public let path: String
    public let query: String?
    /// The peer's numeric address.
    public let remoteAddress: String
    /// The listener it came through.
    public let door: Door

    public init(method: String, path: String, query: String?, remoteAddress: String = "", door: Door = .tls) {
        self.method = method
        self.path = path
        self.query = query
        self.remoteAddress = remoteAddress
        self.door = door
    }
}

public struct HTTPResponse: Sendable {
    public var status: Int
    public var contentType: String
    public var body: [UInt8]
    public var extraHeaders: [(String, String)]

    public init(status: Int, contentType: String, body: [UInt8], extraHeaders: [(String, String)] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.extraHeaders = extraHeaders
    }
}

/// The TLS listener: pages, endpoints and `wss://HOST:PORT/live`.
public struct TLSListener: Sendable, Equatable {
    /// 0 picks a free port; `LiveServer.start()` returns the bound one.
    public var port: Int
    public var certificatePath: String
    public var privateKeyPath: String

    public init(port: Int, certificatePath: String, privateKeyPath: String) {
        self.port = port
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
    }
}

/// What a Transport serves. The venue server: a TLS listener and the plain spectator door, both
/// WebSocket protocols. A relay: the plain listener (its door) with or without TLS, gather.v2
/// only (`TransportConfiguration(host:tls:spectatorPort:protocols:…)`).
public struct TransportConfiguration: Sendable {
    public var host: String
    /// nil: no TLS listener (a relay without a certificate).
    public var tls: TLSListener?
    /// The plain-HTTP spectator door; nil for none, 0 for a free port.
    public var spectatorPort: Int?
    /// The WebSocket subprotocols a handshake may choose; a handshake that offers none of them
    /// is refused with 400. The first is preferred (lws binds the client's first known offer).
    public var protocols: [WireProtocol] = [.v2, .v1]
    /// Connections one address may hold at once (WebSocket handshakes beyond it: 429).
    public var maximumConnectionsPerAddress = 100
    public var publicDirectory: String
    public var maximumMessageBytes = 65_536
    public var messageLimits = MessageLimits()
    /// Bytes of partly received messages held across every connection at once.
    public var partialMessageBudget = 32 << 20
    /// TCP connections one address may have open that are not (yet) WebSockets: page loads and
    /// handshakes in progress. Idle connections beyond it are closed at accept.
    public var maximumPendingPerAddress = 32
    public var maximumConnections = 20_000
    /// Direct replies waiting per connection; a client that lets more pile up is closed (1008).
    public var replyQueueLimit = 256
    /// A connection with output waiting that makes no progress this long is closed.
    public var stalledTimeoutSeconds = 30
    /// Idle connections are pinged after this long, and closed if nothing answers as long again.
    public var pingIntervalSeconds = 30
    /// GET requests that are not static files: /healthz, /metrics, /api/…, /qr.svg, /ca.pem.
    /// Runs on the service thread: it must be quick and thread-safe. nil answers 404.
    public var dynamicRoutes: @Sendable (HTTPRequest) -> HTTPResponse?

    /// The venue server's shape: a TLS listener on `port` (set `spectatorPort` for the door).
    public init(host: String, port: Int, certificatePath: String, privateKeyPath: String, publicDirectory: String,
                dynamicRoutes: @escaping @Sendable (HTTPRequest) -> HTTPResponse?) {
        self.init(host: host, tls: TLSListener(port: port, certificatePath: certificatePath, privateKeyPath: privateKeyPath),
                  spectatorPort: nil, publicDirectory: publicDirectory, dynamicRoutes: dynamicRoutes)
    }

    /// Any shape: at least one listener (checked by `start()`).
    public init(host: String, tls: TLSListener?, spectatorPort: Int?, protocols: [WireProtocol] = [.v2, .v1],
                publicDirectory: String, dynamicRoutes: @escaping @Sendable (HTTPRequest) -> HTTPResponse?) {
        self.host = host
        self.tls = tls
        self.spectatorPort = spectatorPort
        self.protocols = protocols
        self.publicDirectory = publicDirectory
        self.dynamicRoutes = dynamicRoutes
    }

    /// Why this configuration cannot be served, or nil.
    public var problem: String? {
        if tls == nil, spectatorPort == nil { return "nothing to listen on: neither a TLS port nor a plain one" }
        if protocols.isEmpty { return "no WebSocket protocol to speak" }
        return nil
    }
}

/// What every text message pays before its source sees it, and how far a connection may run
/// ahead of its source. Tokens are per message, and a large message costs more (1 + size/4 KiB).
public struct MessageLimits: Sendable, Equatable {
    /// Each connection's bucket: bursts of 100, refilled at 20 a second (the Coordinator's own).
    public var connectionBurst: Double = 100
    public var connectionPerSecond: Double = 20
    /// Shared by every connection of one address.
    public var addressBurst: Double = 400
    public var addressPerSecond: Double = 100
    /// Refused messages answered in a burst (refilled as the bucket is) before the connection is
    /// closed (1008): a client that sent 250 at once is answered, one that keeps going is not.
    public var refusalsBeforeClose = 200
    /// Messages that are not `command`s are at most this big (beyond: close 1009).
    public var otherMessageBytes = 4_096
    /// A connection with this many messages (or bytes) waiting for its source is not read further.
    public var waitingMessages = 8
    public var waitingBytes = 128 * 1_024
    /// On TLS the server cannot stop reading (lws 4.1.6 spins when a TLS connection is
    /// flow-controlled): beyond this backlog a message is refused `rate_limited` instead. The
    /// buckets already keep a connection near it: 100 messages, or six of 64 KiB.
    public var tlsWaitingMessages = 128
    public var tlsWaitingBytes = 1 << 20

    public init() {}
}

/// The ports `LiveServer.start()` bound (port 0 asks for a free one).
public struct ListeningPorts: Sendable, Equatable {
    public var tls: Int?
    public var spectator: Int?
}

public struct TransportError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
