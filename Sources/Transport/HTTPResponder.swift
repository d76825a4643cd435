import CLibWebSockets
import Foundation
import GatherDelivery

/// Plain HTTP on protocol 0: static files under `Public/`, the dynamic routes, the API's
/// requests (`HTTPResponder+API.swift`), and the answers a request gets instead (405, 426, the
/// spectator door's 308 and 404). Owns the bodies waiting for their connection's writable turn.
/// Owned by the `ServiceLoop`, service thread only.
final class HTTPResponder {
    let configuration: TransportConfiguration
    /// The TLS listener's bound port, where the spectator door sends organisers (0: none).
    var tlsPort = 0
    /// Called before a dynamic route runs, so `/metrics` reads the counters as of its request.
    var beforeDynamicRoute: () -> Void = {}
    /// Bodies whose headers are written, by connection, until its writable turn.
    private var bodies: [OpaquePointer: [UInt8]] = [:]
    /// Where an `APIReply` hands its response (the handle other threads hold).
    let replies: LiveServer
    /// The API's requests in flight (nil without an API).
    var apiBook: APIRequestBook<OpaquePointer>?
    /// API responses whose connection has not had its writable turn yet.
    var apiResponses: [OpaquePointer: (response: HTTPResponse, door: Door)] = [:]
    /// Where refused API requests are noted (throttled per address).
    let refusals: RefusalLog

    init(configuration: TransportConfiguration, replies: LiveServer, refusals: RefusalLog) {
        self.configuration = configuration
        self.replies = replies
        self.refusals = refusals
        apiBook = configuration.api.map { APIRequestBook($0) }
    }

    /// What a request is answered before any file or route is looked at. Pure.
    enum Route: Equatable {
        case onlyGet
        case upgradeRequired
        case redirectToTLS(path: String)
        case notFound(String)
        /// Look for a dynamic route, then a file.
        case serve(path: String)
        /// The API's: read it whole, then hand it over.
        case api(method: String, path: String)
        /// Under the API's prefix, with a method it does not answer: 405 with `Allow`.
        case apiMethodNotAllowed
    }

    /// The API's prefix takes its methods; otherwise GET only; the live path is a WebSocket; the
    /// spectator door serves only what watching needs and sends organisers to TLS (or nowhere,
    /// when there is no TLS listener). A plain listener behind a proxy serves as TLS does.
    static func route(method: String?, path: String?, door: Door, tlsPort: Int, livePath: String = "/live",
                      apiPrefix: String? = nil, apiAlsoAnswers: (String) -> Bool = { _ in false },
                      plainListener: PlainListenerRole = .spectatorDoor) -> Route {
        guard let method, let path else { return .onlyGet }
        let watchingOnly = door == .spectator && plainListener == .spectatorDoor
        if let apiPrefix, path.hasPrefix(apiPrefix), !watchingOnly {
            return APIRoutes.methods.contains(method) ? .api(method: method, path: path) : .apiMethodNotAllowed
        }
        guard method == "GET" else { return .onlyGet }
        if apiPrefix != nil, !watchingOnly, apiAlsoAnswers(path) { return .api(method: method, path: path) }
        if path == livePath { return .upgradeRequired }
        guard watchingOnly else { return .serve(path: path) }
        switch HandshakeRules.spectatorDoor(path: path) {
        case .serve: return .serve(path: path)
        case .toTLS where tlsPort == 0: return .notFound("Organisers use the venue's own address.")
        case .toTLS: return .redirectToTLS(path: path)
        case .notHere: return .notFound("Nothing here for spectators.")
        }
    }

    /// `LWS_CALLBACK_HTTP`: answers the request of `wsi`.
    func serve(_ wsi: OpaquePointer, door: Door) -> Int32 {
        let request = HTTPHeaders.methodAndPath(wsi)
        switch Self.route(method: request?.method, path: request?.path, door: door, tlsPort: tlsPort,
                          livePath: configuration.livePath, apiPrefix: configuration.api?.prefix,
                          apiAlsoAnswers: configuration.api?.alsoAnswers ?? { _ in false },
                          plainListener: configuration.plainListener) {
        case .onlyGet:
            return respond(wsi, door: door, .text(405, "Only GET is served here."), extraHeaders: [("Allow", "GET")])
        case .upgradeRequired:
            return respond(wsi, door: door, .text(426, "Open \(configuration.livePath) as a WebSocket: \(Self.subprotocolAdvice(configuration))."))
        case .notFound(let message):
            return respond(wsi, door: door, .text(404, message))
        case .redirectToTLS(let path):
            let location = "https://\(ownHost(wsi)):\(tlsPort)\(path)"
            return respond(wsi, door: door, .text(308, "Organisers use the secure address: \(location)"),
                           extraHeaders: [("Location", location)])
        case .api(let method, let path):
            return beginAPIRequest(wsi, method: method, path: path, door: door)
        case .apiMethodNotAllowed:
            return LWSAnswers.answerAndClose(wsi, door: door, status: 405, reason: LWSAnswers.reasonPhrase(405),
                                             detail: "This API answers \(APIRoutes.allowHeader).",
                                             extraHeaders: [("Allow", APIRoutes.allowHeader)])
        case .serve(let path):
            let request = HTTPRequest(method: "GET", path: path, query: HTTPHeaders.value(wsi, WSI_TOKEN_HTTP_URI_ARGS),
                                      remoteAddress: PeerAddress.of(wsi), door: door,
                                      headers: HTTPHeaders.requestHeaders(wsi))
            beforeDynamicRoute()
            if let response = configuration.dynamicRoutes(request) { return respond(wsi, door: door, response) }
            guard let file = HandshakeRules.staticFile(for: path, root: configuration.publicDirectory) else {
                return respond(wsi, door: door, .text(404, "Nothing here."))
            }
            let headers = Self.staticFileHeaders(door)
            let served = lws_serve_http_file(wsi, file, HandshakeRules.contentType(forFile: file),
                                             headers, Int32(headers.utf8.count))
            if served < 0 || (served > 0 && lws_http_transaction_completed(wsi) != 0) { return -1 }
            return 0
        }
    }

