import Foundation

/// POSTs to nchan's publisher over one kept-alive loopback HTTP/1.1 connection, as a relay keeps
/// one NATS connection: a connection per message would bill nginx for accepting it.
/// Our own: the bench depends on no HTTP client, and this needs only blocking writes and reads.
final class HTTPPublisher {
    private var socket: Int32
    private let port: Int
    private let path: String
    private var buffered: [UInt8] = []

    init(port: Int, path: String) throws {
        self.port = port
        self.path = path
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchError("socket() failed: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
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

    /// The response's status code, once its whole body is read.
    func post(_ body: [UInt8]) throws -> Int {
        let head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: text/plain\r\n"
            + "Content-Length: \(body.count)\r\n\r\n"
        try write(Array(head.utf8) + body)
        let separator: [UInt8] = [13, 10, 13, 10]
        var headerEnd: Int?
        for _ in 0..<1_000 where headerEnd == nil {
            headerEnd = find(separator, in: buffered)
            if headerEnd == nil { try read() }
        }
        guard let headerEnd else { throw BenchError("nchan's publisher sent no complete response header") }
        let header = String(decoding: buffered[..<headerEnd], as: UTF8.self)
        let lines = header.split(separator: "\r\n")
        let words = lines.first?.split(separator: " ") ?? []
        guard words.count >= 2, let status = Int(words[1]) else { throw BenchError("nchan's publisher: \(lines.first ?? "")") }
        let length = lines.dropFirst().compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first ?? 0
        let total = headerEnd + 4 + length
        for _ in 0..<1_000 where buffered.count < total { try read() }
        guard buffered.count >= total else { throw BenchError("nchan's publisher sent a short body") }
        buffered.removeFirst(total)
        return status
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
            guard written > 0 else { throw BenchError("writing to nchan's publisher failed: \(errno)") }
            offset += written
        }
    }

    private func read() throws {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let count = chunk.withUnsafeMutableBytes { Glibc.recv(socket, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw BenchError("nchan's publisher closed the connection or timed out (\(errno))") }
        buffered += chunk[..<count]
    }

    private func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<start + needle.count].elementsEqual(needle) {
            return start
        }
        return nil
    }
}
