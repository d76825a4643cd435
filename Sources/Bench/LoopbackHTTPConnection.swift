import Foundation

/// One kept-alive HTTP/1.1 connection to a loopback port, blocking writes and reads: the bench's
/// own small client (nchan's publisher, the club's API). Our own because the bench depends on no
/// HTTP client, and Foundation's URLSession on Linux polls: it took more CPU than the club's
/// instances it was measuring, on the same two cores.
final class LoopbackHTTPConnection {
    private var socket: Int32
    let port: Int
    private var buffered: [UInt8] = []
    /// Bodies beyond this are refused (the club's largest view is ~60 KB).
    static let maximumBodyBytes = 4 << 20

    init(port: Int, timeoutSeconds: Int = 10) throws {
        self.port = port
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchError("socket() failed: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        var noDelay: Int32 = 1
        guard setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size)) == 0,
              setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size)) == 0
        else {
            Glibc.close(socket)
            throw BenchError("setsockopt failed: \(errno)")
        }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            Glibc.close(socket)
            throw BenchError("cannot connect to 127.0.0.1:\(port): \(errno)")
        }
    }

    /// Sends `method path` with `headers` and `body`; the status and the whole body. `received`
    /// tells a caller whether any byte of the response came (a kept-alive connection the server
    /// closed meanwhile fails before any).
    func exchange(method: String, path: String, headers: [(String, String)] = [], body: [UInt8] = [],
                  received: inout Bool) throws -> (status: Int, body: [UInt8]) {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        try write(Array(head.utf8) + body)
        let separator: [UInt8] = [13, 10, 13, 10]
        var headerEnd: Int?
        var searchedUpTo = 0
        for _ in 0..<1_000 where headerEnd == nil {
            headerEnd = find(separator, in: buffered, from: max(0, searchedUpTo - 3))
            searchedUpTo = buffered.count
            if headerEnd == nil {
                try read()
                received = true
            }
        }
        guard let headerEnd else { throw BenchError("127.0.0.1:\(port) sent no complete response header") }
        let lines = String(decoding: buffered[..<headerEnd], as: UTF8.self).split(separator: "\r\n")
        let words = lines.first?.split(separator: " ") ?? []
        guard words.count >= 2, let status = Int(words[1]) else { throw BenchError("127.0.0.1:\(port): \(lines.first ?? "")") }
        let length = lines.dropFirst().compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first ?? 0
        guard (0...Self.maximumBodyBytes).contains(length) else { throw BenchError("127.0.0.1:\(port): a \(length)-byte body") }
        let total = headerEnd + 4 + length
        while buffered.count < total { try read() }
        let responseBody = Array(buffered[(headerEnd + 4)..<total])
        buffered.removeFirst(total)
        return (status, responseBody)
    }

    func close() {
        if socket >= 0 { Glibc.close(socket) }
        socket = -1
    }

    deinit { close() }

    private func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw BenchError("writing to 127.0.0.1:\(port) failed: \(errno)") }
            offset += written
        }
    }

    private func read() throws {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { Glibc.recv(socket, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw BenchError("127.0.0.1:\(port) closed the connection or timed out (\(errno))") }
        buffered += chunk[..<count]
    }

    private func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard haystack.count >= needle.count, from <= haystack.count - needle.count else { return nil }
        for start in from...(haystack.count - needle.count) where haystack[start..<start + needle.count].elementsEqual(needle) {
            return start
        }
        return nil
    }
}
