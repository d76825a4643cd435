import GRDB

/// Referee links (docs/PROTOCOL.md §20): each link kept by the SHA-256 of its code (never the code),
/// and the sessions its phones opened by the SHA-256 of their tokens, so links and their phones
/// survive a restart. Only new tables: every earlier database (the committed fixtures included)
/// is brought forward unchanged, with no links.
///
/// A session row goes with its link (`ON DELETE CASCADE`): revoking, expiry and removing the pitch
/// delete the link's row, and its phones' tokens with it, in one statement.
enum RefereeLinksMigration {
    static let identifier = "v5-referee-links"

    static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE referee_links (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                code_hash TEXT NOT NULL UNIQUE,
                pitch INTEGER NOT NULL,
                label TEXT NOT NULL,
                created_by TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL
            );

            CREATE TABLE referee_sessions (
                token_hash TEXT NOT NULL PRIMARY KEY,
                link_id INTEGER NOT NULL REFERENCES referee_links (id) ON DELETE CASCADE,
                created_at INTEGER NOT NULL
            );
            CREATE INDEX referee_sessions_by_link ON referee_sessions (link_id);
            """)
    }
}
