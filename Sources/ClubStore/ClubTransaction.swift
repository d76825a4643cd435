import ClubModel

/// The statements of one change, valid only inside `ClubStore.change` / `read`. Each method is
/// one or two parameterised statements; the rules live in ClubModel, not here.
public final class ClubTransaction {
    let session: PostgresSession

    init(session: PostgresSession) { self.session = session }

    /// The club's clock: `clock_timestamp()` (real time, not the transaction's start) plus the
    /// test offset. Read it AFTER `lockDate`, so two racing changes take times in lock order.
    public func now() throws -> Millis {
        try session.query("""
            SELECT floor(extract(epoch from clock_timestamp()) * 1000)::bigint
                   + COALESCE((SELECT clock_offset_ms FROM club WHERE singleton), 0) AS now
            """).first!.int64("now")
    }

    // MARK: - The club's settings

    public func club() throws -> ClubSettings? {
        guard let row = try session.query("""
            SELECT name, time_zone, language, invite_code, link_secret, signing_key_pem, clock_offset_ms
            FROM club WHERE singleton
            """).first else { return nil }
        return ClubSettings(name: try row.string("name"), timeZone: try row.string("time_zone"),
                            language: try row.string("language"), inviteCode: try row.string("invite_code"),
                            linkSecret: try row.string("link_secret"),
                            signingKeyPEM: try row.string("signing_key_pem"),
                            clockOffsetMs: try row.int64("clock_offset_ms"))
    }

    /// `PATCH /club/api/club`: nil leaves a field as it is.
    public func updateClub(name: String? = nil, timeZone: String? = nil, language: String? = nil) throws {
        try session.execute("""
            UPDATE club SET name = COALESCE($1, name), time_zone = COALESCE($2, time_zone),
                            language = COALESCE($3, language)
            WHERE singleton
            """, [name, timeZone, language])
    }

    // MARK: - Notifications

    /// NOTIFYs the dates' ids on `ClubStore.changesChannel`; PostgreSQL delivers it only when
    /// this transaction commits (and not at all if it rolls back). Long lists go in several
    /// notifications (a payload is under 8000 bytes).
    public func notify(dateIds: [String]) throws {
        var chunk: [String] = []
        var size = 0
        for id in Set(dateIds).sorted() {
            if size + id.utf8.count + 1 > 7_000, !chunk.isEmpty {
                try sendNotification(chunk.joined(separator: ","))
                chunk.removeAll()
                size = 0
            }
            chunk.append(id)
            size += id.utf8.count + 1
        }
        if !chunk.isEmpty { try sendNotification(chunk.joined(separator: ",")) }
    }

    /// NOTIFYs `*`: members, fixtures or the club's settings changed (pages re-read all).
    public func notifyClubChanged() throws { try sendNotification("*") }

    private func sendNotification(_ payload: String) throws {
        try session.execute("SELECT pg_notify($1, $2)", [ClubStore.changesChannel, payload])
    }

    // MARK: - Kept replies (exactly-once ids)

    /// The reply kept for `(scope, id)`, if any. It first takes a transaction lock on the pair,
    /// so the same id sent at once to two instances is judged once: the second waits for the
    /// first's COMMIT and then reads its reply.
    public func keptReply(scope: String, id: String) throws -> KeptReply? {
        try checkReplyKey(scope: scope, id: id)
        try session.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [scope + "\n" + id])
        guard let row = try session.query("SELECT status, body FROM club_kept_replies WHERE scope = $1 AND id = $2",
                                          [scope, id]).first else { return nil }
        return KeptReply(status: try row.int("status"), body: try row.string("body"))
    }

    /// Keeps the reply to `(scope, id)` in this change's transaction (so it exists iff the change does).
    public func keepReply(scope: String, id: String, status: Int, body: String) throws {
        try checkReplyKey(scope: scope, id: id)
        guard body.utf8.count <= 1_000_000 else { throw ClubStoreError("a kept reply is over 1 MB") }
        try session.execute("""
            INSERT INTO club_kept_replies (scope, id, status, body, kept_at)
            VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (scope, id) DO NOTHING
            """, [scope, id, status, body, try now()])
    }

    /// Drops replies kept before `before` (ids are only replayed for a while); returns how many.
    @discardableResult
    public func forgetReplies(before: Millis) throws -> Int {
        try session.execute("DELETE FROM club_kept_replies WHERE kept_at < $1", [before])
    }

    private func checkReplyKey(scope: String, id: String) throws {
        guard (1...200).contains(scope.utf8.count), (1...64).contains(id.utf8.count) else {
            throw ClubStoreError("a reply's scope is 1-200 bytes and its id 1-64")
        }
    }
}
