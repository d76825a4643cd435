import GRDB

/// Each journal row can carry its activity sentence as a key and params (JSON of `Sentence`),
/// so a page says it in its reader's language; older rows have none and keep their English summary.
enum ActivitySentenceMigration {
    static let identifier = "activity-sentence-keys"

    static func migrate(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE journal ADD COLUMN sentence TEXT")
        // A kept answer's sentence (key and params), so a resent id is answered word for word.
        try db.execute(sql: "ALTER TABLE replies ADD COLUMN sentence TEXT")
    }
}
