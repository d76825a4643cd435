import Logging

/// The club's tables, created and migrated at start. Several instances may start together, so
/// the whole migration runs in one transaction holding a transaction-scoped advisory lock: the
/// second instance waits, then finds the version already current. PostgreSQL's DDL is
/// transactional, so a migration that fails leaves nothing half made.
enum ClubSchema {
    /// `pg_advisory_xact_lock` key of the migrations (any fixed bigint: "club" in ASCII).
    static let migrationLockKey: Int64 = 0x636C_7562_5343_4845

    /// One list of statements per version, applied in order; never edit a shipped one, add
    /// the next. Statements are constants: values never go into DDL.
    static let migrations: [[StaticString]] = [version1, ClubMailSchema.version2, results]

    static var currentVersion: Int { migrations.count }

    /// Creates or migrates the schema; returns the version found before (0: a new database).
    @discardableResult
    static func migrate(_ pool: PostgresPool, logger: Logger) throws -> Int {
        try pool.transaction { session in
            try session.execute("SELECT pg_advisory_xact_lock($1)", [migrationLockKey])
            try session.execute("""
                CREATE TABLE IF NOT EXISTS club_schema_version (
                    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
                    version integer NOT NULL)
                """)
            let found = try session.query("SELECT version FROM club_schema_version").first?.int("version") ?? 0
            guard found <= currentVersion else {
                throw PostgresError(kind: .statement, message:
                    "the database's club schema is version \(found), newer than this program's \(currentVersion)")
            }
            for version in found..<currentVersion {
                for statement in migrations[version] { try session.execute(statement) }
            }
            if found < currentVersion {
                try session.execute("""
                    INSERT INTO club_schema_version (singleton, version) VALUES (true, $1)
                    ON CONFLICT (singleton) DO UPDATE SET version = EXCLUDED.version
                    """, [currentVersion])
                logger.info("club schema migrated", metadata: [
                    "club.schema.from": "\(found)", "club.schema.to": "\(currentVersion)",
                ])
            }
            return found
        }
    }

