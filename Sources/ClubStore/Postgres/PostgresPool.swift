import Foundation
import Logging

/// A few connections to one database, lent to one caller at a time, so two requests do not
/// queue behind each other; a caller waits only when all are lent. A connection that broke
/// (PostgreSQL restarted) is replaced when next lent, so the next call works.
public final class PostgresPool: @unchecked Sendable {
    public enum Isolation: Sendable {
        case readCommitted, repeatableRead, serializable

        var begin: StaticString {
            switch self {
            case .readCommitted: "BEGIN ISOLATION LEVEL READ COMMITTED"
            case .repeatableRead: "BEGIN ISOLATION LEVEL REPEATABLE READ"
            case .serializable: "BEGIN ISOLATION LEVEL SERIALIZABLE"
            }
        }
    }

    private let url: String
    private let size: Int
    private let logger: Logger
    private let condition = NSCondition()
    private var idle: [PostgresConnection] = []
    private var open = 0
    private var closed = false

    /// `size` connections at most (1…64); none is opened until needed.
    public init(url: String, size: Int = 4, logger: Logger) {
        self.url = url
        self.size = min(max(size, 1), 64)
        self.logger = logger
    }

    deinit { close() }

    /// Closes the idle connections; lent ones close when given back.
    public func close() {
        condition.lock()
        closed = true
        let connections = idle
        idle.removeAll()
        open -= connections.count
        condition.broadcast()
        condition.unlock()
        connections.forEach { $0.close() }
    }

    /// Lends a connection for `body` outside any transaction (each statement commits alone).
    public func withSession<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        let connection = try acquire()
        defer { release(connection) }
        return try body(PostgresSession(connection: connection))
    }

    /// Runs `body` between BEGIN and COMMIT, with ROLLBACK on any error. A serialisation
    /// failure or deadlock (40001, 40P01), or a connection lost before COMMIT was sent, runs
    /// it again on a fresh transaction, up to `attempts` times with a little random wait, so
    /// `body` must have no effect outside the database. A connection lost during COMMIT
    /// is `.commitOutcomeUnknown`, never retried here: only the caller knows whether running
    /// the change twice is safe (its kept reply says whether the first got through).
    public func transaction<T>(isolation: Isolation = .readCommitted, attempts: Int = 5,
                               _ body: (PostgresSession) throws -> T) throws -> T {
        let limit = min(max(attempts, 1), 20)
        var attempt = 1
        while true {
            do {
                return try withSession { session in try once(session, isolation: isolation, body) }
            } catch let error as PostgresError
                where attempt < limit && (error.isSerialisationFailure || error.kind == .connectionLost) {
                logger.debug("postgres transaction retried", metadata: [
                    "postgres.sqlstate": "\(error.sqlState ?? "-")", "postgres.kind": "\(error.kind.rawValue)",
                    "postgres.attempt": "\(attempt)",
                ])
                attempt += 1
                // 1–10 ms, growing with the attempt: two writers that collided rarely collide again.
                usleep(UInt32.random(in: 1_000...10_000) * UInt32(attempt - 1))
            }
        }
    }

    private func once<T>(_ session: PostgresSession, isolation: Isolation,
                         _ body: (PostgresSession) throws -> T) throws -> T {
        try session.execute(isolation.begin)
        let value: T
        do {
            value = try body(session)
        } catch {
            rollback(session)
            throw error
        }
        do {
            try session.execute("COMMIT")
        } catch let error as PostgresError where error.kind == .connectionLost {
            throw PostgresError(kind: .commitOutcomeUnknown, sqlState: error.sqlState, message: error.message)
        } catch {
            rollback(session)
            throw error
        }
        return value
    }

    private func rollback(_ session: PostgresSession) {
        guard session.connection.isOK, session.connection.inTransaction else { return }
        do { try session.execute("ROLLBACK") } catch {
            logger.warning("postgres rollback failed", metadata: ["postgres.error": "\(error)"])
        }
    }

    private func acquire() throws -> PostgresConnection {
        condition.lock()
        while !closed && idle.isEmpty && open >= size { condition.wait() }
        if closed {
            condition.unlock()
            throw PostgresError(kind: .connect, message: "the pool is closed")
        }
        if let connection = idle.popLast() {
            condition.unlock()
            if connection.isAliveWhenIdle() { return connection }
            do {
                try connection.reconnect()
                logger.info("postgres connection replaced")
                return connection
            } catch {
                discard(connection)
                throw error
            }
        }
        open += 1
        condition.unlock()
        do {
            return try PostgresConnection(url: url)
        } catch {
            condition.lock()
            open -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func release(_ connection: PostgresConnection) {
        if connection.isOK && connection.inTransaction {
            // A caller that left a transaction open (it threw between BEGIN and COMMIT).
            _ = try? connection.execute("ROLLBACK", [])
        }
        guard connection.isOK, !connection.inTransaction else { return discard(connection) }
        condition.lock()
        if closed {
            open -= 1
            condition.unlock()
            connection.close()
            return
        }
        idle.append(connection)
        condition.signal()
        condition.unlock()
    }

    private func discard(_ connection: PostgresConnection) {
        connection.close()
        condition.lock()
        open -= 1
        condition.signal()
        condition.unlock()
    }
}
