import CLibWebSockets
import GatherDelivery

/// The few answers the service thread writes straight through lws, outside any state machine.
enum LWSAnswers {
    /// Writes a plain HTTP answer in place of the 101; returning 1 then makes lws close.
    static func refuseUpgrade(_ wsi: OpaquePointer, door: Door, status: Int, reason: String, detail: String) -> Int32 {
        answerAndClose(wsi, door: door, status: status, reason: reason, detail: detail)
    }

    /// Writes a whole plain-text answer with `Connection: close` at once (lws flushes it before it
    /// closes); returning 1 then makes lws close, so a body the client still sends is never read.
    static func answerAndClose(_ wsi: OpaquePointer, door: Door, status: Int, reason: String, detail: String,
                               extraHeaders: [(String, String)] = []) -> Int32 {
        let body = detail + "\n"
        let headers = (HandshakeRules.securityHeaders(door) + extraHeaders).map { "\($0.0): \($0.1)\r\n" }.joined()
        let response = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\n" + headers + "Cache-Control: no-store\r\nConnection: close\r\n\r\n" + body
        let frame = SharedFrame(Array(response.utf8))
        _ = lws_write(wsi, frame.payload, frame.count, LWS_WRITE_HTTP_HEADERS)
        return 1
    }

    /// The reason phrase of the statuses the Transport answers by itself.
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 429: "Too Many Requests"
        case 503: "Service Unavailable"
        default: "Error"
        }
    }

    /// Sets the close frame lws sends as it closes the connection; the caller returns what this does.
    static func closeNow(_ wsi: OpaquePointer, _ close: ConnectionMachine.Close) -> Int32 {
        var bytes = Array(close.reason.utf8.prefix(120))
        lws_close_reason(wsi, lws_close_status(rawValue: UInt32(close.code)), &bytes, bytes.count)
        return -1
    }
}

/// Reading request headers that lws has parsed.
enum HTTPHeaders {
    /// The request's method and path (without the query), from the one URI token lws filled.
    static func methodAndPath(_ wsi: OpaquePointer) -> (method: String, path: String)? {
        let methods: [(String, lws_token_indexes)] = [
            ("GET", WSI_TOKEN_GET_URI), ("POST", WSI_TOKEN_POST_URI), ("PATCH", WSI_TOKEN_PATCH_URI),
            ("DELETE", WSI_TOKEN_DELETE_URI), ("PUT", WSI_TOKEN_PUT_URI), ("OPTIONS", WSI_TOKEN_OPTIONS_URI),
            ("HEAD", WSI_TOKEN_HEAD_URI),
        ]
        for (method, token) in methods where lws_hdr_total_length(wsi, token) > 0 {
            guard let path = value(wsi, token) else { return nil }
            return (method, path)
        }
        return nil
    }

    /// The headers an `HTTPRequest` carries (`HTTPRequestHeaders.names`), each within its cap.
    static func requestHeaders(_ wsi: OpaquePointer) -> [String: String] {
        var headers: [String: String] = [:]
        for name in HTTPRequestHeaders.names {
            if let value = requestHeader(wsi, name), value.utf8.count <= HTTPRequestHeaders.maximumValueBytes {
                headers[name] = value
            }
        }
        return headers
    }

    private static func requestHeader(_ wsi: OpaquePointer, _ name: String) -> String? {
        switch name {
        case "authorization": return value(wsi, WSI_TOKEN_HTTP_AUTHORIZATION)
        case "accept-language": return value(wsi, WSI_TOKEN_HTTP_ACCEPT_LANGUAGE)
        case "host": return value(wsi, WSI_TOKEN_HOST)
        case "content-type": return value(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE)
        case "origin": return value(wsi, WSI_TOKEN_ORIGIN)
        case "x-forwarded-for": return value(wsi, WSI_TOKEN_X_FORWARDED_FOR)
        default: return customValue(wsi, name)
        }
    }

    /// A header lws has no token for (`x-forwarded-proto`), by lowercase name.
    static func customValue(_ wsi: OpaquePointer, _ name: String) -> String? {
        let key = name + ":"
        let length = Int(lws_hdr_custom_length(wsi, key, Int32(key.utf8.count)))
        guard length > 0, length <= HTTPRequestHeaders.maximumValueBytes else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_custom_copy(wsi, &buffer, Int32(buffer.count), key, Int32(key.utf8.count)) >= 0 else { return nil }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    static func value(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0, length < 8192 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token) >= 0 else { return nil }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Each fragment of a header (for the query: each parameter, URL-decoded), or nil when there
    /// are more than `maximumCount` or they hold more than `maximumBytes` in all (not copied then),
    /// or one cannot be copied whole.
    static func fragments(_ wsi: OpaquePointer, _ token: lws_token_indexes, maximumCount: Int,
                          maximumBytes: Int) -> [String]? {
        var fragments: [String] = []
        var total = 0
        for index in 0...maximumCount {
            let length = Int(lws_hdr_fragment_length(wsi, token, Int32(index)))
            guard length > 0 else { break }
            total += length
            guard index < maximumCount, total <= maximumBytes else { return nil }
            var buffer = [UInt8](repeating: 0, count: length + 1)
            let copied = buffer.withUnsafeMutableBufferPointer { bytes in
                bytes.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    lws_hdr_copy_fragment(wsi, $0, Int32(bytes.count), token, Int32(index))
                }
            }
            // Every byte lws decoded is kept: read as a C string, a `%00` would end the value
            // early and `version=5%00junk` would pass for `version=5`.
            guard copied == Int32(length) else { return nil }
            fragments.append(String(decoding: buffer.prefix(length), as: UTF8.self))
        }
        return fragments
    }
}
