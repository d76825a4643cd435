/// The results from the pitch (PROTOCOL.md "Sunday's list on the laptop, and back", settled 7):
/// each venue result is applied once, keyed by its history entry's id, whichever instance reads it
/// first and however often the hub's mirror replays it.
extension ClubSchema {
    static let results: [StaticString] = [
        """
        CREATE TABLE club_results (
            id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
            venue text NOT NULL,
            date_id text NOT NULL,
            ended_at bigint NOT NULL,
            outcome text NOT NULL CHECK (outcome IN ('applied', 'ignored')),
            reason text,
            received_at bigint NOT NULL)
        """,
        "CREATE INDEX club_results_date ON club_results (date_id)",
        // The no-shows of the last 8 weeks are counted per member on played dates.
        "CREATE INDEX club_answers_no_shows ON club_answers (member_id) WHERE state = 'confirmed' AND attended = false",
    ]
}
