import Foundation
import GRDB
import GatherModel
@testable import GatherStore
import XCTest

/// `Tests/Fixtures/release4.sqlite`, a database written by the fourth release's binary
/// (`make_release4_fixture.py`), opened by this build: every migration after release 4's is run
/// on it, and every row of every table it held is still there with every value it had; then what
/// it holds reads back whole.
///
/// A later migration that adds a column or a table passes here as it is (its new values are its
/// own tests' business); one that rewrites or drops what release 4 wrote fails here, on purpose:
/// it must then say in this test what it changes and why nothing is lost.
final class Release4FixtureTests: FixtureMigrationTestCase {
    /// The steps release 4's binary knew: the fixture has exactly these applied.
    private static let releaseFourMigrations = [
        "v1", "v2-pitches-and-records", OrganisersMigration.identifier, PitchLastResultMigration.identifier,
        TournamentsMigration.identifier, ActivitySentenceMigration.identifier,
    ]

    /// What the recipe did: the version of its last change, and what it played.
    private static let version = 215
    private static let historyRows = 31

    func testEveryLaterMigrationKeepsEveryRowAndEveryValue() throws {
        try copyFixture("release4.sqlite")
        let before: [String: [[String: DatabaseValue]]]
        do {
            let queue = try DatabaseQueue(path: database)
            let applied = try queue.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations") }
            XCTAssertEqual(Set(applied), Set(Self.releaseFourMigrations), "written by release 4, not migrated since")
            before = try queue.read(everyRow)
            try queue.close()
        }
        XCTAssertGreaterThan(before.values.map(\.count).reduce(0, +), 300, "the fixture holds data")

        _ = try SQLiteStore(directory: folder.child("data"))  // runs every migration after release 4's
        let queue = try DatabaseQueue(path: database)
        defer { try? queue.close() }
        let after = try queue.read(everyRow)
        let applied = try queue.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations") }
        XCTAssertEqual(Set(applied), Set(Schema.knownMigrations), "every step this build knows")
        for (table, rows) in before.sorted(by: { $0.key < $1.key }) {
            let migrated = try XCTUnwrap(after[table], "table \(table) is still there")
            XCTAssertEqual(migrated.count, rows.count, "rows of \(table)")
            for (index, (old, new)) in zip(rows, migrated).enumerated() {
                for (column, value) in old.sorted(by: { $0.key < $1.key }) {
                    XCTAssertEqual(new[column], value, "\(table) row \(index + 1), column \(column)")
                }
            }
        }
    }

