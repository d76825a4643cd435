import GatherModel
import GatherModelTestSupport
import GatherStore
import XCTest

/// What the coordinator commits is exactly what a restarted server loads.
final class StateDurabilityTests: XCTestCase {
    private var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder.remove() }

    private func reopen() throws -> SQLiteStore { try SQLiteStore(directory: folder.child("data")) }

    // MARK: - Migrations from nothing

    func testAnEmptyFolderBecomesAnEmptyDatabaseAtVersionZero() throws {
        let store = try SQLiteStore(directory: folder.child("new/nested/data"))
        XCTAssertEqual(store.path, folder.child("new/nested/data/gather.sqlite"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.child("new/nested/data/gather.sqlite")))
        let loaded = try store.load()
        XCTAssertEqual(loaded, LoadedState(state: GatherState(), version: 0))
        XCTAssertEqual(try store.allHistory(), [])
        XCTAssertEqual(try store.journal(after: 0), [])
    }

    func testReopeningAMigratedDatabaseKeepsItAsItWas() throws {
        try Writer(store: reopen()).addPlayer("Ann")
        let loaded = try reopen().load()
        XCTAssertEqual(loaded.version, 1)
        XCTAssertEqual(loaded.state.players.map(\.name), ["Ann"])
    }

    // MARK: - A whole state round trip

    func testRosterAndActiveGatherWithEventsSurviveARestart() throws {
        let writer = try Writer(store: reopen())
        let ann = try writer.addPlayer("Ann", age: 31, skill: .amateur, position: .striker, team: "Arsenal")
        let bob = try writer.addPlayer("Bob")
        let cat = try writer.addPlayer("Cat", age: 25, skill: .professional)
        let dan = try writer.addPlayer("Dan")
        try writer.apply(.editPlayer(cat, PlayerChanges(name: "Catherine", age: .clear, position: .set(.goalkeeper))))
        try writer.apply(.removePlayer(dan))
        try writer.apply(.createGather(playerIDs: [ann, bob, cat]))
        try writer.apply(.assign(ann, to: .A))
        try writer.apply(.assign(bob, to: .B))
        try writer.apply(.renameTeam(.A, name: "Reds, \"the\" best"))
        try writer.apply(.startGather)
        try writer.apply(.score(.A, delta: 1))
        try writer.apply(.startTimer)
        try writer.apply(.score(.B, delta: 1))
        try writer.apply(.pauseTimer)
        try writer.apply(.score(.B, delta: -1))

        let loaded = try reopen().load()
        XCTAssertEqual(loaded.state, writer.state)
        XCTAssertEqual(loaded.version, writer.version)
        XCTAssertEqual(loaded.state.players.map(\.id), [ann, bob, cat])
        XCTAssertEqual(loaded.state.player(cat), Player(id: cat, name: "Catherine", skill: .professional,
                                                        position: .goalkeeper))
        XCTAssertEqual(loaded.state.gather?.events.map(\.kind), [.kickoff, .goal, .timerStarted, .goal, .timerPaused,
                                                                 .goalCancelled])
        XCTAssertEqual(loaded.state.gather?.teamA.name, "Reds, \"the\" best")
    }

    func testARunningTimerIsStoredWithItsEndSoARestartCanRecomputeIt() throws {
        let writer = try Writer(store: reopen())
        let ids = [try writer.addPlayer("Ann"), try writer.addPlayer("Bob")]
        try writer.apply(.createGather(playerIDs: ids))
        try writer.apply(.assign(ids[0], to: .A))
        try writer.apply(.assign(ids[1], to: .B))
        try writer.apply(.startGather)
        try writer.apply(.startTimer)
        let timer = try XCTUnwrap(try reopen().load().state.gather?.timer)
        XCTAssertEqual(timer.status, .running)
        XCTAssertEqual(timer.endsAt, writer.now + 600_000)
    }

    func testCancellingTheGatherClearsItAndLeavesNoHistory() throws {
        let writer = try Writer(store: reopen())
        let ids = [try writer.addPlayer("Ann"), try writer.addPlayer("Bob")]
        try writer.apply(.createGather(playerIDs: ids))
        try writer.apply(.cancelGather)
        let loaded = try reopen().load()
        XCTAssertNil(loaded.state.gather)
        XCTAssertEqual(loaded.state.history, [])
        XCTAssertEqual(try reopen().allHistory(), [])
    }

    // MARK: - History

    func testHistoryIsNewestFirstCappedAtTwentyWhileAllHistoryKeepsEveryGather() throws {
        let writer = try Writer(store: reopen())
        let ann = try writer.addPlayer("Ann")
        let bob = try writer.addPlayer("Bob")
        for game in 0..<22 { try writer.playGather(teamA: [ann], teamB: [bob], goalsA: game % 3, goalsB: 1) }

        let store = try reopen()
        let loaded = try store.load()
        XCTAssertEqual(loaded.state, writer.state)
        XCTAssertEqual(loaded.state.history.count, GatherState.recentHistoryLimit)
        let all = try store.allHistory()
        XCTAssertEqual(all.count, 22)
        XCTAssertEqual(Array(all.prefix(20)), loaded.state.history)
        XCTAssertEqual(all.map(\.endedAt), all.map(\.endedAt).sorted(by: >), "newest first")
        XCTAssertEqual(all.last?.winner, .B, "the first gather ended 0–1")
        XCTAssertEqual(all.first?.teamA.players, [HistoryEntry.PlayerName(id: ann, name: "Ann")])
    }

    /// A correction to a gather older than the state's recent list rewrites its row where it is,
    /// in the commit's transaction; one naming a gather that is not stored writes nothing.
    func testAnAmendedOlderEntryIsRewrittenInItsPlaceAndAnUnknownOneFailsTheWholeCommit() throws {
        let writer = try Writer(store: reopen())
        let ann = try writer.addPlayer("Ann")
        let bob = try writer.addPlayer("Bob")
        for game in 0..<22 { try writer.playGather(teamA: [ann], teamB: [bob], goalsA: game % 3, goalsB: 1) }
        let store = try reopen()
        let before = try store.allHistory()
        var oldest = try XCTUnwrap(before.last)
        XCTAssertFalse(writer.state.history.contains { $0.id == oldest.id })
        XCTAssertEqual(try store.historyEntry(id: oldest.id), oldest)
        XCTAssertNil(try store.historyEntry(id: "no-such-gather"))

        oldest.settle(score: Score(A: 3, B: 1), penalties: nil)
        oldest.correctedAt = writer.now
        oldest.correctedBy = "bob"
        let entry = JournalEntry(version: writer.version + 1, organiser: "bob", commandID: "fix", kind: .correctResult,
                                 subjects: [], at: writer.now)
        try store.commit(before: writer.state, after: writer.state, entry: entry, amendedHistory: [oldest])
        let reopened = try reopen()
        XCTAssertEqual(try reopened.allHistory(), Array(before.dropLast()) + [oldest], "rewritten in its place")
        XCTAssertEqual(try reopened.historyEntry(id: oldest.id)?.winner, .A)
        XCTAssertEqual(try reopened.load().state.history, writer.state.history)
        XCTAssertEqual(try reopened.load().version, writer.version + 1)

        var stranger = oldest
        stranger.id = "no-such-gather"
        assertStoreError(["no-such-gather", "nothing was saved"]) {
            try reopened.commit(before: writer.state, after: writer.state,
                                entry: JournalEntry(version: writer.version + 2, organiser: "bob", commandID: "fix-2",
                                                    kind: .correctResult, subjects: [], at: writer.now),
                                amendedHistory: [stranger])
        }
        XCTAssertEqual(try reopened.load().version, writer.version + 1, "the whole commit was refused")
        XCTAssertEqual(try reopened.reply(organiser: "bob", commandID: "fix-2"), nil)
    }

    // MARK: - Counters

    func testNextPlayerIDSurvivesRemovingTheHighestPlayer() throws {
        let writer = try Writer(store: reopen())
        try writer.addPlayer("Ann")
        try writer.addPlayer("Bob")
        let cat = try writer.addPlayer("Cat")
        try writer.apply(.removePlayer(cat))

        let loaded = try reopen().load()
        XCTAssertEqual(loaded.state.nextPlayerID, cat + 1)
        let next = try Writer(store: reopen())
        XCTAssertEqual(try next.addPlayer("Dee"), cat + 1, "a removed player's id is never handed out again")
    }

    func testVersionPersistsAndNeverGoesBack() throws {
        let writer = try Writer(store: reopen())
        for name in ["Ann", "Bob", "Cat"] { try writer.addPlayer(name) }
        let store = try reopen()
        XCTAssertEqual(try store.load().version, 3)

        let state = try store.load().state
        var changed = state
        changed.players.removeAll()
        for stale in [3, 2, 0] {
            let entry = JournalEntry(version: stale, organiser: "bob", commandID: "stale-\(stale)", kind: .removePlayer,
                                     subjects: [.player(1)], at: 0)
            assertStoreError(["never go back"]) { try store.commit(before: state, after: changed, entry: entry) }
        }
        let after = try reopen().load()
        XCTAssertEqual(after.version, 3)
        XCTAssertEqual(after.state, state, "a refused commit changes nothing")
        XCTAssertNil(try store.reply(organiser: "bob", commandID: "stale-3"))
    }
}
