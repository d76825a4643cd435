import ClubModel

/// The club's mail: claims made in the transaction that finds them due, then taken by one sender
/// at a time (`FOR UPDATE SKIP LOCKED`), so two instances and restarts never send one twice.
extension ClubTransaction {
    /// Claims each mail whose key is new (`ON CONFLICT DO NOTHING`: a key claimed before stays as
    /// it is), `pending` from `dueAt` with a sender, else `unsent`; returns how many are new.
    @discardableResult
    public func claimMail(_ keys: [MailKey], dueAt: Millis, unsent: Bool) throws -> Int {
        guard keys.count <= 2_000 else { throw ClubStoreError("more than 2000 mails at once") }
        guard !keys.isEmpty else { return 0 }
        return try session.execute("""
            INSERT INTO club_mail (member_id, date_id, kind, slot, state, due_at, next_at)
            SELECT m, d, k, s::integer, $5, $6, $6
            FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS u(m, d, k, s)
            ON CONFLICT (member_id, date_id, kind, slot) DO NOTHING
            """, [
                PostgresTextArray(keys.map(\.memberId)), PostgresTextArray(keys.map(\.dateId)),
                PostgresTextArray(keys.map(\.kind.rawValue)), PostgresTextArray(keys.map { String($0.slot) }),
                unsent ? MailState.unsent.rawValue : MailState.pending.rawValue, dueAt,
            ])
    }

    /// The date's mail, in the order it was due.
    public func mail(date id: String) throws -> [MailRecord] {
        try session.query("""
            SELECT * FROM club_mail WHERE date_id = $1 ORDER BY due_at, kind, slot, member_id
            """, [id]).rows.map(ClubTransaction.mailRecord(from:))
    }

    // MARK: - Reminders

    /// Scheduled dates open for answers at `now` with a reminder time due and not yet settled
    /// (the clock then locks each and asks `MailRules.reminder`).
    public func dateIdsWithRemindersDue(at now: Millis) throws -> [String] {
        try session.query("""
            SELECT d.id FROM club_dates d JOIN club_fixtures f ON f.id = d.fixture_id
            WHERE d.status = 'scheduled' AND d.opens_at <= $1 AND d.closes_at > $1
              AND EXISTS (SELECT 1 FROM unnest(f.reminder_hours_before) AS h(hours)
                          WHERE GREATEST(d.starts_at - h.hours::bigint * 3600000, d.opens_at) <= $1
                            AND NOT EXISTS (SELECT 1 FROM club_mail_reminders r
                                            WHERE r.date_id = d.id AND r.hours = h.hours))
            ORDER BY d.starts_at, d.id
            """, [now]).rows.map { try $0.string("id") }
    }

    /// The reminder hours already settled for the date.
    public func settledReminderHours(date id: String) throws -> Set<Int> {
        Set(try session.query("SELECT hours FROM club_mail_reminders WHERE date_id = $1", [id]).rows.map { try $0.int("hours") })
    }

    /// Settles reminder hours of the date (sent or dropped); one already settled stays as it was.
    public func settleReminderHours(date id: String, _ hours: [Int], now: Millis) throws {
        guard hours.count <= 16 else { throw ClubStoreError("more than 16 reminder times at once") }
        guard !hours.isEmpty else { return }
        try session.execute("""
            INSERT INTO club_mail_reminders (date_id, hours, settled_at)
            SELECT $1, h, $3 FROM unnest($2::integer[]) AS u(h)
            ON CONFLICT (date_id, hours) DO NOTHING
            """, [id, PostgresIntArray(hours), now])
    }

    // MARK: - Sending

    /// Takes up to `limit` mails to send now: pending ones whose try is due, and claims whose
    /// sender stopped (`sending` past `next_at`). Each taken row becomes `sending` with one more
    /// try, stale at `now + staleClaimMillis`; other instances skip the rows this one holds.
    public func takeMailToSend(now: Millis, limit: Int) throws -> [TakenMail] {
        try session.query("""
            UPDATE club_mail AS m SET state = 'sending', tries = m.tries + 1,
                first_try_at = COALESCE(m.first_try_at, $1), next_at = $1 + $3
            FROM (SELECT member_id, date_id, kind, slot FROM club_mail
                  WHERE state IN ('pending', 'sending') AND next_at <= $1
                  ORDER BY next_at LIMIT $2 FOR UPDATE SKIP LOCKED) AS due
            WHERE (m.member_id, m.date_id, m.kind, m.slot) = (due.member_id, due.date_id, due.kind, due.slot)
            RETURNING m.*
            """, [now, max(1, min(limit, 100)), MailRules.staleClaimMillis]).rows.map { row in
            TakenMail(record: try ClubTransaction.mailRecord(from: row), firstTryAt: try row.int64("first_try_at"))
        }
    }

    /// Records how a taken mail's try ended, only if this sender's claim still holds (same try,
    /// still `sending`): `sent`, else `pending` again at `retryAt`, else (`retryAt` nil) `failed`.
    /// `error` is a short reason for the organisers and the log, never a secret.
    @discardableResult
    public func finishMail(_ taken: TakenMail, sent: Bool, retryAt: Millis?, error: String?, now: Millis) throws -> Bool {
        let key = taken.record.key
        let state: MailState = sent ? .sent : (retryAt == nil ? .failed : .pending)
        return try session.execute("""
            UPDATE club_mail SET state = $6, next_at = COALESCE($7, next_at),
                sent_at = CASE WHEN $6 = 'sent' THEN $8 ELSE sent_at END,
                failed_at = CASE WHEN $6 = 'failed' THEN $8 ELSE failed_at END,
                last_error = $9
            WHERE member_id = $1 AND date_id = $2 AND kind = $3 AND slot = $4 AND tries = $5 AND state = 'sending'
            """, [key.memberId, key.dateId, key.kind.rawValue, key.slot, taken.record.tries, state.rawValue,
                  retryAt, now, error.map { String($0.prefix(200)) }]) == 1
    }

    static func mailRecord(from row: PostgresRow) throws -> MailRecord {
        let kindText = try row.string("kind")
        let stateText = try row.string("state")
        guard let kind = MailKind(rawValue: kindText), let state = MailState(rawValue: stateText) else {
            throw PostgresError(kind: .decode, message: "mail \(kindText)/\(stateText)")
        }
        let at: Millis
        switch state {
        case .sent: at = try row.optionalInt64("sent_at") ?? row.int64("next_at")
        case .failed: at = try row.optionalInt64("failed_at") ?? row.int64("next_at")
        case .pending, .sending: at = try row.int64("next_at")
        case .unsent: at = try row.int64("due_at")
        }
        return MailRecord(key: MailKey(memberId: try row.string("member_id"), dateId: try row.string("date_id"),
                                       kind: kind, slot: try row.int("slot")),
                          state: state, at: at, tries: try row.int("tries"))
    }
}

/// A mail a sender has taken: its row as taken (`tries` counts this try) and its first try's time.
public struct TakenMail: Equatable, Sendable {
    public var record: MailRecord
    public var firstTryAt: Millis
}