    /// What the recipe made, read by this build's Store.
    func testWhatReleaseFourWroteReadsBackWhole() throws {
        try copyFixture("release4.sqlite")
        let store = try SQLiteStore(directory: folder.child("data"))
        let loaded = try store.load()
        XCTAssertEqual(loaded.version, Self.version)
        let state = loaded.state
        XCTAssertEqual(state.players.map(\.name), ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"])
        XCTAssertEqual(state.player(7)?.favouriteTeam, "Benfica")
        XCTAssertEqual(state.pitches.map(\.name), ["Pitch 1", "Back pitch", "Five-a-side cage"])

        // The history: every row in the table, the newest 20 in the state; the cup only in the table.
        let history = try store.allHistory()
        XCTAssertEqual(history.count, Self.historyRows)
        XCTAssertEqual(state.history, Array(history.prefix(GatherState.recentHistoryLimit)))
        let sunday = try XCTUnwrap(history.last, "the first gather of all")
        XCTAssertEqual([sunday.teamA.name, sunday.teamB.name], ["Whites", "Reds"])
        XCTAssertEqual([sunday.teamA.colour, sunday.teamB.colour], [.yellow, .purple])
        XCTAssertEqual(sunday.score, Score(A: 2, B: 1), "the cancelled goal was restored")
        XCTAssertEqual(sunday.goals.compactMap(\.playerId), [1, 6, 3])

        // The cup: finished, its champion, the corrected group match, the shoot-out, the renamed team.
        let cup = try XCTUnwrap(state.tournament)
        XCTAssertEqual(cup.name, "Riverside Cup")
        XCTAssertEqual(cup.phase, .finished)
        XCTAssertEqual(cup.teams.map(\.name), ["Reds", "Blues", "Greens", "Old Golds", "Whites", "Blacks"])
        XCTAssertEqual(cup.teams.map(\.players), [[1, 2], [3, 4], [5, 6], [7, 8], [], []])
        XCTAssertEqual(cup.matches.map(\.stage), Array(repeating: .group, count: 6) + [.semiFinal, .semiFinal, .thirdPlace, .final])
        XCTAssertEqual(cup.matches.map { [$0.home, $0.away] }, [[3, 5], [4, 6], [1, 3], [2, 4], [1, 5], [2, 6], [1, 4], [2, 3], [4, 2], [1, 3]])
        XCTAssertEqual(cup.matches.map { $0.score.map { [$0.home, $0.away] } },
                       [[1, 0], [1, 0], [3, 0], [1, 0], [1, 0], [1, 0], [1, 1], [0, 2], [3, 1], [2, 1]], "match 3 as corrected")
        XCTAssertEqual(cup.matches[6].penalties, HomeAway(home: 5, away: 4))
        XCTAssertEqual(cup.matches.map(\.winner), [3, 4, 1, 2, 1, 2, 1, 3, 4, 1])
        let cupEntries = Set(cup.matches.compactMap(\.historyId))
        XCTAssertEqual(cupEntries.count, 10)
        XCTAssertTrue(cupEntries.isSubset(of: Set(history.map(\.id))))
        XCTAssertTrue(cupEntries.isDisjoint(with: Set(state.history.map(\.id))), "every match past the recent 20")
        // Release 4 never wrote a correction or a shoot-out into history: those entries say what was played.
        let redsGreens = try XCTUnwrap(history.first { $0.id == cup.matches[2].historyId })
        XCTAssertEqual([redsGreens.teamA.name, redsGreens.teamB.name], ["Reds", "Greens"])
        XCTAssertEqual(redsGreens.score, Score(A: 1, B: 0), "as played; release 4 corrected only the tournament")
        XCTAssertNil(redsGreens.correctedAt)
        let shootOut = try XCTUnwrap(history.first { $0.id == cup.matches[6].historyId })
        XCTAssertEqual(shootOut.score, Score(A: 1, B: 1))
        XCTAssertNil(shootOut.penalties, "release 4 kept the shoot-out in the tournament only")
        XCTAssertEqual(try store.allTournaments().map { [$0.tournament.name, "\($0.cancelled)"] },
                       [["Riverside Cup", "false"], ["Spring Cup", "true"]])

        // What was going on when it stopped.
        let live = try XCTUnwrap(state.pitches[2].gather)
        XCTAssertEqual(live.phase, .live)
        XCTAssertEqual(live.score, Score(A: 1, B: 0), "B's goal cancelled, A's stands")
        XCTAssertEqual(live.events.filter { $0.kind == .goal }.map { $0.cancelled == true }, [true, false])
        let setUp = try XCTUnwrap(state.pitches[1].gather)
        XCTAssertEqual(setUp.phase, .setup)
        XCTAssertTrue(setUp.events.contains { $0.kind == .teamsBalanced })
        XCTAssertNil(state.pitches[0].gather)

        // The accounts, the activity and the exactly-once memory.
        XCTAssertEqual(try store.organisers(sessionsUsedSince: 0).map { [$0.username, "\($0.owner)", "\($0.sessions)"] },
                       [["ann", "true", "1"], ["bob", "false", "1"]])
        let activity = try store.activity(before: nil, limit: 1000)
        XCTAssertEqual(activity.map(\.version), Array((1...Self.version).reversed()))
        XCTAssertTrue(activity.allSatisfy { $0.summary != nil && $0.sentence != nil }, "every change has its sentence")
        guard case .rejected(.inUse, _, Self.version, _) = try store.reply(organiser: "bob", commandID: "kept-rejection") else {
            return XCTFail("the kept rejection: \(String(describing: try store.reply(organiser: "bob", commandID: "kept-rejection")))")
        }
    }
}
