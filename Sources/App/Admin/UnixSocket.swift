import Foundation

/// Unix-domain stream sockets for the laptop's admin channel. Our own few lines of POSIX, because
/// the one thing needed (one short request, one short answer, on the same machine) is smaller than
/// any library's set-up.
enum UnixSocket {
    /// A socket address for `path`. `sun_path` holds 107 bytes; a longer path (a deep data folder)
    /// is reached through the folder's descriptor under /proc/self/fd, which the caller keeps open
    /// while it uses the address and closes after.
    static func address(for path: String) throws -> (address: sockaddr_un, folder: Int32?) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var usable = path
        var folder: Int32?
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        if path.utf8.count >= capacity {
            let directory = (path as NSString).deletingLastPathComponent
            let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else { throw AdminFailure("cannot open \(directory): \(errnoText())") }
            folder = descriptor
            usable = "/proc/self/fd/\(descriptor)/" + (path as NSString).lastPathComponent
        }
        guard usable.utf8.count < capacity else { throw AdminFailure("the socket path \(path) is too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in usable.utf8.enumerated() { raw[index] = byte }
            raw[usable.utf8.count] = 0
        }
        return (address, folder)
    }

    /// Connects to `path`; nil when nothing listens there (no file, or a file left by a server that
    /// stopped without removing it).
    static func connect(to path: String, timeoutSeconds: Int = 5) throws -> Int32? {
        let (address, folder) = try self.address(for: path)
        defer { if let folder { close(folder) } }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw AdminFailure("cannot make a socket: \(errnoText())") }
        setTimeouts(descriptor, seconds: timeoutSeconds)
        var copy = address
        let result = withUnsafePointer(to: &copy) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if result != 0 {
            let code = errno
            close(descriptor)
            if code == ENOENT || code == ECONNREFUSED { return nil }
            throw AdminFailure("cannot reach the running server at \(path): \(String(cString: strerror(code)))")
        }
        return descriptor
    }

    static func setTimeouts(_ descriptor: Int32, seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Reads one line (up to `limit` bytes); nil on a timeout, a close before the newline, or more.
    static func readLine(_ descriptor: Int32, limit: Int) -> [UInt8]? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while received.count <= limit {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { return nil }
            received += buffer[0..<count]
            if let newline = received.firstIndex(of: UInt8(ascii: "\n")) {
                return newline <= limit ? Array(received[..<newline]) : nil
            }
        }
        return nil
    }

    /// What `readLine(_:limit:before:)` got.
    enum LineRead: Equatable {
        case line([UInt8])
        /// The deadline passed before a whole line arrived.
        case late
        /// More than the limit arrived without a line end.
        case tooLong
        /// The peer closed or failed before a line end.
        case unreadable
    }

    /// Reads one line (up to `limit` bytes) that must be complete by `deadline`: one clock for the
    /// whole line, so a peer dribbling a byte at a time cannot stretch it the way a per-read
    /// timeout lets it.
    static func readLine(_ descriptor: Int32, limit: Int, before deadline: ContinuousClock.Instant) -> LineRead {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while received.count <= limit {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return .late }
            let (seconds, attoseconds) = left.components
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, Int32(min(seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1, 60_000)))
            if ready < 0, errno == EINTR { continue }
            guard ready >= 0 else { return .unreadable }
            if ready == 0 { continue }  // the loop's clock decides
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { return .unreadable }
            received += buffer[0..<count]
            if let newline = received.firstIndex(of: UInt8(ascii: "\n")) {
                return newline <= limit ? .line(Array(received[..<newline])) : .tooLong
            }
        }
        return .tooLong
    }

    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }

    /// The process at the other end of a connected socket (`SO_PEERCRED`: the one that called
    /// `connect`, or `listen` for a listener), as the kernel recorded it; nil when unknown. The
    /// PID is 0 when that process is not visible from this one's PID namespace.
    static func peer(_ descriptor: Int32) -> (pid: pid_t, uid: uid_t)? {
        var credentials = PeerCredentials()
        var size = socklen_t(MemoryLayout<PeerCredentials>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0,
              size == socklen_t(MemoryLayout<PeerCredentials>.size)
        else { return nil }
        return (credentials.pid, credentials.uid)
    }
}

/// Linux's `struct ucred` (Glibc hides it behind _GNU_SOURCE): what SO_PEERCRED fills in.
private struct PeerCredentials {
    var pid: pid_t = 0
    var uid: uid_t = 0
    var gid: gid_t = 0
}

/// A failure of the admin channel, said in one sentence.
struct AdminFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
