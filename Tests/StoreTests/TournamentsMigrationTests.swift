import Foundation
import GRDB
import GatherModel
@testable import GatherStore
import XCTest

/// The `tournaments` step on databases written by the first, second and third releases' binaries
/// (`Tests/Fixtures/release{1,2,3}.sqlite`): every row of every table before the step is there
/// after it with every value it had, the new table starts empty, and a tournament is then kept
/// across reopening — the active one in the state, finished and cancelled ones in the list.
final class TournamentsMigrationTests: FixtureMigrationTestCase {
    /// Brings the copy to the step before this one (what the third release's binary writes), reads
    /// every row, then opens it with this build and reads every row again.
    private func migrate(_ fixture: String, file: StaticString = #filePath, line: UInt = #line) throws {
        try copyFixture(fixture)
        let before: [String: [[String: DatabaseValue]]]
        do {
            let queue = try DatabaseQueue(path: database)
            try Schema.migrator.migrate(queue, upTo: PitchLastResultMigration.identifier)
            XCTAssertFalse(try queue.read { try $0.tableExists("tournaments") }, file: file, line: line)
            before = try queue.read(everyRow)
            try queue.close()
        }
        let store = try SQLiteStore(directory: folder.child("data"))
        XCTAssertNil(try store.load().state.tournament, file: file, line: line)
        XCTAssertTrue(try store.allTournaments().isEmpty, file: file, line: line)
        let queue = try DatabaseQueue(path: database)
        defer { try? queue.close() }
        var after = try queue.read(everyRow)
        XCTAssertEqual(after.removeValue(forKey: "tournaments"), [], "a new, empty table", file: file, line: line)
        // Referee links (a later migration): new tables, empty.
        for table in ["referee_links", "referee_sessions"] {
            XCTAssertEqual(after.removeValue(forKey: table), [], "a new, empty \(table)", file: file, line: line)
        }
        // The keyed sentence of an activity row and of a kept answer (a later migration) is a new
        // column, empty in every old row.
        for table in ["journal", "replies"] {
            after[table] = after[table]?.map { row in
                var row = row
                XCTAssertEqual(row.removeValue(forKey: "sentence"), .null, "\(table)", file: file, line: line)
                return row
            }
        }
        XCTAssertEqual(after, before, "every other row of every table, every value", file: file, line: line)
        XCTAssertGreaterThan(before.values.map(\.count).reduce(0, +), 20, "the fixture holds data", file: file, line: line)
        let applied = try queue.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations") }
        XCTAssertEqual(Set(applied), Set(Schema.knownMigrations), file: file, line: line)
    }

    func testTheFirstReleasesDatabaseLosesNothing() throws { try migrate("release1.sqlite") }

    func testTheSecondReleasesDatabaseLosesNothing() throws { try migrate("release2.sqlite") }

    func testTheThirdReleasesDatabaseLosesNothing() throws { try migrate("release3.sqlite") }

