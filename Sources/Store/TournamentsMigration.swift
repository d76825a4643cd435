import GRDB

/// The tournaments of the venue: the active one (in the state until the next `createTournament`
/// or `cancelTournament`) and every finished or cancelled one, kept for `/api/tournaments.json`.
///
/// Only a new table, so nothing already stored changes and it can follow any earlier step. One
/// row per tournament, its value as JSON (like the active gathers and history): a tournament is
/// read and written whole, and its derived parts are settled again by the model anyway. The row
/// with the highest `seq` is the state's tournament unless it was cancelled.
enum TournamentsMigration {
    static let identifier = "tournaments"

    static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE tournaments (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                id TEXT NOT NULL UNIQUE,
                cancelled INTEGER NOT NULL DEFAULT 0 CHECK (cancelled IN (0, 1)),
                json TEXT NOT NULL
            )
            """)
    }
}
