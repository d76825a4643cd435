import ClubModel

/// Dates (occurrences) and their answers. A change to a date's seats locks its row first
/// (`lockDate`), so no seat is ever given twice whatever the instances' interleaving.
extension ClubTransaction {
    /// `SELECT … FOR UPDATE` of the date: other changes of this date wait until this
    /// transaction ends. Read `now()` after it.
    public func lockDate(id: String) throws -> ClubDate? {
        try session.query("SELECT * FROM club_dates WHERE id = $1 FOR UPDATE", [id]).first.map(ClubTransaction.date(from:))
    }

    public func date(id: String) throws -> ClubDate? {
        try session.query("SELECT * FROM club_dates WHERE id = $1", [id]).first.map(ClubTransaction.date(from:))
    }

    /// Dates still listed at `from` (`startsAt + durationMinutes > from`) that start before
    /// `to`, in order of start.
    public func dates(from: Millis, to: Millis) throws -> [ClubDate] {
        try session.query("""
            SELECT * FROM club_dates
            WHERE starts_at + duration_minutes::bigint * 60000 > $1 AND starts_at < $2
            ORDER BY starts_at, id
            """, [from, to]).rows.map(ClubTransaction.date(from:))
    }

    /// A fixture's dates not yet started at `now` (those a fixture change moves), in order, each
    /// row locked (FOR UPDATE) for the change.
    public func dates(fixtureId: String, startingAfter now: Millis) throws -> [ClubDate] {
        try session.query("""
            SELECT * FROM club_dates WHERE fixture_id = $1 AND starts_at > $2 ORDER BY starts_at, id FOR UPDATE
            """, [fixtureId, now]).rows.map(ClubTransaction.date(from:))
    }

    /// Dates with an offer that expires at or before `now` (the expiry sweep locks each in turn).
    public func dateIdsWithOffersExpired(by now: Millis) throws -> [String] {
        try session.query("""
            SELECT DISTINCT date_id FROM club_answers WHERE state = 'offered' AND offer_expires_at <= $1 ORDER BY date_id
            """, [now]).rows.map { try $0.string("date_id") }
    }

    /// Inserts each date whose natural key (fixtureId, occurrence) is new with a new id, and
    /// saves the others' fields on the row already there (keeping its id); returns the dates
    /// as stored, in the given order.
    public func upsertDates(_ dates: [ClubDate]) throws -> [ClubDate] {
        guard dates.count <= 1_000 else { throw ClubStoreError("more than 1000 dates at once") }
        return try dates.map { date in
            try ClubTransaction.date(from: session.query("""
                INSERT INTO club_dates (id, fixture_id, occurrence, starts_at, opens_at, closes_at, duration_minutes,
                    capacity, claim_hours, last_minute_hours, status, changed_alone)
                VALUES (nextval('club_ids')::text, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
                ON CONFLICT (fixture_id, occurrence) DO UPDATE SET
                    starts_at = EXCLUDED.starts_at, opens_at = EXCLUDED.opens_at, closes_at = EXCLUDED.closes_at,
                    duration_minutes = EXCLUDED.duration_minutes, capacity = EXCLUDED.capacity,
                    claim_hours = EXCLUDED.claim_hours, last_minute_hours = EXCLUDED.last_minute_hours,
                    status = EXCLUDED.status, changed_alone = EXCLUDED.changed_alone,
                    revision = club_dates.revision + 1
                RETURNING *
                """, ClubTransaction.fields(of: date)).first!)
        }
    }

    /// Inserts only the dates whose natural key is new (the window's top-up, safe to run on
    /// every instance at once); returns those inserted, with their ids.
    public func insertMissingDates(_ dates: [ClubDate]) throws -> [ClubDate] {
        guard dates.count <= 1_000 else { throw ClubStoreError("more than 1000 dates at once") }
        return try dates.compactMap { date in
            try session.query("""
                INSERT INTO club_dates (id, fixture_id, occurrence, starts_at, opens_at, closes_at, duration_minutes,
                    capacity, claim_hours, last_minute_hours, status, changed_alone)
                VALUES (nextval('club_ids')::text, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
                ON CONFLICT (fixture_id, occurrence) DO NOTHING
                RETURNING *
                """, ClubTransaction.fields(of: date)).first.map(ClubTransaction.date(from:))
        }
    }

