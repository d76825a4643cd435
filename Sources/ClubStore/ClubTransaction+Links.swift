import ClubModel

extension ClubTransaction {
    /// Every member with what their link is made from, for the organisers' list (one query, not
    /// one per member).
    public func storedMembers() throws -> [StoredMember] {
        try session.query("""
            SELECT id, name, email, language, active, link_seed, link_token_hash, created_at
            FROM club_members ORDER BY lower(name), id
            """).rows.map { row in
            StoredMember(member: try ClubTransaction.member(from: row), linkSeed: try row.string("link_seed"),
                         linkTokenHash: try row.string("link_token_hash"), createdAt: try row.int64("created_at"))
        }
    }
}

extension ClubTransaction {
    /// Moves the club's clock forward by `ms` inside this change (the test clock's endpoint keeps
    /// its reply in the same transaction); returns the new `now`.
    public func advanceClock(ms: Millis) throws -> Millis {
        guard (0...366 * 86_400_000).contains(ms) else { throw ClubStoreError("advanceMs out of range") }
        let updated = try session.execute("UPDATE club SET clock_offset_ms = clock_offset_ms + $1 WHERE singleton", [ms])
        guard updated == 1 else { throw ClubStoreError("the club is not set up") }
        return try now()
    }
}

