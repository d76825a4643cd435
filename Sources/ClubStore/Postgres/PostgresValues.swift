/// A value that can be sent as a statement's text parameter: statements are always
/// parameterised (`$1`, `$2`…), never built from values, so no input can become SQL.
public protocol PostgresBindable {
    /// PostgreSQL's text form of the value; nil is SQL NULL.
    var postgresText: String? { get }
}

extension String: PostgresBindable { public var postgresText: String? { self } }
extension Substring: PostgresBindable { public var postgresText: String? { String(self) } }
extension Int: PostgresBindable { public var postgresText: String? { String(self) } }
extension Int64: PostgresBindable { public var postgresText: String? { String(self) } }
extension Int32: PostgresBindable { public var postgresText: String? { String(self) } }
extension Bool: PostgresBindable { public var postgresText: String? { self ? "t" : "f" } }
extension Optional: PostgresBindable where Wrapped: PostgresBindable {
    public var postgresText: String? { self?.postgresText }
}

/// An integer array parameter (`int[]`), in PostgreSQL's text form `{1,2,3}`.
public struct PostgresIntArray: PostgresBindable, Sendable {
    public let values: [Int]
    public init(_ values: [Int]) { self.values = values }
    public var postgresText: String? { "{" + values.map(String.init).joined(separator: ",") + "}" }
}

/// The rows of one result, copied out of libpq's buffer (so the result is freed at once).
public struct PostgresRows: Sendable {
    public let columns: [String]
    public let rows: [PostgresRow]
    /// `PQcmdTuples`: rows inserted, updated or deleted (0 when the statement says nothing).
    public let affected: Int

    public var first: PostgresRow? { rows.first }
    public var count: Int { rows.count }
}

/// One row, read by column name with a typed accessor; a missing column or a value of
/// another type is a `PostgresError` of kind `.decode`, never a crash.
public struct PostgresRow: Sendable {
    let index: [String: Int]
    let values: [String?]

    public func optionalString(_ column: String) throws -> String? {
        guard let at = index[column] else {
            throw PostgresError(kind: .decode, message: "no column \(column)")
        }
        return values[at]
    }

    public func string(_ column: String) throws -> String {
        guard let text = try optionalString(column) else { throw PostgresRow.null(column) }
        return text
    }

    public func optionalInt64(_ column: String) throws -> Int64? {
        guard let text = try optionalString(column) else { return nil }
        guard let value = Int64(text) else { throw PostgresRow.wrongType(column, "an integer") }
        return value
    }

    public func int64(_ column: String) throws -> Int64 {
        guard let value = try optionalInt64(column) else { throw PostgresRow.null(column) }
        return value
    }

    public func int(_ column: String) throws -> Int {
        guard let value = Int(exactly: try int64(column)) else { throw PostgresRow.wrongType(column, "an Int") }
        return value
    }

    public func optionalBool(_ column: String) throws -> Bool? {
        switch try optionalString(column) {
        case nil: return nil
        case "t": return true
        case "f": return false
        default: throw PostgresRow.wrongType(column, "a boolean")
        }
    }

    public func bool(_ column: String) throws -> Bool {
        guard let value = try optionalBool(column) else { throw PostgresRow.null(column) }
        return value
    }

    /// An `int[]` column (`{48,4}`; `{}` is empty).
    public func intArray(_ column: String) throws -> [Int] {
        let text = try string(column)
        guard text.hasPrefix("{"), text.hasSuffix("}") else { throw PostgresRow.wrongType(column, "an int[]") }
        let inner = text.dropFirst().dropLast()
        if inner.isEmpty { return [] }
        return try inner.split(separator: ",").map {
            guard let value = Int($0) else { throw PostgresRow.wrongType(column, "an int[]") }
            return value
        }
    }

    private static func null(_ column: String) -> PostgresError {
        PostgresError(kind: .decode, message: "column \(column) is NULL")
    }

    private static func wrongType(_ column: String, _ expected: String) -> PostgresError {
        PostgresError(kind: .decode, message: "column \(column) is not \(expected)")
    }
}

/// A `text[]` parameter in PostgreSQL's array literal form, every element quoted and escaped
/// (nil is NULL): lets one statement carry many rows through `unnest`, still as a parameter.
public struct PostgresTextArray: PostgresBindable, Sendable {
    public let values: [String?]
    public init(_ values: [String?]) { self.values = values }

    public var postgresText: String? {
        "{" + values.map { value in
            guard let value else { return "NULL" }
            var quoted = "\""
            for character in value.unicodeScalars {
                if character == "\"" || character == "\\" { quoted.unicodeScalars.append("\\") }
                quoted.unicodeScalars.append(character)
            }
            return quoted + "\""
        }.joined(separator: ",") + "}"
    }
}