    /// Saves the date with this id (its fields as the model left them); the revision rises
    /// when anything changed. False when there is no such date.
    @discardableResult
    public func saveDate(_ date: ClubDate) throws -> Bool {
        try session.execute("""
            UPDATE club_dates SET starts_at = $3, opens_at = $4, closes_at = $5, duration_minutes = $6, capacity = $7,
                claim_hours = $8, last_minute_hours = $9, status = $10, changed_alone = $11,
                revision = revision + 1
            WHERE id = $12 AND fixture_id = $1 AND occurrence = $2
              AND (starts_at, opens_at, closes_at, duration_minutes, capacity, claim_hours, last_minute_hours,
                   status, changed_alone)
                  IS DISTINCT FROM ($3, $4, $5, $6, $7, $8, $9, $10, $11)
            """, ClubTransaction.fields(of: date) + [date.id]) == 1 || (try self.date(id: date.id)) != nil
    }

    /// The next `seq` of the date's published list, under its row lock: `max(last + 1, now)`,
    /// so a restored database still goes forward.
    public func nextPublishSeq(date id: String, now: Millis) throws -> Int64? {
        try session.query("""
            UPDATE club_dates SET publish_seq = GREATEST(publish_seq + 1, $2) WHERE id = $1 RETURNING publish_seq
            """, [id, now]).first?.int64("publish_seq")
    }

    /// The `seq` of the date's list last allocated (0: never published); nil for no such date.
    public func publishSeq(date id: String) throws -> Int64? {
        try session.query("SELECT publish_seq FROM club_dates WHERE id = $1", [id]).first?.int64("publish_seq")
    }

    /// The calendar's SEQUENCE of each of the member's dates: the date's revision plus the
    /// member's answer's (both only rise).
    public func calendarSequences(member id: String) throws -> [String: Int64] {
        var sequences: [String: Int64] = [:]
        for row in try session.query("""
            SELECT d.id, d.revision + COALESCE(a.revision, 0) AS sequence
            FROM club_dates d LEFT JOIN club_answers a ON a.date_id = d.id AND a.member_id = $1
            """, [id]).rows {
            sequences[try row.string("id")] = try row.int64("sequence")
        }
        return sequences
    }

    // MARK: - Answers

    /// The date's answers in the order they were judged (the order `saveAnswers` was given).
    public func answers(date id: String) throws -> [Answer] {
        try session.query("SELECT * FROM club_answers WHERE date_id = $1 ORDER BY judged, member_id", [id])
            .rows.map(ClubTransaction.answer(from:))
    }

    /// Every answer of the given dates (a page of several dates), by date id, each in judged order.
    public func answers(dates ids: [String]) throws -> [String: [Answer]] {
        guard ids.count <= 1_000 else { throw ClubStoreError("more than 1000 dates at once") }
        var byDate: [String: [Answer]] = [:]
        for row in try session.query("""
            SELECT * FROM club_answers WHERE date_id = ANY($1::text[]) ORDER BY date_id, judged, member_id
            """, [PostgresTextArray(ids)]).rows {
            byDate[try row.string("date_id"), default: []].append(try ClubTransaction.answer(from: row))
        }
        return byDate
    }

    /// The member's answers on every date, by date id.
    public func answers(member id: String) throws -> [String: Answer] {
        var byDate: [String: Answer] = [:]
        for row in try session.query("SELECT * FROM club_answers WHERE member_id = $1", [id]).rows {
            byDate[try row.string("date_id")] = try ClubTransaction.answer(from: row)
        }
        return byDate
    }