    /// The first schema: the club, its organisers, members, fixtures, dates, answers and the
    /// kept replies that make every change exactly-once.
    static let version1: [StaticString] = [
        "CREATE SEQUENCE club_ids",
        // One row: the club's settings, secrets of the next issue, and the test clock's offset.
        """
        CREATE TABLE club (
            singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
            name text NOT NULL,
            time_zone text NOT NULL,
            language text NOT NULL DEFAULT 'en',
            invite_code text NOT NULL,
            link_secret text NOT NULL,
            signing_key_pem text NOT NULL,
            clock_offset_ms bigint NOT NULL DEFAULT 0,
            created_at bigint NOT NULL)
        """,
        """
        CREATE TABLE club_organisers (
            id bigint PRIMARY KEY DEFAULT nextval('club_ids'),
            username text NOT NULL,
            password_hash text NOT NULL,
            owner boolean NOT NULL DEFAULT false,
            created_at bigint NOT NULL)
        """,
        "CREATE UNIQUE INDEX club_organisers_username ON club_organisers (lower(username))",
        // Precision 17: the owner exists exactly once, whichever instance registered it.
        "CREATE UNIQUE INDEX club_organisers_one_owner ON club_organisers (owner) WHERE owner",
        // Tokens are kept only as their SHA-256 (hex).
        """
        CREATE TABLE club_organiser_tokens (
            token_hash text PRIMARY KEY,
            organiser_id bigint NOT NULL REFERENCES club_organisers (id) ON DELETE CASCADE,
            created_at bigint NOT NULL,
            used_at bigint NOT NULL)
        """,
        "CREATE INDEX club_organiser_tokens_organiser ON club_organiser_tokens (organiser_id)",
        // Login attempts per key, shared by every instance (Precision 17).
        """
        CREATE TABLE club_login_attempts (
            id bigint PRIMARY KEY DEFAULT nextval('club_ids'),
            key text NOT NULL,
            at bigint NOT NULL,
            failed boolean NOT NULL DEFAULT false)
        """,
        "CREATE INDEX club_login_attempts_key ON club_login_attempts (key, at)",
        """
        CREATE TABLE club_login_lockouts (
            key text PRIMARY KEY,
            locked_until bigint NOT NULL)
        """,
        """
        CREATE TABLE club_members (
            id text PRIMARY KEY,
            name text NOT NULL,
            email text,
            language text,
            active boolean NOT NULL DEFAULT true,
            link_seed text NOT NULL,
            link_token_hash text NOT NULL UNIQUE,
            created_at bigint NOT NULL)
        """,
        "CREATE UNIQUE INDEX club_members_name ON club_members (lower(name))",
        """
        CREATE TABLE club_fixtures (
            id text PRIMARY KEY,
            title text NOT NULL,
            weekday integer NOT NULL CHECK (weekday BETWEEN 1 AND 7),
            local_time text NOT NULL,
            duration_minutes integer NOT NULL,
            place text NOT NULL,
            capacity integer NOT NULL,
            opens_hours_before integer NOT NULL,
            closes_minutes_before integer NOT NULL,
            claim_hours integer NOT NULL,
            last_minute_hours integer NOT NULL,
            reminder_hours_before integer[] NOT NULL,
            active boolean NOT NULL,
            created_at bigint NOT NULL)
        """,
        // A date's natural key (fixture, local date of the occurrence) keeps upserts single.
        """
        CREATE TABLE club_dates (
            id text PRIMARY KEY,
            fixture_id text NOT NULL REFERENCES club_fixtures (id),
            occurrence text NOT NULL,
            starts_at bigint NOT NULL,
            opens_at bigint NOT NULL,
            closes_at bigint NOT NULL,
            duration_minutes integer NOT NULL,
            capacity integer NOT NULL,
            claim_hours integer NOT NULL,
            last_minute_hours integer NOT NULL,
            status text NOT NULL CHECK (status IN ('scheduled', 'cancelled', 'played')),
            changed_alone boolean NOT NULL DEFAULT false,
            revision bigint NOT NULL DEFAULT 0,
            publish_seq bigint NOT NULL DEFAULT 0,
            UNIQUE (fixture_id, occurrence))
        """,
        "CREATE INDEX club_dates_starts_at ON club_dates (starts_at)",
        // `judged` keeps the order in which answers were judged (Precision 11: equal
        // answeredAt keep that order); `revision` rises with each change (calendar SEQUENCE).
        """
        CREATE TABLE club_answers (
            date_id text NOT NULL REFERENCES club_dates (id) ON DELETE CASCADE,
            member_id text NOT NULL REFERENCES club_members (id) ON DELETE CASCADE,
            answer text NOT NULL CHECK (answer IN ('in', 'out')),
            guests integer NOT NULL CHECK (guests BETWEEN 0 AND 3),
            state text NOT NULL CHECK (state IN ('confirmed', 'waiting', 'offered', 'out')),
            answered_at bigint NOT NULL,
            offer_expires_at bigint,
            offers_made integer NOT NULL DEFAULT 0,
            attended boolean,
            judged integer NOT NULL,
            revision bigint NOT NULL DEFAULT 0,
            PRIMARY KEY (date_id, member_id))
        """,
        "CREATE INDEX club_answers_member ON club_answers (member_id)",
        "CREATE INDEX club_answers_offers ON club_answers (offer_expires_at) WHERE state = 'offered'",
        // Exactly-once: the answer given to (scope, id), written in the change's own transaction.
        """
        CREATE TABLE club_kept_replies (
            scope text NOT NULL,
            id text NOT NULL,
            status integer NOT NULL,
            body text NOT NULL,
            kept_at bigint NOT NULL,
            PRIMARY KEY (scope, id))
        """,
    ]
}
