import CPostgres
import Foundation
import Glibc
import Logging

/// `LISTEN` on a connection of its own, on a thread of its own: it waits on the socket with
/// poll(2) (a timeout, so `stop` is seen), reads with `PQconsumeInput` and hands each
/// notification to `events` on `queue` (never blocking the thread on the receiver). When the
/// connection breaks it connects again, LISTENs again and reports `.listening(reconnected:
/// true)`: notifications sent meanwhile are lost, so the receiver reads everything again.
public final class PostgresListener: @unchecked Sendable {
    public enum Event: Sendable, Equatable {
        /// LISTEN is in force; `reconnected` after a loss (re-read what you show).
        case listening(reconnected: Bool)
        case notification(channel: String, payload: String)
    }

    private let url: String
    private let channels: [String]
    private let logger: Logger
    private let queue: DispatchQueue
    private let events: @Sendable (Event) -> Void
    private let lock = NSLock()
    private var stopping = false
    private let finished = DispatchSemaphore(value: 0)
    private var thread: Thread?

    /// `channels`: 1…8 names of `a-z`, `0-9`, `_` (starting with a letter, at most 63), as
    /// LISTEN takes an identifier, not a parameter; anything else is refused here.
    public init(url: String, channels: [String], queue: DispatchQueue, logger: Logger,
                events: @escaping @Sendable (Event) -> Void) throws {
        guard (1...8).contains(channels.count), channels.allSatisfy(PostgresListener.isChannelName) else {
            throw PostgresError(kind: .invalidParameter, message: "channel names are 1-63 of a-z0-9_, from a letter")
        }
        self.url = url
        self.channels = channels
        self.queue = queue
        self.logger = logger
        self.events = events
    }

    static func isChannelName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first), name.utf8.count <= 63 else {
            return false
        }
        return name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }

    /// Starts the thread (once).
    public func start() {
        lock.lock()
        defer { lock.unlock() }
        guard thread == nil, !stopping else { return }
        let thread = Thread { [self] in run() }
        thread.name = "club.postgres.listen"
        self.thread = thread
        thread.start()
    }

    /// Stops the thread and waits for it (at most one poll timeout and a connect timeout).
    public func stop() {
        lock.lock()
        let wasRunning = thread != nil && !stopping
        stopping = true
        lock.unlock()
        if wasRunning { finished.wait() }
    }

    private var isStopping: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopping
    }

    private func run() {
        defer { finished.signal() }
        var everListened = false
        var backoffMs: UInt32 = 50
        while !isStopping {
            let connection: PostgresConnection
            do {
                connection = try PostgresConnection(url: url, connectTimeoutSeconds: 2)
                for channel in channels {
                    // The name was checked against [a-z][a-z0-9_]*: safe as an identifier.
                    _ = try connection.execute("LISTEN \"\(channel)\"", [])
                }
            } catch {
                logger.warning("postgres listener cannot connect", metadata: ["postgres.error": "\(error)"])
                sleepUnlessStopping(ms: backoffMs)
                backoffMs = min(backoffMs * 2, 2_000)
                continue
            }
            backoffMs = 50
            let reconnected = everListened
            everListened = true
            deliver(.listening(reconnected: reconnected))
            if reconnected { logger.info("postgres listener reconnected") }
            pump(connection)
            connection.close()
        }
    }

    /// Reads notifications until the connection breaks or `stop` is called.
    private func pump(_ connection: PostgresConnection) {
        guard let handle = connection.handle else { return }
        while !isStopping {
            let socket = PQsocket(handle)
            guard socket >= 0 else { return }
            var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, 200)
            if ready < 0 {
                if errno == EINTR { continue }
                logger.warning("postgres listener poll failed", metadata: ["postgres.errno": "\(errno)"])
                return
            }
            if ready == 0 { continue }
            guard PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK else {
                logger.warning("postgres listener lost its connection",
                               metadata: ["postgres.error": "\(PostgresError.connectionMessage(handle))"])
                return
            }
            while let note = PQnotifies(handle) {
                let channel = String(cString: note.pointee.relname)
                let payload = note.pointee.extra.map { String(cString: $0) } ?? ""
                PQfreemem(note)
                deliver(.notification(channel: channel, payload: payload))
            }
        }
    }

    private func deliver(_ event: Event) {
        let events = self.events
        queue.async { events(event) }
    }

    private func sleepUnlessStopping(ms: UInt32) {
        var left = Int(ms)
        while left > 0 && !isStopping {
            usleep(UInt32(min(left, 50)) * 1_000)
            left -= 50
        }
    }
}
