import CLibWebSockets
import Foundation
import GatherDelivery

// MARK: - Plain HTTP on protocol 0 (service thread only)

extension ServiceLoop {
    func handleHTTP(_ wsi: OpaquePointer, reason: lws_callback_reasons, user: UnsafeMutableRawPointer?,
                    input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        assertOnServiceThread()
        switch reason {
        case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
            return admitNetworkConnection(user)
        case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED:
            accepted(wsi)
        case LWS_CALLBACK_WSI_DESTROY:
            destroyed(wsi)
        case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
            return confirmUpgrade(wsi)
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            headersArrived(wsi)
            // An upgrade that offered no subprotocol binds to protocol 0: not ours to accept.
            return refuseUpgrade(wsi, status: 400, reason: "Bad Request", detail: subprotocolAdvice)
        case LWS_CALLBACK_HTTP:
            headersArrived(wsi)
            return serveRequest(wsi)
        case LWS_CALLBACK_HTTP_WRITEABLE:
            return writePendingBody(wsi)
        case LWS_CALLBACK_HTTP_FILE_COMPLETION:
            return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
        case LWS_CALLBACK_CLOSED_HTTP:
            httpBodies[wsi] = nil
        default:
            break
        }
        return 0
    }

    /// GET only: a dynamic route, else a file under `Public/`, else 404. The spectator door serves
    /// only what watching needs and sends organisers to TLS.
    private func serveRequest(_ wsi: OpaquePointer) -> Int32 {
        guard let path = HTTPHeaders.value(wsi, WSI_TOKEN_GET_URI) else {
            return respond(wsi, .text(405, "Only GET is served here."), extraHeaders: [("Allow", "GET")])
        }
        if path == "/live" {
            return respond(wsi, .text(426, "Open /live as a WebSocket: \(subprotocolAdvice)."))
        }
        let door = door(of: wsi)
        if door == .spectator {
            switch HandshakeRules.spectatorDoor(path: path) {
            case .serve: break
            case .toTLS where tlsPort == 0:
                return respond(wsi, .text(404, "Organisers use the venue's own address."))
            case .toTLS:
                let location = "https://\(ownHost(wsi)):\(tlsPort)\(path)"
                return respond(wsi, .text(308, "Organisers use the secure address: \(location)"),
                               extraHeaders: [("Location", location)])
            case .notHere:
                return respond(wsi, .text(404, "Nothing here for spectators."))
            }
        }
        let request = HTTPRequest(method: "GET", path: path, query: HTTPHeaders.value(wsi, WSI_TOKEN_HTTP_URI_ARGS),
                                  remoteAddress: Self.peerAddress(wsi), door: door)
        // `/metrics` reads the counters as of this request, not as of the last once-a-second publish.
        fanOut.publish(to: server.fanOut)
        if let response = configuration.dynamicRoutes(request) {
            return respond(wsi, response)
        }
        guard let file = HandshakeRules.staticFile(for: path, root: configuration.publicDirectory) else {
            return respond(wsi, .text(404, "Nothing here."))
        }
        let headers = staticFileHeaders(door)
        let served = lws_serve_http_file(wsi, file, HandshakeRules.contentType(forFile: file),
                                         headers, Int32(headers.utf8.count))
        if served < 0 || (served > 0 && lws_http_transaction_completed(wsi) != 0) { return -1 }
        return 0
    }

    /// Headers, now; the body when lws says the connection is writable.
    private func respond(_ wsi: OpaquePointer, _ response: HTTPResponse,
                         extraHeaders: [(String, String)] = []) -> Int32 {
        var buffer = [UInt8](repeating: 0, count: SharedFrame.headroom + 4096)
        let written: Bool = buffer.withUnsafeMutableBufferPointer { storage in
            let start = storage.baseAddress! + SharedFrame.headroom
            let end = storage.baseAddress! + storage.count
            var cursor: UnsafeMutablePointer<UInt8>? = start
            guard lws_add_http_common_headers(wsi, UInt32(response.status), response.contentType,
                                              lws_filepos_t(response.body.count), &cursor, end) == 0
            else { return false }
            let headers = HandshakeRules.securityHeaders(door(of: wsi)) + [("Cache-Control", "no-store")]
                + response.extraHeaders + extraHeaders
            for (name, value) in headers {
                guard lws_add_http_header_by_name(wsi, name + ":", value, Int32(value.utf8.count), &cursor, end) == 0
                else { return false }
            }
            return lws_finalize_write_http_header(wsi, start, &cursor, end) == 0
        }
        guard written else { return -1 }
        httpBodies[wsi] = response.body
        lws_callback_on_writable(wsi)
        return 0
    }

    private func writePendingBody(_ wsi: OpaquePointer) -> Int32 {
        guard let body = httpBodies.removeValue(forKey: wsi) else { return 0 }
        let frame = SharedFrame(body)
        if lws_write(wsi, frame.payload, frame.count, LWS_WRITE_HTTP_FINAL) < 0 { return -1 }
        return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
    }

    /// Raw header lines lws appends to a served file's answer. Pages are revalidated on every
    /// load so an upgraded server never runs with yesterday's script.
    func staticFileHeaders(_ door: Door) -> String {
        (HandshakeRules.securityHeaders(door) + [("Cache-Control", "no-cache")])
            .map { "\($0.0): \($0.1)\r\n" }.joined()
    }

    /// A host this server names itself, never the request's `Host` header: the `--host` address,
    /// else the local address the request came in on, else `localhost`.
    func ownHost(_ wsi: OpaquePointer) -> String {
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
        let address = Self.numericAddress(&storage, length: length)
        guard address != "unknown" else { return "localhost" }
        return address.contains(":") ? "[\(address)]" : address
    }

    /// The peer's numeric address, as lws saw it at accept time.
    static func peerAddress(_ wsi: OpaquePointer) -> String {
        let remote = [CChar](unsafeUninitializedCapacity: 64) { buffer, count in
            buffer.initialize(repeating: 0)
            count = lws_get_peer_simple(wsi, buffer.baseAddress, buffer.count) == nil ? 0 : strlen(buffer.baseAddress!)
        }
        return remote.isEmpty ? "unknown" : String(decoding: remote.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension HTTPResponse {
    static func text(_ status: Int, _ message: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array((message + "\n").utf8))
    }
}
