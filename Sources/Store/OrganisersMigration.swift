import GRDB

/// The group's accounts (owner, invite code, activity), brought forward from any earlier database without losing a row:
/// - every account gets a role; the oldest (by `created_at`, then by the order it was inserted)
///   becomes the one owner, and a unique partial index keeps it at exactly one;
/// - `last_seen_at` starts at the account's last session use (or its creation), so the
///   organisers list has something true to say on the first day;
/// - a removed account stays as a tombstone (`removed_at`, no password), so its name stays on
///   what it did and nobody else can register that name and appear to have done it;
/// - the invite code gets a home in `meta` (filled at the first start, kept across restarts);
/// - each journal row can carry its pitch and a sentence for the activity list (older rows have
///   neither; the activity list derives the pitch from the subjects and words a sentence from
///   the kind).
enum OrganisersMigration {
    static let identifier = "v3-organisers"

    static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE organisers ADD COLUMN owner INTEGER NOT NULL DEFAULT 0 CHECK (owner IN (0, 1));
            ALTER TABLE organisers ADD COLUMN last_seen_at INTEGER;
            ALTER TABLE organisers ADD COLUMN removed_at INTEGER;
            UPDATE organisers SET last_seen_at = MAX(created_at, COALESCE(
                (SELECT MAX(last_used_at) FROM sessions WHERE sessions.username = organisers.username), created_at));
            UPDATE organisers SET owner = 1
                WHERE rowid = (SELECT rowid FROM organisers ORDER BY created_at, rowid LIMIT 1);
            CREATE UNIQUE INDEX organisers_one_owner ON organisers (owner) WHERE owner = 1;

            ALTER TABLE meta ADD COLUMN invite_code TEXT;

            ALTER TABLE journal ADD COLUMN pitch INTEGER;
            ALTER TABLE journal ADD COLUMN summary TEXT;
            """)
    }
}
