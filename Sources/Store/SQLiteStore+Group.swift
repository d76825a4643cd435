import GRDB

// MARK: - The group's accounts

/// Each change is one transaction that checks its own rules (unknown name, the owner), so the
/// running server and `gather organisers` on a stopped server apply exactly the same ones.
extension SQLiteStore {
    public func organisers(sessionsUsedSince usedSince: Int64) throws -> [StoredOrganiser] {
        try writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT organisers.*, (SELECT COUNT(*) FROM sessions
                                      WHERE sessions.username = organisers.username AND last_used_at >= ?) AS live
                FROM organisers WHERE removed_at IS NULL ORDER BY created_at, rowid
                """, arguments: [usedSince]).map { Self.storedOrganiser($0, sessions: $0["live"]) }
        }
    }

    public func inviteCode() throws -> String? {
        try writer.read { db in try String.fetchOne(db, sql: "SELECT invite_code FROM meta WHERE id = 1") }
    }

    public func setInviteCode(_ code: String) throws {
        try writer.write { db in try db.execute(sql: "UPDATE meta SET invite_code = ? WHERE id = 1", arguments: [code]) }
    }

    public func removeOrganiser(username: String, at: Int64) throws -> AccountChange {
        try writer.write { db in
            guard let row = try Self.activeRow(db, username) else { return .notFound }
            if row["owner"] as Bool { return .isOwner }
            let name: String = row["username"]
            let ended = try Self.deleteSessions(db, name, except: nil)
            try db.execute(sql: "UPDATE organisers SET removed_at = ?, password_hash = '' WHERE username = ?",
                           arguments: [at, name])
            return .done(username: name, sessionsEnded: ended)
        }
    }

    public func makeOwner(username: String) throws -> AccountChange {
        try writer.write { db in
            guard let row = try Self.activeRow(db, username) else { return .notFound }
            let name: String = row["username"]
            // Demote first: the unique index allows one owner at any moment, inside the transaction too.
            try db.execute(sql: "UPDATE organisers SET owner = 0 WHERE owner = 1")
            try db.execute(sql: "UPDATE organisers SET owner = 1 WHERE username = ?", arguments: [name])
            return .done(username: name, sessionsEnded: 0)
        }
    }

    public func setPassword(username: String, passwordHash: String, keeping tokenHash: String?) throws -> AccountChange {
        try writer.write { db in
            guard let row = try Self.activeRow(db, username) else { return .notFound }
            let name: String = row["username"]
            try db.execute(sql: "UPDATE organisers SET password_hash = ? WHERE username = ?",
                           arguments: [passwordHash, name])
            return .done(username: name, sessionsEnded: try Self.deleteSessions(db, name, except: tokenHash))
        }
    }

    public func deleteSessions(username: String) throws -> Int {
        try writer.write { db in try Self.deleteSessions(db, username, except: nil) }
    }

    public func touchLastSeen(username: String, at: Int64) throws {
        try writer.write { db in
            try db.execute(sql: "UPDATE organisers SET last_seen_at = MAX(COALESCE(last_seen_at, 0), ?) WHERE username = ?",
                           arguments: [at, username])
        }
    }

    public func activity(before: Int?, limit: Int) throws -> [JournalEntry] {
        try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM journal WHERE version < ? ORDER BY version DESC LIMIT ?",
                             arguments: [before ?? Int.max, limit]).map(Rows.journalEntry)
        }
    }

    // MARK: Parts

    private static func activeRow(_ db: Database, _ username: String) throws -> Row? {
        try Row.fetchOne(db, sql: "SELECT * FROM organisers WHERE username = ? AND removed_at IS NULL",
                         arguments: [username])
    }

    private static func deleteSessions(_ db: Database, _ username: String, except tokenHash: String?) throws -> Int {
        try db.execute(sql: "DELETE FROM sessions WHERE username = ? AND token_hash IS NOT ?",
                       arguments: [username, tokenHash])
        return db.changesCount
    }
}
