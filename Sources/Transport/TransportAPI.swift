import GatherDelivery

public struct HTTPRequest: Sendable {
    /// `GET`, or for the API also `POST`, `PATCH` or `DELETE`.
    public let method: String
    /// Without the query.
    public let path: String
    public let query: String?
    /// The peer's numeric address (behind a proxy: the proxy's; see `x-forwarded-for`).
    public let remoteAddress: String
    /// The listener it came through.
    public let door: Door
    /// The request headers of `HTTPRequestHeaders.names` that were sent, by lowercase name, each
    /// value at most `HTTPRequestHeaders.maximumValueBytes` (a longer one is left out). Copied
    /// while lws still held them: they stay valid after the connection is gone.
    public let headers: [String: String]
    /// The whole body (API requests only; at most `APIRoutes.maximumBodyBytes`).
    public let body: [UInt8]

    public init(method: String, path: String, query: String?, remoteAddress: String = "", door: Door = .tls,
                headers: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.remoteAddress = remoteAddress
        self.door = door
        self.headers = headers
        self.body = body
    }

    /// A header's value by name, in any case (`header("Authorization")`).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The same request with its body (read after the headers were copied).
    func with(body: [UInt8]) -> HTTPRequest {
        HTTPRequest(method: method, path: path, query: query, remoteAddress: remoteAddress, door: door,
                    headers: headers, body: body)
    }
}

/// Which request headers an `HTTPRequest` carries: what an API needs to authenticate, choose a
/// language, build absolute links and know the client behind a proxy. Nothing else is copied.
public enum HTTPRequestHeaders {
    public static let names = ["authorization", "accept-language", "host", "content-type", "origin",
                               "x-forwarded-for", "x-forwarded-proto"]
    /// A value longer than this is left out, as if not sent.
    public static let maximumValueBytes = 1_024
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
    /// The JSON API: requests with bodies, answered later from any thread. nil (the venue, a
    /// relay): none, and anything but GET is 405 as ever.
    public var api: APIRoutes?
    /// Where the WebSocket is opened (the club's: `/club/live`).
    public var livePath = "/live"
    /// What the plain listener (`spectatorPort`) is: the venue's and relay's spectator door, or
    /// a whole server's plain port behind a TLS-terminating proxy (the club behind nginx).
    public var plainListener = PlainListenerRole.spectatorDoor

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
        if !livePath.hasPrefix("/") || livePath.contains("?") { return "the live path must start with / and have no query" }
        if let api, let problem = api.problem { return problem }
        if let api, livePath.hasPrefix(api.prefix) { return "the live path is inside the API's prefix" }
        return nil
    }
}

/// What the plain-HTTP listener serves, and how a browser's `Origin` is read there.
public enum PlainListenerRole: Sendable, Equatable {
    /// The venue's spectator door (and a relay's port): only what watching needs; organiser
    /// pages go to TLS. Its connections are tagged `Door.spectator`.
    case spectatorDoor
    /// The server's own port behind a proxy that terminates TLS (the club behind nginx): every
    /// page, the API and the WebSocket, as on a TLS listener; the WebSocket's origin check takes
    /// the browser's scheme from `X-Forwarded-Proto`. Its connections are still `Door.spectator`
    /// (the plain listener): a source that serves only through a proxy ignores the door.
    case behindProxy
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
