import Foundation
import GRDB
import GatherModel
@testable import GatherStore
import XCTest

/// Release 3's `v3-sunday-pitch-last-result` step: a nullable column on `pitches`, independent of
/// the same release's `v3-organisers`, so a database that met either step first is brought
/// forward by the other; nothing already stored changes, and every pitch starts with no last result.
final class PitchLastResultMigrationTests: FixtureMigrationTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try copyFixture("release1.sqlite")
    }

    /// The release-2 schema, then this step alone (as a build that had it and not the accounts step would).
    private func migrateLastResultFirst() throws -> [String: String?] {
        let queue = try DatabaseQueue(path: database)
        defer { try? queue.close() }
        try Schema.migrator.migrate(queue, upTo: "v2-pitches-and-records")
        let pitches = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT id, name, gather_json FROM pitches ORDER BY id")
                .map { ("\($0["id"] as Int):\($0["name"] as String)", $0["gather_json"] as String?) }
        }
        var alone = DatabaseMigrator()
        alone.registerMigration(PitchLastResultMigration.identifier, migrate: PitchLastResultMigration.migrate)
        try alone.migrate(queue)
        return Dictionary(uniqueKeysWithValues: pitches)
    }

    func testTheStepRunBeforeTheAccountsStepIsFollowedByItAndLosesNothing() throws {
        let before = try migrateLastResultFirst()
        let store = try SQLiteStore(directory: folder.child("data"))
        let loaded = try store.load()
        XCTAssertEqual(loaded.version, 40)
        XCTAssertEqual(loaded.state.pitches.map(\.lastResult), [nil], "an upgraded pitch has no last result yet")
        XCTAssertEqual(before.count, loaded.state.pitches.count)
        let queue = try DatabaseQueue(path: database)
        defer { try? queue.close() }
        let applied = try queue.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier") }
        XCTAssertEqual(applied, ["activity-sentence-keys", "tournaments", "v1", "v2-pitches-and-records", "v3-organisers", "v3-sunday-pitch-last-result", "v5-referee-links"])
        try queue.read { db in
            XCTAssertTrue(try db.columns(in: "organisers").contains { $0.name == "owner" }, "the accounts step ran after")
            let kept = try Row.fetchAll(db, sql: "SELECT id, name, gather_json FROM pitches ORDER BY id")
                .map { ("\($0["id"] as Int):\($0["name"] as String)", $0["gather_json"] as String?) }
            XCTAssertEqual(Dictionary(uniqueKeysWithValues: kept), before, "pitches and their gathers unchanged")
        }
    }

    func testALastResultIsStoredWithItsPitchAndReadBack() throws {
        let store = try SQLiteStore(directory: folder.child("data"))
        let loaded = try store.load()
        var after = loaded.state
        let entry = HistoryEntry(id: "g-last", endedAt: 1_795_456_800_000, pitch: .first,
                                 teamA: .init(name: "Whites", players: [.init(id: 1, name: "Ann")], colour: .yellow),
                                 teamB: .init(name: "Team B", players: [.init(id: 2, name: "Bob")]),
                                 score: Score(A: 1, B: 0), goals: [.init(team: .A, playerId: 1, assistId: nil, matchMs: 60_000)])
        after.pitches[0].lastResult = entry
        try store.commit(before: loaded.state, after: after,
                         entry: JournalEntry(version: loaded.version + 1, organiser: "ann", commandID: "c-last", kind: .endGather,
                                             subjects: [.gather(1)], at: entry.endedAt))
        XCTAssertEqual(try SQLiteStore(directory: folder.child("data")).load().state.pitches[0].lastResult, entry)
    }
}
