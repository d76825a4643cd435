import ClubModel

/// Fixtures, the weekly templates of dates. Values are checked by ClubModel before they come here.
extension ClubTransaction {
    /// The cap on fixtures a club keeps (a page lists them all).
    public static let fixtureLimit = 50

    public func fixtures() throws -> [Fixture] {
        try session.query("SELECT * FROM club_fixtures ORDER BY created_at, id").rows.map(ClubTransaction.fixture(from:))
    }

    public func fixture(id: String) throws -> Fixture? {
        try session.query("SELECT * FROM club_fixtures WHERE id = $1", [id]).first.map(ClubTransaction.fixture(from:))
    }

    /// Adds a fixture with a new id (the given `fixture.id` is ignored); the 51st is
    /// `Refusal(.conflict, ["field": "fixtures"])`.
    public func insertFixture(_ fixture: Fixture, now: Millis) throws -> Fixture {
        try session.execute("LOCK TABLE club_fixtures IN SHARE ROW EXCLUSIVE MODE")
        let count = try session.query("SELECT count(*) AS n FROM club_fixtures").first!.int("n")
        guard count < ClubTransaction.fixtureLimit else { throw Refusal(.conflict, ["field": "fixtures"]) }
        return try ClubTransaction.fixture(from: session.query("""
            INSERT INTO club_fixtures (id, title, weekday, local_time, duration_minutes, place, capacity,
                opens_hours_before, closes_minutes_before, claim_hours, last_minute_hours,
                reminder_hours_before, active, created_at)
            VALUES (nextval('club_ids')::text, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::integer[], $12, $13)
            RETURNING *
            """, ClubTransaction.fields(of: fixture) + [now]).first!)
    }

    /// Saves every field of the fixture with this id (after `fixture(id:)` and the model's
    /// change); false when there is no such fixture.
    @discardableResult
    public func updateFixture(_ fixture: Fixture) throws -> Bool {
        try session.execute("""
            UPDATE club_fixtures SET title = $1, weekday = $2, local_time = $3, duration_minutes = $4, place = $5,
                capacity = $6, opens_hours_before = $7, closes_minutes_before = $8, claim_hours = $9,
                last_minute_hours = $10, reminder_hours_before = $11::integer[], active = $12
            WHERE id = $13
            """, ClubTransaction.fields(of: fixture) + [fixture.id]) == 1
    }

    /// Locks the fixture's row for this transaction (two edits of one fixture in turn).
    public func lockFixture(id: String) throws -> Fixture? {
        try session.query("SELECT * FROM club_fixtures WHERE id = $1 FOR UPDATE", [id])
            .first.map(ClubTransaction.fixture(from:))
    }

    private static func fields(of fixture: Fixture) -> [any PostgresBindable] {
        [fixture.title, fixture.weekday, fixture.time.description, fixture.durationMinutes, fixture.place,
         fixture.capacity, fixture.opensHoursBefore, fixture.closesMinutesBefore, fixture.claimHours,
         fixture.lastMinuteHours, PostgresIntArray(fixture.reminderHoursBefore), fixture.active]
    }

    static func fixture(from row: PostgresRow) throws -> Fixture {
        let text = try row.string("local_time")
        guard let time = LocalTime(text) else {
            throw PostgresError(kind: .decode, message: "fixture time \(text) is not HH:MM")
        }
        return Fixture(id: try row.string("id"), title: try row.string("title"), weekday: try row.int("weekday"),
                       time: time, durationMinutes: try row.int("duration_minutes"), place: try row.string("place"),
                       capacity: try row.int("capacity"), opensHoursBefore: try row.int("opens_hours_before"),
                       closesMinutesBefore: try row.int("closes_minutes_before"),
                       claimHours: try row.int("claim_hours"), lastMinuteHours: try row.int("last_minute_hours"),
                       reminderHoursBefore: try row.intArray("reminder_hours_before"), active: try row.bool("active"))
    }
}
