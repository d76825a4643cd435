import Foundation
import GRDB
@testable import GatherStore
import XCTest

/// Release 3's `v3-organisers` step on databases written by the first and the second release:
/// every row of every table is still there with every value it had, the oldest account is the
/// one owner, and the new columns start empty or derived.
final class OrganisersMigrationTests: FixtureMigrationTestCase {
    /// Brings the copy to the step before release 3 (release 2's schema), reads every row, then
    /// opens it with this build and checks that each of those rows is still there, unchanged.
    private func assertNothingLost(fixture: String, file: StaticString = #filePath, line: UInt = #line) throws
        -> [String: [[String: DatabaseValue]]]
    {
        try copyFixture(fixture)
        let before: [String: [[String: DatabaseValue]]]
        do {
            let queue = try DatabaseQueue(path: database)
            try Schema.migrator.migrate(queue, upTo: "v2-pitches-and-records")
            before = try queue.read(everyRow)
            try queue.close()
        }
        _ = try SQLiteStore(directory: folder.child("data"))
        let queue = try DatabaseQueue(path: database)
        defer { try? queue.close() }
        let after = try queue.read(everyRow)
        let applied = try queue.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations") }
        XCTAssertTrue(applied.contains(OrganisersMigration.identifier), file: file, line: line)
        for (table, rows) in before {
            let migrated = after[table] ?? []
            XCTAssertEqual(migrated.count, rows.count, "rows of \(table)", file: file, line: line)
            for (old, new) in zip(rows, migrated) {
                for (column, value) in old {
                    XCTAssertEqual(new[column], value, "\(table).\(column)", file: file, line: line)
                }
            }
        }
        XCTAssertGreaterThan(before.values.map(\.count).reduce(0, +), 20, "the fixture holds data", file: file, line: line)
        return after
    }

    func testReleaseTwoKeepsEveryRowAndItsOldestAccountBecomesTheOwner() throws {
        let after = try assertNothingLost(fixture: "release2.sqlite")
        let organisers = after["organisers"] ?? []
        XCTAssertEqual(organisers.map { String.fromDatabaseValue($0["username"]!) }, ["ann", "bob"])
        XCTAssertEqual(organisers.map { Int.fromDatabaseValue($0["owner"]!) }, [1, 0], "ann registered first")
        XCTAssertTrue(organisers.allSatisfy { $0["removed_at"]!.isNull })
        for organiser in organisers {
            let created = Int64.fromDatabaseValue(organiser["created_at"]!)!
            XCTAssertGreaterThanOrEqual(Int64.fromDatabaseValue(organiser["last_seen_at"]!)!, created)
        }
        XCTAssertTrue(after["meta"]![0]["invite_code"]!.isNull, "filled at the first start, not by the migration")
        XCTAssertEqual(after["journal"]!.count, 38)
        XCTAssertTrue(after["journal"]!.allSatisfy { $0["summary"]!.isNull && $0["pitch"]!.isNull })

        // The store reads it all as before, and the group's rules hold on it.
        let store = try SQLiteStore(directory: folder.child("data"))
        XCTAssertEqual(try store.load().version, 38)
        XCTAssertEqual(try store.organisers(sessionsUsedSince: 0).map { [$0.username, "\($0.owner)", "\($0.sessions)"] },
                       [["ann", "true", "1"], ["bob", "false", "1"]])
        XCTAssertEqual(try store.activity(before: nil, limit: 3).map(\.version), [38, 37, 36])
        XCTAssertEqual(try store.activity(before: 37, limit: 2).map(\.version), [36, 35])
    }

    func testReleaseOneKeepsEveryRowThroughBothSteps() throws {
        let after = try assertNothingLost(fixture: "release1.sqlite")
        XCTAssertEqual(after["organisers"]!.map { Int.fromDatabaseValue($0["owner"]!) }, [1], "its only account")
        let store = try SQLiteStore(directory: folder.child("data"))
        XCTAssertEqual(try store.organiser(username: "ANN")?.owner, true)
    }

    func testTheOldestAccountIsChosenByCreationNotByName() throws {
        let queue = try DatabaseQueue(path: database)
        try Schema.migrator.migrate(queue, upTo: "v2-pitches-and-records")
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO organisers (username, password_hash, created_at) VALUES ('zed', 'h', 100), ('amy', 'h', 200);
                """)
        }
        try queue.close()
        let store = try SQLiteStore(directory: folder.child("data"))
        XCTAssertEqual(try store.organisers(sessionsUsedSince: 0).map(\.owner), [true, false])
        XCTAssertEqual(try store.organisers(sessionsUsedSince: 0).first?.username, "zed")
    }
}
