import GRDB
import GatherModel

// MARK: - Loading

extension SQLiteStore {
    public func load() throws -> LoadedState {
        try writer.read { db in
            guard let meta = try Row.fetchOne(db, sql: "SELECT version, next_player_id, next_pitch_id FROM meta WHERE id = 1")
            else {
                throw StoreError("The database has no version counter; it may be damaged.")
            }
            let players = try Row.fetchAll(db, sql: "SELECT * FROM players ORDER BY id").map(Rows.player)
            let pitches = try Row.fetchAll(db, sql: "SELECT * FROM pitches ORDER BY id").map(Rows.pitch)
            guard pitches.first?.id == Pitch.firstID else {
                throw StoreError("The database has no pitch 1; it may be damaged.")
            }
            let history = try Self.history(db, limit: GatherState.recentHistoryLimit)
            // The counter is authoritative; the max only guards against a hand-edited database.
            let nextPlayerID = max(meta["next_player_id"] as Int, (players.last?.id ?? 0) + 1)
            let nextPitchID = max(meta["next_pitch_id"] as Int, (pitches.last?.id ?? 0) + 1)
            let state = GatherState(players: players, pitches: pitches, history: history, nextPlayerID: nextPlayerID,
                                    nextPitchID: nextPitchID, tournament: try Self.activeTournament(db))
            return LoadedState(state: state, version: meta["version"])
        }
    }

    public func journal(after version: Int) throws -> [JournalEntry] {
        try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM journal WHERE version > ? ORDER BY version", arguments: [version])
                .map(Rows.journalEntry)
        }
    }

    public func allHistory() throws -> [HistoryEntry] {
        try writer.read { db in try Self.history(db, limit: nil) }
    }

    /// Newest first. Ties on `ended_at` (or a clock set back) keep the order the gathers ended in,
    /// which is also the order the live state holds them in, so a restart rebuilds it exactly.
    private static func history(_ db: Database, limit: Int?) throws -> [HistoryEntry] {
        try String.fetchAll(db, sql: "SELECT json FROM history ORDER BY seq DESC LIMIT ?", arguments: [limit ?? -1])
            .map { try Rows.value(HistoryEntry.self, fromJSON: $0, what: "finished gather") }
    }
}

// MARK: - Committing

extension SQLiteStore {
    public func commit(before: GatherState, after: GatherState, entry: JournalEntry, replyKey: String?) throws {
        try Self.namingAFullDisk { try writer.write { db in
            try Self.advanceCounters(db, version: entry.version, nextPlayerID: after.nextPlayerID,
                                     nextPitchID: after.nextPitchID)
            try Self.writePlayers(db, before: before.players, after: after.players)
            try Self.writePitches(db, before: before.pitches, after: after.pitches)
            try Self.writeHistory(db, before: before.history, after: after.history)
            try Self.writeTournament(db, before: before.tournament, after: after.tournament)
            try Rows.insert(entry, in: db)
            if let organiser = replyKey ?? entry.organiser, let commandID = entry.commandID {
                // A plain insert: if this id was already answered, the whole change is refused rather
                // than applied twice.
                try Self.insertReply(db, .ack(version: entry.version), organiser: organiser, commandID: commandID,
                                     keepingEarlier: false)
            }
        } }
    }

    public func recordReply(_ reply: StoredReply, organiser: String, commandID: String) throws {
        try Self.namingAFullDisk { try writer.write { db in
            try Self.insertReply(db, reply, organiser: organiser, commandID: commandID, keepingEarlier: true)
        } }
    }

