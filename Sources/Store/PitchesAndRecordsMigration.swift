import GRDB
import GatherModel

/// The first release's database brought forward to this one's, losing nothing:
/// - the one active gather becomes pitch 1's, and its goals take the new shape (a goal that a
///   first-release −1 took back is marked cancelled, and that `goalCancelled` names it);
/// - every finished gather is pitch 1's (the JSON of old entries reads so; the column says so);
/// - the replies (the exactly-once memory) keep every row, now in a table whose rowid orders
///   them, so the oldest can be pruned per organiser;
/// - every player's rating starts from their skill and is replayed through every finished gather
///   in the order they ended, with the same rule a gather ending now applies, so old and new
///   records always agree.
enum PitchesAndRecordsMigration {
    static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE meta ADD COLUMN next_pitch_id INTEGER NOT NULL DEFAULT 2 CHECK (next_pitch_id >= 2);

            CREATE TABLE pitches (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE COLLATE NOCASE,
                gather_json TEXT
            );
            INSERT INTO pitches (id, name, gather_json)
                VALUES (1, 'Pitch 1', (SELECT json FROM active_gather WHERE id = 1));
            DROP TABLE active_gather;

            ALTER TABLE history ADD COLUMN pitch_id INTEGER NOT NULL DEFAULT 1;

            ALTER TABLE players ADD COLUMN rating INTEGER NOT NULL DEFAULT 1200;
            ALTER TABLE players ADD COLUMN games INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE players ADD COLUMN wins INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE players ADD COLUMN draws INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE players ADD COLUMN losses INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE players ADD COLUMN goals INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE players ADD COLUMN assists INTEGER NOT NULL DEFAULT 0;

            -- Replies get a rowid, the order they were given in, so each organiser's oldest can be pruned.
            CREATE TABLE replies_ordered (
                organiser TEXT NOT NULL,
                command_id TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('ack', 'rejected')),
                version INTEGER NOT NULL,
                code TEXT,
                message TEXT,
                UNIQUE (organiser, command_id)
            );
            INSERT INTO replies_ordered (organiser, command_id, kind, version, code, message)
                SELECT organiser, command_id, kind, version, code, message FROM replies ORDER BY version, command_id;
            DROP TABLE replies;
            ALTER TABLE replies_ordered RENAME TO replies;
            """)
        try normaliseActiveGoals(db)
        try replayRecords(db)
    }

    /// The first release recorded a −1 as a bare `goalCancelled`; it took back that team's
    /// latest goal, which this release marks and names, so `cancelGoal` and −1 see the same truth.
    private static func normaliseActiveGoals(_ db: Database) throws {
        guard let json = try String.fetchOne(db, sql: "SELECT gather_json FROM pitches WHERE id = 1") else { return }
        var gather = try Rows.value(ActiveGather.self, fromJSON: json, what: "active gather")
        for index in gather.events.indices where gather.events[index].kind == .goal && gather.events[index].cancelled == nil {
            gather.events[index].cancelled = false
        }
        for index in gather.events.indices where gather.events[index].kind == .goalCancelled && gather.events[index].cancels == nil {
            let side = gather.events[index].team
            guard let goal = gather.events[..<index].lastIndex(where: {
                $0.kind == .goal && $0.team == side && $0.cancelled != true
            }) else { continue }
            gather.events[goal].cancelled = true
            gather.events[index].cancels = gather.events[goal].seq
        }
        try db.execute(sql: "UPDATE pitches SET gather_json = ? WHERE id = 1", arguments: [Rows.json(gather)])
    }

    private static func replayRecords(_ db: Database) throws {
        var players = try Row.fetchAll(db, sql: "SELECT * FROM players ORDER BY id").map { row in
            var player = try Rows.player(row)
            player.rating = Elo.initialRating(for: player.skill)
            player.stats = .zero
            return player
        }
        let entries = try String.fetchAll(db, sql: "SELECT json FROM history ORDER BY seq")
            .map { try Rows.value(HistoryEntry.self, fromJSON: $0, what: "finished gather") }
        for entry in entries { GatherRules.applyRecords(of: entry, to: &players) }
        for player in players { try Rows.upsert(player, in: db) }
    }
}
