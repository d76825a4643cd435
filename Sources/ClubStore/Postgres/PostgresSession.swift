/// A connection lent for one piece of work (a transaction, or the migrations). Statements are
/// `StaticString`s, so SQL is always written in the source and values always go as parameters.
public final class PostgresSession {
    let connection: PostgresConnection

    init(connection: PostgresConnection) { self.connection = connection }

    /// Runs one statement with text parameters and returns its rows.
    @discardableResult
    public func query(_ sql: StaticString, _ parameters: [any PostgresBindable] = []) throws -> PostgresRows {
        try connection.execute(sql.description, parameters.map(\.postgresText))
    }

    /// `query` for a statement whose rows do not matter; returns the rows affected.
    @discardableResult
    public func execute(_ sql: StaticString, _ parameters: [any PostgresBindable] = []) throws -> Int {
        try query(sql, parameters).affected
    }
}
