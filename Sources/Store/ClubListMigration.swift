import GRDB

/// Sunday's list on the laptop (docs/PROTOCOL.md §21): a player can be linked to a club member,
/// and every verified list the club published is kept here, so a restart or a mirror purged by a
/// forged rollup never loses it.
///
/// It only adds a nullable column and a new table, so it is independent of every earlier step and
/// keeps every stored row as it was: existing players start unlinked.
enum ClubListMigration {
    static let identifier = "club-list"

    static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE players ADD COLUMN member_id TEXT;

            CREATE TABLE club_dates (
                date_id TEXT NOT NULL PRIMARY KEY,
                seq INTEGER NOT NULL,
                starts_at INTEGER NOT NULL,
                ends_at INTEGER NOT NULL,
                body TEXT NOT NULL
            );
            """)
    }
}
