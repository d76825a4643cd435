import CPostgres

/// What went wrong talking to PostgreSQL, as a value: the SQLSTATE (five characters, when the
/// server sent one) and its message. A URL, and so a password, is never part of it.
public struct PostgresError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// A connection could not be made (server down, wrong credentials, bad URL).
        case connect
        /// The server refused or failed a statement; `sqlState` says why.
        case statement
        /// The connection broke under a statement; a new one is made on the next call.
        case connectionLost
        /// The connection broke while COMMIT was on its way: the change may or may not be kept.
        /// The caller's exactly-once id (a kept reply) settles it when the change is sent again.
        case commitOutcomeUnknown
        /// A value read back did not have the expected type, or a column was missing.
        case decode
        /// A value handed to a statement was refused before it was sent (e.g. an embedded NUL).
        case invalidParameter
    }

    public let kind: Kind
    public let sqlState: String?
    public let message: String
    /// The constraint that refused a row (e.g. `club_members_name`), when the server named one.
    public let constraint: String?

    public init(kind: Kind, sqlState: String? = nil, message: String, constraint: String? = nil) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
        self.constraint = constraint
    }

    /// PostgreSQL's word for "run it again": a serialisation failure or a deadlock.
    public var isSerialisationFailure: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// A unique or exclusion constraint refused the row (e.g. a name taken ignoring case).
    public var isUniqueViolation: Bool { sqlState == "23505" }

    public var description: String {
        "PostgreSQL \(kind.rawValue)" + (sqlState.map { " [\($0)]" } ?? "") + ": \(message)"
    }
}

extension PostgresError {
    /// The error of a failed result (nil result: the connection's own message).
    static func from(result: OpaquePointer?, connection: OpaquePointer?) -> PostgresError {
        let lost = connection.map { PQstatus($0) == CONNECTION_BAD } ?? true
        guard let result else {
            return PostgresError(kind: lost ? .connectionLost : .statement, message: connectionMessage(connection))
        }
        let state = field(result, "C")
        let primary = field(result, "M") ?? String(cString: PQresultErrorMessage(result)).trimmed
        let message = primary.isEmpty ? connectionMessage(connection) : primary
        // 57P01..57P03: the server is shutting down or restarting; the session is gone too.
        let shutdown = state.map { $0.hasPrefix("57P") } ?? false
        return PostgresError(kind: lost || shutdown ? .connectionLost : .statement, sqlState: state, message: message,
                             constraint: field(result, "n"))
    }

    static func connectionMessage(_ connection: OpaquePointer?) -> String {
        guard let connection, let text = PQerrorMessage(connection) else { return "no connection" }
        let message = String(cString: text).trimmed
        return message.isEmpty ? "connection failed" : message
    }

    private static func field(_ result: OpaquePointer, _ code: Unicode.Scalar) -> String? {
        guard let text = PQresultErrorField(result, Int32(UInt8(ascii: code))) else { return nil }
        return String(cString: text)
    }
}

extension String {
    var trimmed: String {
        var text = Substring(self)
        while let last = text.last, last.isWhitespace { text.removeLast() }
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        return String(text)
    }
}