    /// Headers, now; the body when lws says the connection is writable.
    func respond(_ wsi: OpaquePointer, door: Door, _ response: HTTPResponse,
                         extraHeaders: [(String, String)] = []) -> Int32 {
        var buffer = [UInt8](repeating: 0, count: SharedFrame.headroom + 4096)
        let written: Bool = buffer.withUnsafeMutableBufferPointer { storage in
            let start = storage.baseAddress! + SharedFrame.headroom
            let end = storage.baseAddress! + storage.count
            var cursor: UnsafeMutablePointer<UInt8>? = start
            guard lws_add_http_common_headers(wsi, UInt32(response.status), response.contentType,
                                              lws_filepos_t(response.body.count), &cursor, end) == 0
            else { return false }
            let headers = HandshakeRules.securityHeaders(door) + [("Cache-Control", "no-store")]
                + response.extraHeaders + extraHeaders
            // A header that would break the head (CR, LF or NUL, say from text a user chose) is left out.
            for (name, value) in headers where Self.isSafeHeader(name: name, value: value) {
                guard lws_add_http_header_by_name(wsi, name + ":", value, Int32(value.utf8.count), &cursor, end) == 0
                else { return false }
            }
            return lws_finalize_write_http_header(wsi, start, &cursor, end) == 0
        }
        guard written else { return -1 }
        bodies[wsi] = response.body
        lws_callback_on_writable(wsi)
        return 0
    }

    /// Whether a header can be written as it is: a token for a name, no line break or NUL in the value.
    static func isSafeHeader(name: String, value: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }
            && !value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }
    }

    /// `LWS_CALLBACK_HTTP_WRITEABLE`: an API response's headers, or the body whose headers went out.
    func writePendingBody(_ wsi: OpaquePointer) -> Int32 {
        if let (response, door) = apiResponses.removeValue(forKey: wsi) { return respond(wsi, door: door, response) }
        guard let body = bodies.removeValue(forKey: wsi) else { return 0 }
        let frame = SharedFrame(body)
        if lws_write(wsi, frame.payload, frame.count, LWS_WRITE_HTTP_FINAL) < 0 { return -1 }
        return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
    }

    /// Whether an answer is still to be written: an API request waiting for its reply, or a
    /// body waiting for its writable turn (a shutdown waits for them, within its drain time).
    var hasAnswersInFlight: Bool {
        !bodies.isEmpty || !apiResponses.isEmpty || !(apiBook?.pending.isEmpty ?? true)
    }

    /// `LWS_CALLBACK_CLOSED_HTTP` (and `WSI_DESTROY`): a body never written is forgotten, and so
    /// is the API request of the connection (its reply, if one comes, is dropped).
    func closed(_ wsi: OpaquePointer) {
        bodies[wsi] = nil
        apiResponses[wsi] = nil
        apiBook?.closed(wsi)
    }

    /// Raw header lines lws appends to a served file's answer. Pages are revalidated on every
    /// load so an upgraded server never runs with yesterday's script.
    static func staticFileHeaders(_ door: Door) -> String {
        (HandshakeRules.securityHeaders(door) + [("Cache-Control", "no-cache")])
            .map { "\($0.0): \($0.1)\r\n" }.joined()
    }

    /// What a refused handshake is told to do instead.
    static func subprotocolAdvice(_ configuration: TransportConfiguration) -> String {
        "connect to \(configuration.livePath) with the " + configuration.protocols.map(\.rawValue).joined(separator: " or ") + " subprotocol"
    }

    /// A host this server names itself, never the request's `Host` header: the `--host` address,
    /// else the local address the request came in on, else `localhost`.
    private func ownHost(_ wsi: OpaquePointer) -> String {
        let configured = configuration.host
        if configured != "0.0.0.0", configured != "::", !configured.isEmpty {
            return configured.contains(":") ? "[\(configured)]" : configured
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let descriptor = lws_get_socket_fd(wsi)
        let found = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard descriptor >= 0, found == 0 else { return "localhost" }
        let address = PeerAddress.numeric(&storage, length: length)
        guard address != "unknown" else { return "localhost" }
        return address.contains(":") ? "[\(address)]" : address
    }
}

@available(*, unavailable)
extension HTTPResponder: Sendable {}

extension HTTPResponse {
    static func text(_ status: Int, _ message: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array((message + "\n").utf8))
    }
}
