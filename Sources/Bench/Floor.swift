import COpenSSL
import Foundation

/// What the simplest writer pays for the same frames: a tight loop of `write` (plain) or
/// `SSL_write` (TLS) of one relay frame to each of N loopback connections, its thread's CPU
/// divided by the messages. The bench's own reader drains the other ends on another thread, as
/// the followers do in the relay scenario; the loopback receive work the kernel does inside
/// `write` is counted on both sides alike.
///
/// Our own sockets here (not lws) on purpose: the floor is what no library can beat.
struct FloorResult {
    var connections = 0
    var tls = false
    var frameBytes = 0
    var messages = 0
    var writerMicroseconds = 0.0
    var wallMicroseconds = 0.0
    var error: String?

    var microsecondsPerMessage: Double? { messages > 0 ? writerMicroseconds / Double(messages) : nil }
}

struct Floor {
    let connections: Int
    let frame: [UInt8]
    let rounds: Int
    /// Certificate and key for the TLS floor (the venue's generated ones, as the relays use).
    let certificate: (chain: String, key: String)?

    func measure() -> FloorResult {
        var result = FloorResult()
        result.connections = connections
        result.tls = certificate != nil
        result.frameBytes = frame.count
        do {
            try run(into: &result)
        } catch {
            result.error = "\(error)"
        }
        return result
    }

    private func run(into result: inout FloorResult) throws {
        let tls = try certificate.map { try FloorTLS(chain: $0.chain, key: $0.key) }
        defer { tls?.free() }
        let listener = try FloorSocket.listen()
        defer { close(listener.fd) }
        var servers: [FloorEnd] = []
        var clients: [FloorEnd] = []
        defer {
            for end in servers + clients {
                if let ssl = end.ssl { SSL_free(ssl) }
                close(end.fd)
            }
        }
        // Accepting (and the server's half of each handshake) on its own thread: both halves block.
        let acceptor = FloorAcceptor(listener: listener.fd, count: connections, tls: tls)
        acceptor.start()
        let sources = SourceAddresses(firstBlock: 1, connections: connections).all
        for index in 0..<connections {
            let fd = try FloorSocket.connect(from: sources[index % sources.count], port: listener.port)
            var end = FloorEnd(fd: fd, ssl: nil)
            if let tls {
                end.ssl = SSL_new(tls.client)
                SSL_set_fd(end.ssl, fd)
                guard SSL_connect(end.ssl) == 1 else { throw BenchError("floor: TLS handshake \(index) failed") }
            }
            clients.append(end)
        }
        servers = try acceptor.finish()
        let expected = connections * rounds * frame.count
        let reader = FloorReader(ends: clients, expected: expected)
        reader.start()

        let wallStart = BenchClock.nanoseconds()
        let cpuStart = threadCPUMicroseconds()
        try frame.withUnsafeBytes { bytes in
            for _ in 0..<rounds {
                for end in servers {
                    let written = end.ssl.map { SSL_write($0, bytes.baseAddress, Int32(bytes.count)) }
                        ?? Int32(write(end.fd, bytes.baseAddress, bytes.count))
                    guard written == bytes.count else { throw BenchError("floor: a write returned \(written)") }
                }
            }
        }
        result.writerMicroseconds = threadCPUMicroseconds() - cpuStart
        result.wallMicroseconds = Double(BenchClock.nanoseconds() - wallStart) / 1_000
        result.messages = connections * rounds
        guard reader.finish(seconds: 120) else { throw BenchError("floor: the reader did not get every byte in 120 s") }
    }

    private func threadCPUMicroseconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) * 1_000_000 + Double(now.tv_nsec) / 1_000
    }
}

/// One end of a floor connection: its socket, and its TLS session on the TLS floor.
struct FloorEnd {
    let fd: Int32
    var ssl: OpaquePointer?
}

/// The server and client TLS contexts of the TLS floor (OpenSSL's defaults: TLS 1.3).
final class FloorTLS: @unchecked Sendable {
    let server: OpaquePointer
    let client: OpaquePointer

    init(chain: String, key: String) throws {
        guard let server = SSL_CTX_new(TLS_server_method()), let client = SSL_CTX_new(TLS_client_method()) else {
            throw BenchError("floor: no TLS context")
        }
        self.server = server
        self.client = client
        guard SSL_CTX_use_certificate_chain_file(server, chain) == 1,
              SSL_CTX_use_PrivateKey_file(server, key, SSL_FILETYPE_PEM) == 1
        else { throw BenchError("floor: cannot load \(chain) and its key") }
        SSL_CTX_set_verify(client, SSL_VERIFY_NONE, nil)
    }

