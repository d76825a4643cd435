import Foundation
import GRDB
import GatherModel

/// The schema, as named migrations. A migration, once released, is never edited: a later change is a
/// new migration appended here, so that every database ever created can be brought forward.
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1", migrate: createVersion1)
        migrator.registerMigration("v2-pitches-and-records", migrate: PitchesAndRecordsMigration.migrate)
        migrator.registerMigration(OrganisersMigration.identifier, migrate: OrganisersMigration.migrate)
        migrator.registerMigration(PitchLastResultMigration.identifier, migrate: PitchLastResultMigration.migrate)
        migrator.registerMigration(TournamentsMigration.identifier, migrate: TournamentsMigration.migrate)
        migrator.registerMigration(ActivitySentenceMigration.identifier, migrate: ActivitySentenceMigration.migrate)
        migrator.registerMigration(RefereeLinksMigration.identifier, migrate: RefereeLinksMigration.migrate)
        return migrator
    }

    /// Identifiers this build knows, oldest first.
    static var knownMigrations: [String] { migrator.migrations }

    // MARK: - v1

    private static func createVersion1(_ db: Database) throws {
        // The single row that carries the counters. `version` never goes back; `next_player_id`
        // outlives the players it numbered, so a removed player's id is never handed out again.
        try db.execute(sql: """
            CREATE TABLE meta (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                version INTEGER NOT NULL CHECK (version >= 0),
                next_player_id INTEGER NOT NULL CHECK (next_player_id >= 1)
            );
            INSERT INTO meta (id, version, next_player_id) VALUES (1, 0, 1);

            CREATE TABLE organisers (
                username TEXT NOT NULL PRIMARY KEY COLLATE NOCASE,
                password_hash TEXT NOT NULL,
                created_at INTEGER NOT NULL
            );

            CREATE TABLE sessions (
                token_hash TEXT NOT NULL PRIMARY KEY,
                username TEXT NOT NULL COLLATE NOCASE REFERENCES organisers (username) ON DELETE CASCADE,
                created_at INTEGER NOT NULL,
                last_used_at INTEGER NOT NULL
            );
            CREATE INDEX sessions_by_username ON sessions (username);
            CREATE INDEX sessions_by_last_use ON sessions (last_used_at);

            CREATE TABLE players (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                age INTEGER,
                skill TEXT,
                position TEXT,
                favourite_team TEXT
            );

            CREATE TABLE active_gather (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                json TEXT NOT NULL
            );

            CREATE TABLE history (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                id TEXT NOT NULL UNIQUE,
                ended_at INTEGER NOT NULL,
                json TEXT NOT NULL
            );
            CREATE INDEX history_by_end ON history (ended_at, seq);

            CREATE TABLE journal (
                version INTEGER PRIMARY KEY,
                organiser TEXT,
                command_id TEXT,
                kind TEXT NOT NULL,
                subjects TEXT NOT NULL,
                at INTEGER NOT NULL
            );

            CREATE TABLE replies (
                organiser TEXT NOT NULL,
                command_id TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('ack', 'rejected')),
                version INTEGER NOT NULL,
                code TEXT,
                message TEXT,
                PRIMARY KEY (organiser, command_id)
            ) WITHOUT ROWID;
            """)
    }
}
