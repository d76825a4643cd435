// Our own small client: URLSession on Linux cannot be told to trust one extra CA, and the tests
// need raw HTTP and WebSocket bytes (refused handshakes, close codes) that no client library shows.
import COpenSSL
import Foundation

struct TestClientFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A blocking TLS connection to 127.0.0.1 that trusts only the given CA and checks that the
/// server's certificate names 127.0.0.1, as a phone that installed the local CA does.
/// Every read waits at most until a deadline, so a server that stays silent fails the test.
final class TLSTestClient {
    private let descriptor: Int32
    /// nil on a plain connection (the spectator door).
    private let context: OpaquePointer?
    private let ssl: OpaquePointer?
    /// Bytes read from TLS but not yet consumed.
    private var buffered: [UInt8] = []
    let timeout: TimeInterval

    init(port: Int, caPath: String, timeout: TimeInterval = 5) throws {
        self.timeout = timeout
        descriptor = try Self.connectLoopback(port: port, timeout: timeout)
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            close(descriptor)
            throw TestClientFailure("SSL_CTX_new failed")
        }
        self.context = context
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        guard SSL_CTX_load_verify_locations(context, caPath, nil) == 1, let ssl = SSL_new(context) else {
            SSL_CTX_free(context)
            close(descriptor)
            throw TestClientFailure("cannot load the CA \(caPath)")
        }
        self.ssl = ssl
        _ = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), "127.0.0.1")
        _ = SSL_set_fd(ssl, descriptor)
        // The socket's receive timeout bounds the handshake.
        guard SSL_connect(ssl) == 1 else {
            throw TestClientFailure("TLS handshake failed: \(Self.openSSLErrors()) (verify result \(SSL_get_verify_result(ssl)))")
        }
        guard SSL_get_verify_result(ssl) == Int(X509_V_OK) else {
            throw TestClientFailure("the server's certificate did not verify against \(caPath)")
        }
    }

    /// A plain TCP connection, for the spectator door.
    init(plainPort port: Int, timeout: TimeInterval = 5) throws {
        self.timeout = timeout
        descriptor = try Self.connectLoopback(port: port, timeout: timeout)
        context = nil
        ssl = nil
    }

    deinit {
        if let ssl { SSL_free(ssl) }
        if let context { SSL_CTX_free(context) }
        close(descriptor)
    }

    private static func connectLoopback(port: Int, timeout: TimeInterval) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestClientFailure("socket: \(String(cString: strerror(errno)))") }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw TestClientFailure("connect to 127.0.0.1:\(port): \(reason)")
        }
        return descriptor
    }

    private static func openSSLErrors() -> String {
        var messages: [String] = []
        while case let code = ERR_get_error(), code != 0, messages.count < 8 {
            var text = [UInt8](repeating: 0, count: 256)
            text.withUnsafeMutableBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { ERR_error_string_n(code, $0.baseAddress, $0.count) }
            }
            messages.append(String(decoding: text.prefix { $0 != 0 }, as: UTF8.self))
        }
        return messages.isEmpty ? "no OpenSSL error" : messages.joined(separator: "; ")
    }

    // MARK: - Writing

    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            guard let ssl else {
                let sent = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard sent > 0 else { throw TestClientFailure("write failed: \(String(cString: strerror(errno)))") }
                offset += sent
                continue
            }
            let written = bytes[offset...].withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
            guard written > 0 else { throw TestClientFailure("TLS write failed: \(Self.openSSLErrors())") }
            offset += Int(written)
        }
    }

    func write(_ text: String) throws { try write(Array(text.utf8)) }

    // MARK: - Reading, bounded by a deadline

    func deadline() -> Date { Date().addingTimeInterval(timeout) }

    /// The next `count` bytes.
    func read(exactly count: Int, before deadline: Date) throws -> [UInt8] {
        while buffered.count < count {
            guard try fill(before: deadline) else {
                throw TestClientFailure("the server closed after \(buffered.count) of \(count) bytes")
            }
        }
        defer { buffered.removeFirst(count) }
        return Array(buffered.prefix(count))
    }

    /// Everything up to and including `delimiter`.
    func read(through delimiter: [UInt8], before deadline: Date) throws -> [UInt8] {
        var searchedUpTo = 0
        while true {
            if let end = Self.firstIndex(of: delimiter, in: buffered, from: searchedUpTo) {
                return try read(exactly: end + delimiter.count, before: deadline)
            }
            searchedUpTo = max(0, buffered.count - delimiter.count)
            guard try fill(before: deadline) else {
                throw TestClientFailure("the server closed before \(String(decoding: delimiter, as: UTF8.self).debugDescription)")
            }
        }
    }

    /// Everything until the server closes the connection.
    func readToEnd(before deadline: Date) throws -> [UInt8] {
        while try fill(before: deadline) {}
        defer { buffered = [] }
        return buffered
    }

    /// True when the server has closed the connection (waiting at most until `deadline`).
    func isClosedByServer(before deadline: Date) throws -> Bool {
        while buffered.isEmpty {
            guard try fill(before: deadline) else { return true }
        }
        return false
    }

    /// Reads what is available into `buffered`; false when the server closed the connection.
    private func fill(before deadline: Date) throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            // OpenSSL may hold decrypted bytes the socket no longer shows as readable.
            if ssl.map({ SSL_pending($0) == 0 }) ?? true {
                let remaining = deadline.timeIntervalSinceNow
                guard remaining > 0 else { throw TestClientFailure("timed out waiting for the server") }
                var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let ready = poll(&waiting, 1, Int32(min(remaining * 1000 + 1, 60_000)))
                if ready < 0, errno == EINTR { continue }
                guard ready > 0 else { throw TestClientFailure("timed out waiting for the server") }
            }
            guard let ssl else {
                let count = recv(descriptor, &chunk, chunk.count, 0)
                if count > 0 {
                    buffered.append(contentsOf: chunk[0..<count])
                    return true
                }
                return false
            }
            let count = SSL_read(ssl, &chunk, Int32(chunk.count))
            if count > 0 {
                buffered.append(contentsOf: chunk[0..<Int(count)])
                return true
            }
            switch SSL_get_error(ssl, count) {
            case SSL_ERROR_WANT_READ: continue  // a TLS record that carried no application data
            case SSL_ERROR_ZERO_RETURN, SSL_ERROR_SYSCALL: return false  // close_notify, or the TCP close
            default: throw TestClientFailure("TLS read failed: \(Self.openSSLErrors())")
            }
        }
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in start...(haystack.count - needle.count)
        where haystack[index..<(index + needle.count)].elementsEqual(needle) {
            return index
        }
        return nil
    }
}

