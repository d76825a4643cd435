import GRDB
import GatherModel

/// Tournaments in the database (`TournamentsMigration`): written inside the commit of the change
/// that touched them, so a match's result and its history entry land in one transaction.
extension SQLiteStore {
    /// Every tournament kept, newest first, with whether it was cancelled (`/api/tournaments.json`).
    /// Callable from any thread while the coordinator writes.
    public func allTournaments() throws -> [(tournament: Tournament, cancelled: Bool)] {
        try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT id, cancelled, json FROM tournaments ORDER BY seq DESC").map { row in
                (try Rows.value(Tournament.self, fromJSON: row["json"], what: "tournament \(row["id"] as String)"),
                 row["cancelled"] as Bool)
            }
        }
    }

    /// The state's tournament: the newest one, unless it was cancelled.
    static func activeTournament(_ db: Database) throws -> Tournament? {
        guard let row = try Row.fetchOne(db, sql: "SELECT id, cancelled, json FROM tournaments ORDER BY seq DESC LIMIT 1"),
              !(row["cancelled"] as Bool)
        else { return nil }
        return try Rows.value(Tournament.self, fromJSON: row["json"], what: "tournament \(row["id"] as String)")
    }

    /// A new or changed tournament is written whole; one that left the state without another
    /// taking its place was cancelled (a finished one stays until the next is created, which
    /// keeps it as it was).
    static func writeTournament(_ db: Database, before: Tournament?, after: Tournament?) throws {
        if let after, after != before {
            try db.execute(sql: """
                INSERT INTO tournaments (id, json) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET json = excluded.json
                """, arguments: [after.id, Rows.json(after)])
        }
        if let before, after == nil {
            try db.execute(sql: "UPDATE tournaments SET cancelled = 1 WHERE id = ?", arguments: [before.id])
        }
    }
}