    /// SQLite's `SQLITE_FULL` (the disk, or `max_page_count`, is full; the transaction was rolled
    /// back) as a `StoreError` of kind `.full`, so the Coordinator can say so in one sentence.
    private static func namingAFullDisk(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
            throw StoreError("The disk holding the database is full; nothing was saved (\(error.message ?? "SQLITE_FULL")).",
                             kind: .full)
        }
    }

    public func prune(journalKept: Int, repliesPerOrganiser: Int) throws {
        try writer.write { db in
            try db.execute(sql: "DELETE FROM journal WHERE version <= (SELECT MAX(version) FROM journal) - ?",
                           arguments: [journalKept])
            try db.execute(sql: """
                DELETE FROM replies WHERE rowid IN (
                    SELECT rowid FROM (
                        SELECT rowid, ROW_NUMBER() OVER (PARTITION BY organiser ORDER BY rowid DESC) AS age FROM replies
                    ) WHERE age > ?)
                """, arguments: [repliesPerOrganiser])
        }
    }

    public func keptReplies() throws -> [KeptReply] {
        try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM replies ORDER BY rowid").map { row in
                KeptReply(organiser: row["organiser"], commandID: row["command_id"], reply: try Rows.storedReply(row))
            }
        }
    }

    /// The answer kept for one id (the Coordinator reads `keptReplies()` once instead).
    public func reply(organiser: String, commandID: String) throws -> StoredReply? {
        try writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM replies WHERE organiser = ? AND command_id = ?",
                             arguments: [organiser, commandID]).map(Rows.storedReply)
        }
    }

    // MARK: Parts of a commit

    private static func advanceCounters(_ db: Database, version: Int, nextPlayerID: Int, nextPitchID: Int) throws {
        try db.execute(sql: """
            UPDATE meta SET version = ?, next_player_id = MAX(next_player_id, ?), next_pitch_id = MAX(next_pitch_id, ?)
            WHERE id = 1 AND version < ?
            """, arguments: [version, nextPlayerID, nextPitchID, version])
        guard db.changesCount == 1 else {
            let stored = try Int.fetchOne(db, sql: "SELECT version FROM meta WHERE id = 1") ?? -1
            throw StoreError("Version \(version) was refused because version \(stored) is already stored; versions never go back.")
        }
    }

    private static func writePlayers(_ db: Database, before: [Player], after: [Player]) throws {
        let previous = Dictionary(before.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for player in after where previous[player.id] != player {
            try Rows.upsert(player, in: db)
        }
        let remaining = Set(after.map(\.id))
        for player in before where !remaining.contains(player.id) {
            try db.execute(sql: "DELETE FROM players WHERE id = ?", arguments: [player.id])
        }
    }

    private static func writePitches(_ db: Database, before: [Pitch], after: [Pitch]) throws {
        let previous = Dictionary(before.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let remaining = Set(after.map(\.id))
        for pitch in before where !remaining.contains(pitch.id) {
            try db.execute(sql: "DELETE FROM pitches WHERE id = ?", arguments: [pitch.id])
        }
        for pitch in after where previous[pitch.id] != pitch {
            try Rows.upsert(pitch, in: db)
        }
    }

    /// Gathers that `after` holds and `before` did not have just ended; they are appended oldest first.
    /// An entry both hold that changed (a corrected result) is rewritten in its row, keeping its place.
    /// Entries that fell off the live list's end stay in the table.
    private static func writeHistory(_ db: Database, before: [HistoryEntry], after: [HistoryEntry]) throws {
        let known = Dictionary(before.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for entry in after.reversed() {
            if let previous = known[entry.id] {
                guard previous != entry else { continue }
                try db.execute(sql: "UPDATE history SET json = ? WHERE id = ?", arguments: [Rows.json(entry), entry.id])
            } else {
                try db.execute(sql: "INSERT INTO history (id, ended_at, pitch_id, json) VALUES (?, ?, ?, ?)",
                               arguments: [entry.id, entry.endedAt, entry.pitch.id, Rows.json(entry)])
            }
        }
    }

    private static func insertReply(_ db: Database, _ reply: StoredReply, organiser: String, commandID: String,
                                    keepingEarlier: Bool) throws
    {
        let columns = try Rows.columns(of: reply)
        try db.execute(sql: """
            INSERT INTO replies (organiser, command_id, kind, version, code, message, sentence) VALUES (?, ?, ?, ?, ?, ?, ?)
            \(keepingEarlier ? "ON CONFLICT (organiser, command_id) DO NOTHING" : "")
            """, arguments: [organiser, commandID, columns.kind, columns.version, columns.code, columns.message,
                             columns.sentence])
    }
}
