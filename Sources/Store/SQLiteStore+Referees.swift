import GRDB
import GatherModel

// MARK: - Referee links and their sessions

extension SQLiteStore {
    /// Every link kept (expired ones included: the Coordinator ends them at start), oldest first.
    public func refereeLinks() throws -> [StoredRefereeLink] {
        try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM referee_links ORDER BY id").map { row in
                StoredRefereeLink(link: RefereeLink(id: row["id"], pitch: row["pitch"], label: row["label"],
                                                    expiresAt: row["expires_at"], createdAt: row["created_at"],
                                                    createdBy: row["created_by"]),
                                  codeHash: row["code_hash"])
            }
        }
    }

    /// Inserts a link under its code's hash; returns the id it was given (never reused).
    public func insertRefereeLink(codeHash: String, pitch: Int, label: String, createdBy: String, at: Int64,
                                  expiresAt: Int64) throws -> Int {
        try writer.write { db in
            try db.execute(sql: """
                INSERT INTO referee_links (code_hash, pitch, label, created_by, created_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [codeHash, pitch, label, createdBy, at, expiresAt])
            return Int(db.lastInsertedRowID)
        }
    }

    /// Deletes the links and, with them, every session they opened.
    public func deleteRefereeLinks(_ ids: [Int]) throws {
        guard !ids.isEmpty else { return }
        try writer.write { db in
            for id in ids { try db.execute(sql: "DELETE FROM referee_links WHERE id = ?", arguments: [id]) }
        }
    }

    /// Every live referee session: its token's hash and its link.
    public func refereeSessions() throws -> [(tokenHash: String, link: Int)] {
        try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT token_hash, link_id FROM referee_sessions ORDER BY created_at, token_hash")
                .map { ($0["token_hash"], $0["link_id"]) }
        }
    }

    /// Throws when the link is gone (the foreign key), so a session never outlives its link.
    public func insertRefereeSession(tokenHash: String, link: Int, at: Int64) throws {
        try writer.write { db in
            try db.execute(sql: "INSERT INTO referee_sessions (token_hash, link_id, created_at) VALUES (?, ?, ?)",
                           arguments: [tokenHash, link, at])
        }
    }

    public func deleteRefereeSession(tokenHash: String) throws {
        try writer.write { db in
            try db.execute(sql: "DELETE FROM referee_sessions WHERE token_hash = ?", arguments: [tokenHash])
        }
    }
}
