import ClubModel

/// The results from the pitch and what they leave: attendance, and no-shows counted per member.
extension ClubTransaction {
    /// What became of one venue result.
    public enum ResultRecord: String, Sendable {
        case applied
        /// Read and verified, but nothing to apply (a date this club does not have, or one
        /// already played by another gather): kept so a replay is settled at once.
        case ignored
    }

    /// Records the result `id` once; false when any instance recorded it before (it waits for
    /// a racing instance's COMMIT, then finds its row).
    public func recordResult(id: String, venue: String, dateId: String, endedAt: Millis, record: ResultRecord,
                             reason: String? = nil, now: Millis) throws -> Bool {
        guard (1...64).contains(id.utf8.count), (1...64).contains(dateId.utf8.count), venue.utf8.count <= 64,
              (reason?.utf8.count ?? 0) <= 200
        else { throw ClubStoreError("a result's id and date are 1-64 bytes, its venue at most 64 and its reason 200") }
        return try session.execute("""
            INSERT INTO club_results (id, venue, date_id, ended_at, outcome, reason, received_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (id) DO NOTHING
            """, [id, venue, dateId, endedAt, record.rawValue, reason, now]) == 1
    }

    /// Whether the result `id` was recorded (applied or ignored).
    public func resultRecorded(id: String) throws -> Bool {
        try !session.query("SELECT 1 FROM club_results WHERE id = $1", [id]).rows.isEmpty
    }

    /// No-shows per member: confirmed answers with `attended` false on played dates that started
    /// in `[from, to]`. Members without any are absent.
    public func noShows(from: Millis, to: Millis) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try session.query("""
            SELECT a.member_id, count(*)::integer AS no_shows
            FROM club_answers a JOIN club_dates d ON d.id = a.date_id
            WHERE a.state = 'confirmed' AND a.attended = false AND d.status = 'played'
              AND d.starts_at >= $1 AND d.starts_at <= $2
            GROUP BY a.member_id
            """, [from, to]).rows {
            counts[try row.string("member_id")] = try row.int("no_shows")
        }
        return counts
    }
}
