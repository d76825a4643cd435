import CPostgres
import Glibc

/// One libpq connection, used by one thread at a time (the pool hands it out; the listener
/// keeps its own). Statements are sent with `PQexecParams` and text parameters only.
final class PostgresConnection {
    private(set) var handle: OpaquePointer?
    private let url: String

    /// Connects to `url` (a `postgresql://` URI or a key=value string), failing within
    /// `connectTimeoutSeconds`. The error carries libpq's message, which never repeats a password.
    init(url: String, connectTimeoutSeconds: Int = 5) throws {
        self.url = url
        handle = try PostgresConnection.connect(url: url, timeout: connectTimeoutSeconds)
    }

    deinit { close() }

    func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// Whether libpq still believes the connection is up (a server gone quiet is found out
    /// by `discardIfDead` or by the next statement).
    var isOK: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// Whether a transaction is open or failed on this connection (it must be rolled back
    /// before the connection goes back to the pool).
    var inTransaction: Bool {
        guard let handle else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// An idle connection whose server went away has something to read (the server's
    /// "terminating connection" and EOF): read it without blocking, and say whether it is
    /// still good. So a pooled connection left over from before a restart is replaced
    /// before a statement is sent on it.
    func isAliveWhenIdle() -> Bool {
        guard let handle, PQstatus(handle) == CONNECTION_OK else { return false }
        let socket = PQsocket(handle)
        guard socket >= 0 else { return false }
        var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let ready = poll(&entry, 1, 0)
        if ready < 0 { return false }
        if ready == 0 { return true }
        if PQconsumeInput(handle) == 0 { return false }
        // Drain whatever came (a NOTIFY on a pooled connection is not ours to keep).
        while let note = PQnotifies(handle) { PQfreemem(note) }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// Drops the broken session and makes a new one to the same URL.
    func reconnect() throws {
        close()
        handle = try PostgresConnection.connect(url: url, timeout: 5)
    }

    /// Runs one statement with text parameters (`$1`…); a failure is a `PostgresError`
    /// carrying the SQLSTATE. The connection is not used again by libpq after this returns.
    func execute(_ sql: String, _ parameters: [String?]) throws -> PostgresRows {
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            throw PostgresError(kind: .connectionLost, message: "not connected")
        }
        guard parameters.count <= 65_535 else {
            throw PostgresError(kind: .invalidParameter, message: "too many parameters")
        }
        for case let text? in parameters where text.utf8.contains(0) {
            throw PostgresError(kind: .invalidParameter, message: "a text value holds a NUL character")
        }
        let result = withCStrings(parameters) { values in
            PQexecParams(handle, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
        defer { if let result { PQclear(result) } }
        guard let result else { throw PostgresError.from(result: nil, connection: handle) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            return PostgresConnection.rows(of: result)
        default:
            throw PostgresError.from(result: result, connection: handle)
        }
    }

    private static func rows(of result: OpaquePointer) -> PostgresRows {
        let columnCount = Int(PQnfields(result))
        let rowCount = Int(PQntuples(result))
        var columns: [String] = []
        var index: [String: Int] = [:]
        for column in 0..<columnCount {
            let name = PQfname(result, Int32(column)).map { String(cString: $0) } ?? "?column?"
            columns.append(name)
            if index[name] == nil { index[name] = column }
        }
        var rows: [PostgresRow] = []
        rows.reserveCapacity(rowCount)
        for row in 0..<rowCount {
            var values: [String?] = []
            values.reserveCapacity(columnCount)
            for column in 0..<columnCount {
                if PQgetisnull(result, Int32(row), Int32(column)) == 1 {
                    values.append(nil)
                } else {
                    values.append(String(cString: PQgetvalue(result, Int32(row), Int32(column))))
                }
            }
            rows.append(PostgresRow(index: index, values: values))
        }
        let affected = PQcmdTuples(result).map { Int(String(cString: $0)) ?? 0 } ?? 0
        return PostgresRows(columns: columns, rows: rows, affected: affected)
    }

    private static func connect(url: String, timeout: Int) throws -> OpaquePointer {
        // expand_dbname = 1: `dbname` may hold a whole URI; connect_timeout bounds a dead host.
        let keywords = ["dbname", "connect_timeout", "application_name"]
        let values = [url, String(max(1, timeout)), "gather-club"]
        let handle: OpaquePointer? = withCStrings(keywords) { keys in
            withCStrings(values) { vals in PQconnectdbParams(keys, vals, 1) }
        }
        guard let handle else { throw PostgresError(kind: .connect, message: "out of memory") }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = PostgresError.connectionMessage(handle)
            PQfinish(handle)
            throw PostgresError(kind: .connect, message: message)
        }
        // libpq prints the server's notices (and its "terminating connection" on a restart) to
        // stderr by default; they are chatter here: errors come back as results and are thrown.
        guard PQsetNoticeProcessor(handle, { _, _ in }, nil) != nil else {
            PQfinish(handle)
            throw PostgresError(kind: .connect, message: "cannot set the notice processor")
        }
        return handle
    }
}

/// Calls `body` with a NULL-terminated C array of the strings (nil stays NULL), freeing them after.
func withCStrings<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies: [UnsafeMutablePointer<CChar>?] = strings.map { $0.flatMap { strdup($0) } }
    defer { copies.forEach { free($0) } }
    let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } } + [nil]
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
