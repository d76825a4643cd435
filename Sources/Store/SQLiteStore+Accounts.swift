import GRDB

// MARK: - Organisers

extension SQLiteStore {
    /// The `COLLATE NOCASE` primary key makes "Ann" and "ann" one account, so the check and the insert
    /// are a single statement and two simultaneous registrations cannot both win. A removed account's
    /// tombstone keeps its name taken. The first account of the group becomes its owner.
    public func insertOrganiser(username: String, passwordHash: String, at: Int64) throws -> Bool {
        try writer.write { db in
            try db.execute(sql: """
                INSERT INTO organisers (username, password_hash, created_at, last_seen_at, owner)
                VALUES (?, ?, ?, ?, NOT EXISTS (SELECT 1 FROM organisers WHERE owner = 1))
                ON CONFLICT (username) DO NOTHING
                """, arguments: [username, passwordHash, at, at])
            return db.changesCount == 1
        }
    }

    /// An account that can log in (a removed one is not found).
    public func organiser(username: String) throws -> StoredOrganiser? {
        try writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM organisers WHERE username = ? AND removed_at IS NULL",
                             arguments: [username]).map { Self.storedOrganiser($0, sessions: 0) }
        }
    }

    static func storedOrganiser(_ row: Row, sessions: Int) -> StoredOrganiser {
        StoredOrganiser(username: row["username"], passwordHash: row["password_hash"], createdAt: row["created_at"],
                        owner: row["owner"], lastSeenAt: row["last_seen_at"], sessions: sessions)
    }
}

// MARK: - Sessions

extension SQLiteStore {
    /// Throws when `username` is not a registered organiser (the foreign key), so a token can never
    /// outlive or precede its account.
    public func insertSession(tokenHash: String, username: String, at: Int64) throws {
        try writer.write { db in
            try db.execute(sql: """
                INSERT INTO sessions (token_hash, username, created_at, last_used_at) VALUES (?, ?, ?, ?)
                """, arguments: [tokenHash, username, at, at])
        }
    }

    /// Deletes every session unused since `usedSince` (expired tokens are worthless and are hashes of
    /// secrets), then answers for `tokenHash` with the username as registered and touches its last use.
    public func sessionUsername(tokenHash: String, usedSince: Int64, now: Int64) throws -> String? {
        try writer.write { db in
            try db.execute(sql: "DELETE FROM sessions WHERE last_used_at < ?", arguments: [usedSince])
            let username = try String.fetchOne(db, sql: """
                SELECT organisers.username FROM sessions JOIN organisers ON organisers.username = sessions.username
                WHERE sessions.token_hash = ?
                """, arguments: [tokenHash])
            if username != nil {
                try db.execute(sql: "UPDATE sessions SET last_used_at = MAX(last_used_at, ?) WHERE token_hash = ?",
                               arguments: [now, tokenHash])
            }
            return username
        }
    }

    public func deleteSession(tokenHash: String) throws {
        try writer.write { db in
            try db.execute(sql: "DELETE FROM sessions WHERE token_hash = ?", arguments: [tokenHash])
        }
    }
}
