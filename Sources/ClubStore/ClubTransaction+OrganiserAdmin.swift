import ClubModel

/// What `gather club organisers` does to accounts from the command line (any instance running or
/// not: the database is the one truth). Each is one transaction of the caller's.
extension ClubTransaction {
    /// Every organiser, the owner first, then by name.
    public func organisers() throws -> [ClubOrganiser] {
        try session.query("""
            SELECT id, username, password_hash, owner, created_at FROM club_organisers ORDER BY owner DESC, lower(username)
            """).rows.map(ClubTransaction.organiser(from:))
    }

    /// Removes an organiser; their tokens go with them (ON DELETE CASCADE). False when unknown.
    @discardableResult
    public func deleteOrganiser(id: Int64) throws -> Bool {
        try session.execute("DELETE FROM club_organisers WHERE id = $1", [id]) == 1
    }

    /// Makes this organiser the owner (the one owner: the others lose it in the same transaction).
    public func makeOwner(id: Int64) throws {
        try session.execute("SELECT pg_advisory_xact_lock($1)", [ClubTransaction.organisersLockKey])
        try session.execute("UPDATE club_organisers SET owner = false WHERE owner AND id <> $1", [id])
        try session.execute("UPDATE club_organisers SET owner = true WHERE id = $1", [id])
    }

    /// A new password hash; every session of theirs ends.
    public func setPassword(id: Int64, hash: String) throws {
        try session.execute("UPDATE club_organisers SET password_hash = $2 WHERE id = $1", [id, hash])
        try deleteTokens(organiserId: id)
    }
}
