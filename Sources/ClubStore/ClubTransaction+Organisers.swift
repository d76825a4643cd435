import ClubModel

/// Organiser accounts, their tokens (SHA-256 only) and the login limiter shared by every instance.
extension ClubTransaction {
    /// `pg_advisory_xact_lock` key that makes "the first account owns the club" decided once.
    static let organisersLockKey: Int64 = 0x636C_7562_4F52_4741

    /// Registers `username`; the first account is the owner (decided under a database lock,
    /// and an index allows one owner). nil when the username is taken ignoring case.
    public func insertOrganiser(username: String, passwordHash: String, now: Millis) throws -> ClubOrganiser? {
        try session.execute("SELECT pg_advisory_xact_lock($1)", [ClubTransaction.organisersLockKey])
        return try session.query("""
            INSERT INTO club_organisers (username, password_hash, owner, created_at)
            VALUES ($1, $2, NOT EXISTS (SELECT 1 FROM club_organisers WHERE owner), $3)
            ON CONFLICT DO NOTHING
            RETURNING id, username, password_hash, owner, created_at
            """, [username, passwordHash, now]).first.map(ClubTransaction.organiser(from:))
    }

    public func organiser(username: String) throws -> ClubOrganiser? {
        try session.query("""
            SELECT id, username, password_hash, owner, created_at FROM club_organisers WHERE lower(username) = lower($1)
            """, [username]).first.map(ClubTransaction.organiser(from:))
    }

    public func organiserCount() throws -> Int {
        try session.query("SELECT count(*) AS n FROM club_organisers").first!.int("n")
    }

    /// Keeps a new token (its SHA-256, hex) for the organiser.
    public func insertToken(hash: String, organiserId: Int64, now: Millis) throws {
        try session.execute("""
            INSERT INTO club_organiser_tokens (token_hash, organiser_id, created_at, used_at) VALUES ($1, $2, $3, $3)
            """, [hash, organiserId, now])
    }

    /// The organiser of a token (nil for an unknown or ended one); marks the token used at `now`.
    public func organiser(tokenHash: String, now: Millis) throws -> ClubOrganiser? {
        try session.query("""
            WITH used AS (UPDATE club_organiser_tokens SET used_at = $2 WHERE token_hash = $1 RETURNING organiser_id)
            SELECT o.id, o.username, o.password_hash, o.owner, o.created_at
            FROM club_organisers o JOIN used ON used.organiser_id = o.id
            """, [tokenHash, now]).first.map(ClubTransaction.organiser(from:))
    }

    /// Ends one token (logout); false when it was not there.
    @discardableResult
    public func deleteToken(hash: String) throws -> Bool {
        try session.execute("DELETE FROM club_organiser_tokens WHERE token_hash = $1", [hash]) == 1
    }

    /// Ends every token of an organiser (a password change); returns how many.
    @discardableResult
    public func deleteTokens(organiserId: Int64) throws -> Int {
        try session.execute("DELETE FROM club_organiser_tokens WHERE organiser_id = $1", [organiserId])
    }

    // MARK: - The login limiter (as the venue's AttemptLimiter, but in the database)

    /// Admits an attempt for `key` unless it is locked out or `allowed` attempts stand within
    /// `windowMs`. The key is locked for the transaction, so instances count one by one.
    public func admitLogin(key: String, now: Millis, allowed: Int, windowMs: Millis) throws -> LoginAdmission {
        guard (1...300).contains(key.utf8.count) else { throw ClubStoreError("a login key is 1-300 bytes") }
        try session.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 1))", [key])
        if let until = try session.query("SELECT locked_until FROM club_login_lockouts WHERE key = $1 AND locked_until > $2",
                                         [key, now]).first?.int64("locked_until") {
            return .locked(until: until)
        }
        // Attempts this old count for no key any more: keep the table small.
        try session.execute("DELETE FROM club_login_attempts WHERE key = $1 AND at <= $2", [key, now - windowMs])
        let standing = try session.query("SELECT count(*) AS n FROM club_login_attempts WHERE key = $1", [key])
            .first!.int("n")
        guard standing < allowed else { return .refused }
        let id = try session.query("INSERT INTO club_login_attempts (key, at) VALUES ($1, $2) RETURNING id",
                                   [key, now]).first!.int64("id")
        return .admitted(attempt: id)
    }

    /// A failed attempt: with `allowed` attempts standing, the key is locked for `lockoutMs`.
    public func loginFailed(key: String, attempt: Int64, now: Millis, allowed: Int, windowMs: Millis,
                            lockoutMs: Millis) throws {
        try session.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 1))", [key])
        try session.execute("UPDATE club_login_attempts SET failed = true WHERE id = $1", [attempt])
        let standing = try session.query("SELECT count(*) AS n FROM club_login_attempts WHERE key = $1 AND at > $2",
                                         [key, now - windowMs]).first!.int("n")
        if standing >= allowed {
            try session.execute("""
                INSERT INTO club_login_lockouts (key, locked_until) VALUES ($1, $2)
                ON CONFLICT (key) DO UPDATE SET locked_until = EXCLUDED.locked_until
                """, [key, now + lockoutMs])
        }
    }

    /// A success is not an attempt against the limit: it is taken back.
    public func loginSucceeded(attempt: Int64) throws {
        try session.execute("DELETE FROM club_login_attempts WHERE id = $1", [attempt])
    }

    static func organiser(from row: PostgresRow) throws -> ClubOrganiser {
        ClubOrganiser(id: try row.int64("id"), username: try row.string("username"),
                      passwordHash: try row.string("password_hash"), owner: try row.bool("owner"),
                      createdAt: try row.int64("created_at"))
    }
}