    func free() {
        SSL_CTX_free(server)
        SSL_CTX_free(client)
    }
}

enum FloorSocket {
    static func address(_ text: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, text, &address.sin_addr)
        return address
    }

    static func listen() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("floor: no socket (\(errno))") }
        var address = address("127.0.0.1", port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                Glibc.bind(fd, pointer, length) == 0 && Glibc.listen(fd, 4096) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { close(fd); throw BenchError("floor: cannot listen on loopback (\(errno))") }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    static func connect(from source: String, port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("floor: no socket (\(errno)): is the open-file limit too low?") }
        var local = address(source, port: 0)
        var remote = address("127.0.0.1", port: port)
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, size) } }
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, size) }
        }
        guard bound == 0, connected == 0 else {
            close(fd)
            throw BenchError("floor: cannot connect from \(source) (\(errno))")
        }
        return fd
    }
}

/// Accepts `count` connections (and does the server's half of each TLS handshake) on a thread.
final class FloorAcceptor: @unchecked Sendable {
    private let listener: Int32
    private let count: Int
    private let tls: FloorTLS?
    private var ends: [FloorEnd] = []
    private var failure: String?
    private let done = DispatchSemaphore(value: 0)

    init(listener: Int32, count: Int, tls: FloorTLS?) {
        self.listener = listener
        self.count = count
        self.tls = tls
    }

    func start() {
        let thread = Thread { [self] in
            defer { done.signal() }
            for index in 0..<count {
                let fd = accept(listener, nil, nil)
                guard fd >= 0 else { failure = "accept failed (\(errno))"; return }
                var end = FloorEnd(fd: fd, ssl: nil)
                if let tls {
                    end.ssl = SSL_new(tls.server)
                    SSL_set_fd(end.ssl, fd)
                    guard SSL_accept(end.ssl) == 1 else { failure = "TLS accept \(index) failed"; return }
                }
                ends.append(end)
            }
        }
        thread.name = "gather-bench.floor-accept"
        thread.start()
    }

    func finish() throws -> [FloorEnd] {
        done.wait()
        if let failure { throw BenchError("floor: \(failure)") }
        return ends
    }
}

/// Drains the clients' ends with epoll (non-blocking, `read` or `SSL_read`) until every byte came.
final class FloorReader: @unchecked Sendable {
    private let ends: [FloorEnd]
    private let expected: Int
    private let done = DispatchSemaphore(value: 0)
    private var complete = false
    private var stop = false
    private let lock = NSLock()

    init(ends: [FloorEnd], expected: Int) {
        self.ends = ends
        self.expected = expected
    }

    func start() {
        let thread = Thread { [self] in
            defer { done.signal() }
            drain()
        }
        thread.name = "gather-bench.floor-read"
        thread.start()
    }

    /// poll() (epoll is not in Swift's Glibc module): the reader's cost, not the writer's.
    private func drain() {
        var descriptors = ends.map { end -> pollfd in
            _ = fcntl(end.fd, F_SETFL, fcntl(end.fd, F_GETFL) | O_NONBLOCK)
            return pollfd(fd: end.fd, events: Int16(POLLIN), revents: 0)
        }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var total = 0
        let deadline = BenchClock.nanoseconds() + 150_000_000_000
        while total < expected, BenchClock.nanoseconds() < deadline, !lock.withLock({ stop }) {
            let ready = poll(&descriptors, nfds_t(descriptors.count), 200)
            guard ready > 0 else { continue }
            for index in descriptors.indices where descriptors[index].revents != 0 {
                descriptors[index].revents = 0
                let fd = ends[index].fd
                let ssl = ends[index].ssl
                while true {
                    let got = buffer.withUnsafeMutableBytes { bytes -> Int in
                        ssl.map { Int(SSL_read($0, bytes.baseAddress, Int32(bytes.count))) } ?? read(fd, bytes.baseAddress, bytes.count)
                    }
                    if got <= 0 { break }
                    total += got
                }
            }
        }
        lock.withLock { complete = total >= expected }
    }

    func finish(seconds: Double) -> Bool {
        if done.wait(timeout: .now() + seconds) == .timedOut {
            lock.withLock { stop = true }
            done.wait()
        }
        return lock.withLock { complete }
    }
}
