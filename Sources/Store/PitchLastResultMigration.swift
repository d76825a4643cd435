import GRDB

/// Full time on every pitch: each pitch keeps its last result ("Full time") until its next gather, across restarts.
///
/// It only adds a nullable column to `pitches`, so it is independent of every other migration of
/// the same release (accounts, the invite code) and can run before or after them. Databases
/// brought forward start with no last result: an older release never said whether a gather was
/// created (and cancelled) on a pitch after its last result, so guessing could show a stale
/// "Full time".
enum PitchLastResultMigration {
    static let identifier = "v3-sunday-pitch-last-result"

    static func migrate(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE pitches ADD COLUMN last_result_json TEXT")
    }
}