// MARK: - HTTP/1.1

struct HTTPTestResponse {
    let status: Int
    /// Header names lowercased.
    let headers: [String: String]
    let body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
}

extension TLSTestClient {
    /// Sends one request and reads its answer: the head, then a body of `Content-Length` bytes,
    /// or (without one) up to the server's close. A `101` has no body: the WebSocket follows.
    func exchange(_ request: String) throws -> HTTPTestResponse {
        try write(request)
        let deadline = deadline()
        let head = String(decoding: try read(through: Array("\r\n\r\n".utf8), before: deadline), as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
            throw TestClientFailure("not an HTTP answer: \(head.debugDescription)")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        if status == 101 { return HTTPTestResponse(status: status, headers: headers, body: []) }
        let body: [UInt8]
        if let length = headers["content-length"].flatMap(Int.init) {
            body = try read(exactly: length, before: deadline)
        } else {
            body = try readToEnd(before: deadline)
        }
        return HTTPTestResponse(status: status, headers: headers, body: body)
    }
}

// MARK: - WebSocket frames (RFC 6455 §5.2)

struct WebSocketFrame {
    static let text: UInt8 = 0x1
    static let close: UInt8 = 0x8
    static let ping: UInt8 = 0x9
    static let pong: UInt8 = 0xA

    let opcode: UInt8
    let payload: [UInt8]

    var text: String { String(decoding: payload, as: UTF8.self) }
    /// The status code of a close frame (its first two payload bytes, big-endian).
    var closeCode: UInt16? {
        guard opcode == Self.close, payload.count >= 2 else { return nil }
        return UInt16(payload[0]) << 8 | UInt16(payload[1])
    }
}

extension TLSTestClient {
    /// The `Sec-WebSocket-Accept` a server must answer to `key`: base64(SHA-1(key + the RFC's GUID)).
    static func webSocketAccept(for key: String) -> String {
        let input = Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8)
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = EVP_Digest(input, input.count, &digest, &length, EVP_sha1(), nil)
        return Data(digest.prefix(Int(length))).base64EncodedString()
    }

    /// A client frame: FIN set, masked with a fresh key as every client frame must be.
    func sendFrame(opcode: UInt8, payload: [UInt8]) throws {
        var frame: [UInt8] = [0x80 | opcode]
        switch payload.count {
        case 0...125:
            frame.append(0x80 | UInt8(payload.count))
        case 126...0xFFFF:
            frame.append(0x80 | 126)
            frame += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8((UInt64(payload.count) >> (8 * UInt64($0))) & 0xFF) }
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try write(frame)
    }

    func sendText(_ text: String) throws { try sendFrame(opcode: WebSocketFrame.text, payload: Array(text.utf8)) }

    /// The next whole frame. The server never fragments and never masks: either is a failure here.
    func readFrame() throws -> WebSocketFrame {
        let deadline = deadline()
        let head = try read(exactly: 2, before: deadline)
        guard head[0] & 0x80 != 0 else { throw TestClientFailure("the server sent a fragmented frame") }
        guard head[1] & 0x80 == 0 else { throw TestClientFailure("the server sent a masked frame") }
        var length = Int(head[1] & 0x7F)
        if length == 126 {
            length = try read(exactly: 2, before: deadline).reduce(0) { $0 << 8 | Int($1) }
        } else if length == 127 {
            length = try read(exactly: 8, before: deadline).reduce(0) { $0 << 8 | Int($1) }
        }
        return WebSocketFrame(opcode: head[0] & 0x0F, payload: try read(exactly: length, before: deadline))
    }

    /// The next text message; a close or binary frame instead is a failure.
    func readText() throws -> String {
        let frame = try readFrame()
        guard frame.opcode == WebSocketFrame.text else {
            throw TestClientFailure("expected a text frame, got opcode \(frame.opcode) (close code \(frame.closeCode.map(String.init) ?? "-"))")
        }
        return frame.text
    }
}
