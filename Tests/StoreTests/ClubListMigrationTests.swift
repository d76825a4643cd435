import Foundation
import GRDB
import GatherModel
@testable import GatherStore
import XCTest

/// The `club-list` step on a database the third release wrote: every player starts unlinked, and a
/// member link, a gather's club date and a history entry's club date and member ids are kept
/// across a reopening (docs/PROTOCOL.md §21).
final class ClubListMigrationTests: FixtureMigrationTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try copyFixture("release3.sqlite")
    }

    func testOldPlayersStartUnlinkedAndTheListTableIsEmpty() throws {
        let loaded = try SQLiteStore(directory: folder.child("data")).load()
        XCTAssertFalse(loaded.state.players.isEmpty, "the fixture holds players")
        XCTAssertEqual(loaded.state.players.compactMap(\.memberId), [])
        let queue = try DatabaseQueue(path: database)
        defer { try? queue.close() }
        XCTAssertEqual(try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM club_dates") }, 0)
    }

    func testALinkAClubDateAndAHistoryEntryOfAClubDateAreKept() throws {
        let store = try SQLiteStore(directory: folder.child("data"))
        let loaded = try store.load()
        var after = loaded.state
        after.players[0].memberId = "m-17"
        let first = after.players[0]
        let entry = {
            var entry = HistoryEntry(id: "g-club", endedAt: 1_795_456_800_000, pitch: .first,
                                     teamA: .init(name: "Team A", players: [.init(id: first.id, name: first.name, memberId: "m-17")]),
                                     teamB: .init(name: "Team B", players: [.init(id: 999, name: "Ann's guest 1")]),
                                     score: Score(A: 2, B: 1))
            entry.clubDate = "d-42"
            return entry
        }()
        after.history.insert(entry, at: 0)
        after.history = Array(after.history.prefix(GatherState.recentHistoryLimit))
        try store.commit(before: loaded.state, after: after,
                         entry: JournalEntry(version: loaded.version + 1, organiser: "ann", commandID: "c-club",
                                             kind: .editPlayer, subjects: [.player(first.id)], at: entry.endedAt))
        let reopened = try SQLiteStore(directory: folder.child("data")).load()
        XCTAssertEqual(reopened.state.players[0].memberId, "m-17")
        XCTAssertEqual(reopened.state.history.first, entry)
        XCTAssertEqual(reopened.state.history.first?.clubDate, "d-42")
        XCTAssertEqual(reopened.state.history.first?.teamA.players.first?.memberId, "m-17")
        XCTAssertEqual(reopened.state.players.dropFirst().compactMap(\.memberId), [], "only that player is linked")
    }
}

/// Verified club lists in the Store: only a higher `seq` replaces a date's list, and `load`
/// holds the newest `ClubDateList.maximumHeld` of them, by start.
final class ClubListStoreTests: XCTestCase {
    private func list(_ date: Int, seq: Int64) -> ClubDateList {
        ClubDateList(club: "fc", date: "\(date)", startsAt: Int64(date) * 604_800_000, durationMinutes: 60, title: "Sunday",
                     place: "", status: "scheduled", seq: seq, confirmed: [.init(memberId: "m1", name: "Ann", guests: 0)])
    }

    func testANewerSeqReplacesAndLoadKeepsTheNewestDates() throws {
        let store = try SQLiteStore.inMemory()
        try store.keepClubList(list(1, seq: 5), version: 1)
        try store.keepClubList(list(1, seq: 4), version: 2)
        XCTAssertEqual(try store.load().state.clubDates, [list(1, seq: 5)], "an older seq is not written")
        for date in 2...(ClubDateList.maximumHeld + 5) { try store.keepClubList(list(date, seq: 1), version: date + 1) }
        XCTAssertEqual(try store.load().version, ClubDateList.maximumHeld + 6, "each kept list moved the version on")
        let held = try store.load().state.clubDates
        XCTAssertEqual(held.count, ClubDateList.maximumHeld)
        XCTAssertEqual(held.first?.date, "6")
        XCTAssertEqual(held.last?.date, "\(ClubDateList.maximumHeld + 5)")
    }

    func testAListWhoseVersionIsNotNewerIsRefusedAndNothingIsWritten() throws {
        let store = try SQLiteStore.inMemory()
        try store.keepClubList(list(1, seq: 1), version: 3)
        XCTAssertThrowsError(try store.keepClubList(list(2, seq: 1), version: 3))
        XCTAssertThrowsError(try store.keepClubList(list(1, seq: 2), version: 2))
        let loaded = try store.load()
        XCTAssertEqual(loaded.version, 3)
        XCTAssertEqual(loaded.state.clubDates, [list(1, seq: 1)])
    }
}
