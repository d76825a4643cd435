import Foundation
import GatherCoordinator
import Logging
import Synchronization

/// The running server's door for the laptop's `gather organisers …`: a Unix-domain socket in the
/// data folder, mode 0600, answering one request per connection. Only the user running the server
/// can connect (the file's mode, and the peer's uid checked again). Connections are answered at
/// once, each on a thread of its own, so a client that connects and says nothing holds only its own
/// thread: each has one deadline (`requestDeadline`) for its whole request of at most 4 KiB, and at
/// most `connectionLimit` are answered at a time; one more is told so and closed, never queued.
///
/// The thread it starts owns the loop over `accept` and closes the listener itself when it ends
/// (after the connections' threads finished), so a descriptor number is never reused under an
/// `accept` still running; everything else it reads is a `let` set before the thread starts.
final class AdminSocketServer: Sendable {
    static let fileName = "admin.sock"
    /// The whole request, from accept to its line end; a laptop's CLI sends it in one write.
    static let requestDeadline = Duration.seconds(2)
    /// Connections answered at once: a laptop sends one request at a time, and a few scripts more.
    static let connectionLimit = 16

    let path: String
    private let listener: Int32
    private let folder: Int32?
    private let handle: @Sendable (AdminCall) -> AdminReply
    private let logger: Logger
    /// Signalled by the admin thread once it has closed the listener (`stop` waits for it).
    private let finished = DispatchSemaphore(value: 0)
    /// The connections being answered now, and their threads (the accept loop waits for them).
    private let answering = Mutex(0)
    private let connectionThreads = DispatchGroup()

    static func path(inDataFolder folder: String) -> String {
        (folder.hasSuffix("/") ? folder : folder + "/") + fileName
    }

    /// Binds the socket; refuses when another running server already answers on it, and removes
    /// a file left by a server that stopped without removing it.
    init(dataFolder: String, logger: Logger, handle: @escaping @Sendable (AdminCall) -> AdminReply) throws {
        path = Self.path(inDataFolder: dataFolder)
        self.handle = handle
        self.logger = logger
        if let live = try UnixSocket.connect(to: path, timeoutSeconds: 1) {
            close(live)
            throw AdminFailure("another gather server is running on the data folder \(dataFolder); stop it first")
        }
        unlink(path)
        let (address, folder) = try UnixSocket.address(for: path)
        self.folder = folder
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw AdminFailure("cannot make the admin socket: \(UnixSocket.errnoText())") }
        var copy = address
        let bound = withUnsafePointer(to: &copy) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, chmod(path, 0o600) == 0, listen(listener, Int32(Self.connectionLimit)) == 0 else {
            let reason = UnixSocket.errnoText()
            close(listener)
            throw AdminFailure("cannot open the admin socket \(path): \(reason)")
        }
    }

    func start() {
        let thread = Thread { [self] in serve() }
        thread.name = "gather.admin"
        thread.start()
    }

    /// Stops accepting and removes the socket file, so the CLI knows the server is gone. Waits
    /// (at most one request's deadline and two seconds) for the requests being answered and for the
    /// admin thread to close the listener: no handler runs after `stop` returns.
    func stop() {
        unlink(path)
        shutdown(listener, Int32(SHUT_RDWR))
        if finished.wait(timeout: .now() + .seconds(4)) == .timedOut {
            logger.warning("admin socket: the admin thread did not finish within 4 s of stopping")
        }
    }

    private func serve() {
        defer {
            if connectionThreads.wait(timeout: .now() + .seconds(3)) == .timedOut {
                logger.warning("admin socket: a request was still being answered 3 s after stopping")
            }
            close(listener)
            if let folder { close(folder) }
            finished.signal()
        }
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if errno == EMFILE || errno == ENFILE || errno == ENOMEM || errno == ENOBUFS {
                    logger.warning("admin socket: cannot accept a connection now",
                                   metadata: ["admin.error": "\(UnixSocket.errnoText())"])
                    usleep(100_000)  // the descriptors others use come back; a busy loop would not help
                    continue
                }
                return  // shut down by `stop`
            }
            guard admit() else {
                UnixSocket.setTimeouts(connection, seconds: 1)
                _ = UnixSocket.writeAll(connection, AdminWire.encode(AdminReply.failed(Self.busyAnswer)))
                close(connection)
                logger.warning("admin socket: refused a connection beyond the limit",
                               metadata: ["admin.limit": "\(Self.connectionLimit)"])
                continue
            }
            connectionThreads.enter()
            let thread = Thread { [self] in
                answer(connection)
                close(connection)
                answering.withLock { $0 -= 1 }
                connectionThreads.leave()
            }
            thread.name = "gather.admin.connection"
            thread.start()
        }
    }

    /// Counts one more connection in, unless `connectionLimit` are being answered.
    private func admit() -> Bool {
        answering.withLock { count in
            guard count < Self.connectionLimit else { return false }
            count += 1
            return true
        }
    }

    private func answer(_ connection: Int32) {
        let deadline = ContinuousClock.now + Self.requestDeadline
        UnixSocket.setTimeouts(connection, seconds: 2)  // the reply's writes; reads keep to `deadline`
        guard let peer = UnixSocket.peer(connection)?.uid, peer == geteuid() || peer == 0 else {
            logger.warning("admin socket: refused a connection from another user")
            return
        }
        let line: [UInt8]
        switch UnixSocket.readLine(connection, limit: AdminWire.requestLimit, before: deadline) {
        case .line(let bytes): line = bytes
        case .unreadable: return
        case .tooLong:
            _ = UnixSocket.writeAll(connection, AdminWire.encode(AdminReply.failed(Self.tooLongAnswer)))
            return
        case .late:
            logger.warning("admin socket: dropped a request not complete within its deadline",
                           metadata: ["admin.deadline": "\(Self.requestDeadline)"])
            _ = UnixSocket.writeAll(connection, AdminWire.encode(AdminReply.failed(Self.lateAnswer)))
            return
        }
        let reply: AdminReply
        if let request = AdminWire.decodeRequest(line) {
            reply = handle(request)
            logger.notice("laptop request", metadata: ["admin.request": "\(Self.describe(request))"])
        } else {
            reply = .failed("The request could not be read.")
        }
        _ = UnixSocket.writeAll(connection, AdminWire.encode(reply))
    }

    /// What a client that has not sent its whole request by the deadline reads before the close.
    static let lateAnswer = "The request was not complete within 2 seconds; nothing was done."
    /// What a client sending more than `AdminWire.requestLimit` bytes without a line end reads.
    static let tooLongAnswer = "The request is longer than \(AdminWire.requestLimit) bytes; nothing was done."
    /// What a connection beyond `connectionLimit` reads before the close.
    static let busyAnswer = "The server is answering \(connectionLimit) other admin requests; nothing was done. Try again in a few seconds."

    /// What the log says about a request: never the password.
    private static func describe(_ request: AdminCall) -> String {
        func safe(_ name: String) -> String {
            String(name.unicodeScalars.prefix(40).map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" })
        }
        return switch request {
        case .list: "list"
        case .remove(let name): "remove \(safe(name))"
        case .makeOwner(let name): "make-owner \(safe(name))"
        case .resetPassword(let name, _): "reset-password \(safe(name))"
        }
    }
}
