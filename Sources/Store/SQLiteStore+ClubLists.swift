import GRDB
import GatherModel

/// The club's verified lists (`ClubListMigration`'s `club_dates`): written when one arrives, not
/// with a change of the state, since a list is the club's and never an organiser's change. Each
/// new list is a new version of the state (organisers see it), so the version moves on with it,
/// with no journal entry: no command's subject changed, so arbitration has nothing to judge.
extension SQLiteStore {
    public func keepClubList(_ list: ClubDateList, version: Int) throws {
        try Self.namingAFullDisk { try writer.write { db in
            try db.execute(sql: "UPDATE meta SET version = ? WHERE id = 1 AND version < ?", arguments: [version, version])
            guard db.changesCount == 1 else {
                let stored = try Int.fetchOne(db, sql: "SELECT version FROM meta WHERE id = 1") ?? -1
                throw StoreError("Version \(version) was refused because version \(stored) is already stored; versions never go back.")
            }
            try db.execute(sql: """
                INSERT INTO club_dates (date_id, seq, starts_at, ends_at, body) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (date_id) DO UPDATE SET seq = excluded.seq, starts_at = excluded.starts_at,
                    ends_at = excluded.ends_at, body = excluded.body
                WHERE excluded.seq > club_dates.seq
                """, arguments: [list.date, list.seq, list.startsAt, list.endsAt, Rows.json(list)])
        } }
    }

    /// The newest kept lists (`ClubDateList.maximumHeld` at most), by start.
    static func clubLists(_ db: Database) throws -> [ClubDateList] {
        try String.fetchAll(db, sql: """
            SELECT body FROM (SELECT body, starts_at, date_id FROM club_dates ORDER BY starts_at DESC, date_id DESC LIMIT ?)
            ORDER BY starts_at, date_id
            """, arguments: [ClubDateList.maximumHeld])
            .map { try Rows.value(ClubDateList.self, fromJSON: $0, what: "club list") }
    }
}
