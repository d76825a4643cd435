import GRDB
import GatherModel

/// The club's verified lists (`ClubListMigration`'s `club_dates`): written when one arrives, not
/// with a change of the state, since a list is the club's and never an organiser's change.
extension SQLiteStore {
    public func keepClubList(_ list: ClubDateList) throws {
        try Self.namingAFullDisk { try writer.write { db in
            try db.execute(sql: """
                INSERT INTO club_dates (date_id, seq, starts_at, ends_at, body) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (date_id) DO UPDATE SET seq = excluded.seq, starts_at = excluded.starts_at,
                    ends_at = excluded.ends_at, body = excluded.body
                WHERE excluded.seq > club_dates.seq
                """, arguments: [list.date, list.seq, list.startsAt, list.endsAt, Rows.json(list)])
        } }
    }

    /// Every kept list, by start.
    static func clubLists(_ db: Database) throws -> [ClubDateList] {
        try String.fetchAll(db, sql: "SELECT body FROM club_dates ORDER BY starts_at, date_id")
            .map { try Rows.value(ClubDateList.self, fromJSON: $0, what: "club list") }
    }
}