    /// Makes the date's stored answers exactly `answers` (in this order), in two statements
    /// whatever their number: members absent from the list lose their answer; a row whose
    /// values changed gets a higher revision. Call it with the date's row locked.
    public func saveAnswers(date id: String, _ answers: [Answer]) throws {
        guard answers.count <= 2_000 else { throw ClubStoreError("more than 2000 answers for one date") }
        guard Set(answers.map(\.memberId)).count == answers.count else {
            throw ClubStoreError("a member answers a date once")
        }
        try session.execute("DELETE FROM club_answers WHERE date_id = $1 AND NOT (member_id = ANY($2::text[]))",
                            [id, PostgresTextArray(answers.map(\.memberId))])
        guard !answers.isEmpty else { return }
        try session.execute("""
            INSERT INTO club_answers AS a (date_id, member_id, answer, guests, state, answered_at, offer_expires_at,
                offers_made, attended, judged)
            SELECT $1, m, c, g::integer, s, t::bigint, e::bigint, o::integer, at::boolean, j::integer
            FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                        $9::text[], $10::text[]) AS u(m, c, g, s, t, e, o, at, j)
            ON CONFLICT (date_id, member_id) DO UPDATE SET
                answer = EXCLUDED.answer, guests = EXCLUDED.guests, state = EXCLUDED.state,
                answered_at = EXCLUDED.answered_at, offer_expires_at = EXCLUDED.offer_expires_at,
                offers_made = EXCLUDED.offers_made, attended = EXCLUDED.attended, judged = EXCLUDED.judged,
                revision = a.revision + CASE WHEN (a.answer, a.guests, a.state, a.answered_at, a.offer_expires_at,
                                                    a.offers_made, a.attended)
                    IS DISTINCT FROM (EXCLUDED.answer, EXCLUDED.guests, EXCLUDED.state, EXCLUDED.answered_at,
                                      EXCLUDED.offer_expires_at, EXCLUDED.offers_made, EXCLUDED.attended)
                    THEN 1 ELSE 0 END
            -- A row that is the same as stored is not written again: otherwise each answer would
            -- rewrite every earlier one (494²/2 row versions for 500 answers, in the club bench).
            WHERE (a.answer, a.guests, a.state, a.answered_at, a.offer_expires_at, a.offers_made, a.attended, a.judged)
                IS DISTINCT FROM (EXCLUDED.answer, EXCLUDED.guests, EXCLUDED.state, EXCLUDED.answered_at,
                                  EXCLUDED.offer_expires_at, EXCLUDED.offers_made, EXCLUDED.attended, EXCLUDED.judged)
            """, [
                id,
                PostgresTextArray(answers.map(\.memberId)),
                PostgresTextArray(answers.map(\.answer.rawValue)),
                PostgresTextArray(answers.map { String($0.guests) }),
                PostgresTextArray(answers.map(\.state.rawValue)),
                PostgresTextArray(answers.map { String($0.answeredAt) }),
                PostgresTextArray(answers.map { $0.offerExpiresAt.map(String.init) }),
                PostgresTextArray(answers.map { String($0.offersMade) }),
                PostgresTextArray(answers.map { $0.attended.map { $0 ? "t" : "f" } }),
                PostgresTextArray(answers.indices.map(String.init)),
            ])
    }

    private static func fields(of date: ClubDate) -> [any PostgresBindable] {
        [date.fixtureId, date.occurrence, date.startsAt, date.opensAt, date.closesAt, date.durationMinutes,
         date.capacity, date.claimHours, date.lastMinuteHours, date.status.rawValue, date.changedAlone]
    }

    static func date(from row: PostgresRow) throws -> ClubDate {
        let statusText = try row.string("status")
        guard let status = DateStatus(rawValue: statusText) else {
            throw PostgresError(kind: .decode, message: "date status \(statusText)")
        }
        return ClubDate(id: try row.string("id"), fixtureId: try row.string("fixture_id"),
                        occurrence: try row.string("occurrence"), startsAt: try row.int64("starts_at"),
                        opensAt: try row.int64("opens_at"), closesAt: try row.int64("closes_at"),
                        durationMinutes: try row.int("duration_minutes"), capacity: try row.int("capacity"),
                        claimHours: try row.int("claim_hours"), lastMinuteHours: try row.int("last_minute_hours"),
                        status: status, changedAlone: try row.bool("changed_alone"))
    }

    static func answer(from row: PostgresRow) throws -> Answer {
        let choiceText = try row.string("answer")
        let stateText = try row.string("state")
        guard let choice = AnswerChoice(rawValue: choiceText), let state = AnswerState(rawValue: stateText) else {
            throw PostgresError(kind: .decode, message: "answer \(choiceText)/\(stateText)")
        }
        return Answer(memberId: try row.string("member_id"), answer: choice, guests: try row.int("guests"),
                      state: state, answeredAt: try row.int64("answered_at"),
                      offerExpiresAt: try row.optionalInt64("offer_expires_at"),
                      offersMade: try row.int("offers_made"), attended: try row.optionalBool("attended"))
    }
}
