import CLibWebSockets
import GatherDelivery

/// The few answers the service thread writes straight through lws, outside any state machine.
enum LWSAnswers {
    /// Writes a plain HTTP answer in place of the 101; returning 1 then makes lws close.
    static func refuseUpgrade(_ wsi: OpaquePointer, door: Door, status: Int, reason: String, detail: String) -> Int32 {
        let body = detail + "\n"
        let headers = HandshakeRules.securityHeaders(door).map { "\($0.0): \($0.1)\r\n" }.joined()
        let response = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\n" + headers + "Cache-Control: no-store\r\nConnection: close\r\n\r\n" + body
        let frame = SharedFrame(Array(response.utf8))
        _ = lws_write(wsi, frame.payload, frame.count, LWS_WRITE_HTTP_HEADERS)
        return 1
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
