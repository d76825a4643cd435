import ClubModel

/// Members: names unique ignoring case (the index refuses a duplicate even from two instances
/// at once), links kept only as the seed and the token's SHA-256.
extension ClubTransaction {
    /// The contract's cap on members (the 501st is `conflict`).
    public static let memberLimit = 500

    public func members() throws -> [Member] {
        try session.query("SELECT id, name, email, language, active FROM club_members ORDER BY lower(name), id")
            .rows.map(ClubTransaction.member(from:))
    }

    public func memberCount() throws -> Int {
        try session.query("SELECT count(*) AS n FROM club_members").first!.int("n")
    }

    public func member(id: String) throws -> Member? {
        try session.query("SELECT id, name, email, language, active FROM club_members WHERE id = $1", [id])
            .first.map(ClubTransaction.member(from:))
    }

    /// The member whose link token hashes to `tokenHash` (nil for any unknown token).
    public func member(tokenHash: String) throws -> Member? {
        try session.query("""
            SELECT id, name, email, language, active FROM club_members WHERE link_token_hash = $1
            """, [tokenHash]).first.map(ClubTransaction.member(from:))
    }

    /// The member with the link's seed and hash (to rebuild the link for a mail).
    public func storedMember(id: String) throws -> StoredMember? {
        guard let row = try session.query("""
            SELECT id, name, email, language, active, link_seed, link_token_hash, created_at
            FROM club_members WHERE id = $1
            """, [id]).first else { return nil }
        return StoredMember(member: try ClubTransaction.member(from: row), linkSeed: try row.string("link_seed"),
                            linkTokenHash: try row.string("link_token_hash"), createdAt: try row.int64("created_at"))
    }

    /// Adds a member with a new id (the given `member.id` is ignored) and their first link.
    /// A name taken ignoring case: `Refusal(.conflict, ["field": "name"])`; the 501st member:
    /// `Refusal(.conflict, ["field": "members"])`. The member table is locked for the count,
    /// so two instances adding the 500th at once add one.
    public func insertMember(_ member: Member, linkSeed: String, linkTokenHash: String, now: Millis) throws -> Member {
        try session.execute("LOCK TABLE club_members IN SHARE ROW EXCLUSIVE MODE")
        guard try memberCount() < ClubTransaction.memberLimit else {
            throw Refusal(.conflict, ["field": "members"])
        }
        guard let row = try session.query("""
            INSERT INTO club_members (id, name, email, language, active, link_seed, link_token_hash, created_at)
            VALUES (nextval('club_ids')::text, $1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT DO NOTHING
            RETURNING id, name, email, language, active
            """, [member.name, member.email, member.language, member.active, linkSeed, linkTokenHash, now]).first
        else { throw Refusal(.conflict, ["field": "name"]) }
        return try ClubTransaction.member(from: row)
    }

    /// Saves name, email, language and active; false when there is no such member. A name
    /// taken by another member: `Refusal(.conflict, ["field": "name"])`.
    @discardableResult
    public func updateMember(_ member: Member) throws -> Bool {
        let taken = try session.query("""
            SELECT 1 AS taken FROM club_members WHERE lower(name) = lower($1) AND id <> $2
            """, [member.name, member.id])
        guard taken.count == 0 else { throw Refusal(.conflict, ["field": "name"]) }
        return try session.execute("""
            UPDATE club_members SET name = $2, email = $3, language = $4, active = $5 WHERE id = $1
            """, [member.id, member.name, member.email, member.language, member.active]) == 1
    }

    /// Deletes the member and their answers (the caller has run the walk on the dates they
    /// freed first); false when there is no such member.
    @discardableResult
    public func deleteMember(id: String) throws -> Bool {
        try session.execute("DELETE FROM club_members WHERE id = $1", [id]) == 1
    }

    /// Replaces the member's link: the old token's hash is gone at once.
    @discardableResult
    public func setLink(member id: String, seed: String, hash: String) throws -> Bool {
        try session.execute("UPDATE club_members SET link_seed = $2, link_token_hash = $3 WHERE id = $1",
                            [id, seed, hash]) == 1
    }

    static func member(from row: PostgresRow) throws -> Member {
        Member(id: try row.string("id"), name: try row.string("name"), email: try row.optionalString("email"),
               language: try row.optionalString("language"), active: try row.bool("active"))
    }
}