    /// What the third release's fixture holds (make_release3_fixture.py), read by this build.
    func testTheThirdReleasesDatabaseReadsBackWhole() throws {
        try copyFixture("release3.sqlite")
        let store = try SQLiteStore(directory: folder.child("data"))
        let loaded = try store.load()
        XCTAssertEqual(loaded.version, 41)
        XCTAssertEqual(loaded.state.players.map(\.name), ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"])
        XCTAssertEqual(loaded.state.pitches.map(\.name), ["Pitch 1", "Back pitch", "Five-a-side cage"])
        let full = try XCTUnwrap(loaded.state.pitches[0].lastResult, "pitch 1's full time")
        XCTAssertEqual([full.teamA.name, full.teamB.name], ["Whites", "Reds"])
        XCTAssertEqual([full.teamA.colour, full.teamB.colour], [.yellow, .purple])
        XCTAssertEqual(full.score, Score(A: 2, B: 1), "the cancelled goal was restored")
        let live = try XCTUnwrap(loaded.state.pitches[1].gather)
        XCTAssertEqual(live.phase, .live)
        XCTAssertEqual(live.score, Score(A: 1, B: 0), "B's goal cancelled, A's stands")
        XCTAssertTrue(live.events.contains { $0.kind == .teamsBalanced })
        XCTAssertNil(loaded.state.pitches[2].gather)
        XCTAssertEqual(try store.allHistory().count, 2)
        XCTAssertEqual(try store.reply(organiser: "bob", commandID: "kept-rejection"),
                       .rejected(code: .inUse, message: "Bob is in the gather on Back pitch; take them out first.", version: 41))
        XCTAssertEqual(try store.organiser(username: "ann")?.username, "ann")
    }

    // MARK: - Keeping tournaments

    private static func tournament(_ id: String) -> Tournament {
        Tournament(id: id, name: "Cup \(id)", teamNames: ["Reds", "Blues", "Greens", "Whites"], groupCount: 1,
                   settings: TournamentSettings(startsAt: 1_790_000_000_000, pitches: [1], advance: 2))
    }

    private func commit(_ store: SQLiteStore, _ change: (inout GatherState) throws -> Void) throws {
        let loaded = try store.load()
        var after = loaded.state
        try change(&after)
        try store.commit(before: loaded.state, after: after,
                         entry: JournalEntry(version: loaded.version + 1, organiser: "ann", commandID: "c\(loaded.version + 1)",
                                             kind: .endGather, subjects: [.gather(1)], at: 1_790_000_000_000))
    }

    func testATournamentIsKeptAcrossReopeningFinishedOnesStayAndACancelledOneLeavesTheState() throws {
        try copyFixture("release3.sqlite")
        var store: SQLiteStore? = try SQLiteStore(directory: folder.child("data"))
        var first = Self.tournament("t1")
        try commit(store!) { $0.tournament = first }
        store = nil
        store = try SQLiteStore(directory: folder.child("data"))
        XCTAssertEqual(try store!.load().state.tournament, first)

        // Play it to the end; each change is written whole.
        for match in first.matches {
            let kickoff = first.match(match.id)!.expectedAt
            try first.startMatch(match.id, at: kickoff)
            try first.finishMatch(match.id, score: HomeAway(home: 2, away: 1), penalties: nil, endedAt: kickoff + 600_000,
                                  historyID: "h\(match.id)")
            try commit(store!) { $0.tournament = first }
        }
        XCTAssertEqual(first.phase, .finished)
        store = try SQLiteStore(directory: folder.child("data"))
        XCTAssertEqual(try store!.load().state.tournament, first, "a finished tournament stays in the state")

        // The next one takes its place; the finished one is kept as it was.
        let second = Self.tournament("t2")
        try commit(store!) { $0.tournament = second }
        store = try SQLiteStore(directory: folder.child("data"))
        XCTAssertEqual(try store!.load().state.tournament, second)
        XCTAssertEqual(try store!.allTournaments().map(\.tournament), [second, first])
        XCTAssertEqual(try store!.allTournaments().map(\.cancelled), [false, false])

        // Cancelled: out of the state, kept in the list.
        try commit(store!) { $0.tournament = nil }
        store = try SQLiteStore(directory: folder.child("data"))
        XCTAssertNil(try store!.load().state.tournament)
        XCTAssertEqual(try store!.allTournaments().map(\.tournament.id), ["t2", "t1"])
        XCTAssertEqual(try store!.allTournaments().map(\.cancelled), [true, false])
    }

    /// A match's result and the gather's history entry are one commit: a commit that fails
    /// (here: a version already stored) writes neither.
    func testATournamentChangeIsInTheSameTransactionAsTheRestOfTheCommit() throws {
        try copyFixture("release3.sqlite")
        let store = try SQLiteStore(directory: folder.child("data"))
        let loaded = try store.load()
        var after = loaded.state
        after.tournament = Self.tournament("t1")
        XCTAssertThrowsError(try store.commit(before: loaded.state, after: after,
                                              entry: JournalEntry(version: loaded.version, organiser: nil, commandID: nil,
                                                                  kind: .endGather, subjects: [], at: 0)))
        XCTAssertNil(try store.load().state.tournament)
        XCTAssertTrue(try store.allTournaments().isEmpty)
    }
}
