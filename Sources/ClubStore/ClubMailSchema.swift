/// Schema version 2: the club's mail (contract, "Mail, settled"). Only new tables: no row of
/// version 1 changes, so a club's data comes through as it was.
enum ClubMailSchema {
    static let version2: [StaticString] = [
        // One row per mail, claimed in the transaction that found it due. `next_at`: the next try
        // (pending), or when a sender's claim goes stale (sending); `first_try_at` sets the backoff.
        """
        CREATE TABLE club_mail (
            member_id text NOT NULL REFERENCES club_members (id) ON DELETE CASCADE,
            date_id text NOT NULL REFERENCES club_dates (id) ON DELETE CASCADE,
            kind text NOT NULL CHECK (kind IN ('reminder', 'offer', 'promoted', 'cancelled')),
            slot integer NOT NULL CHECK (slot >= 0),
            state text NOT NULL CHECK (state IN ('pending', 'sending', 'sent', 'failed', 'unsent')),
            due_at bigint NOT NULL,
            next_at bigint NOT NULL,
            first_try_at bigint,
            tries integer NOT NULL DEFAULT 0,
            sent_at bigint,
            failed_at bigint,
            last_error text,
            PRIMARY KEY (member_id, date_id, kind, slot))
        """,
        "CREATE INDEX club_mail_date ON club_mail (date_id)",
        "CREATE INDEX club_mail_to_send ON club_mail (next_at) WHERE state IN ('pending', 'sending')",
        // The reminder times already settled per date (sent to those who had not answered, or
        // dropped in quiet hours): a time is settled once, under the date's row lock.
        """
        CREATE TABLE club_mail_reminders (
            date_id text NOT NULL REFERENCES club_dates (id) ON DELETE CASCADE,
            hours integer NOT NULL,
            settled_at bigint NOT NULL,
            PRIMARY KEY (date_id, hours))
        """,
    ]
}
