import Foundation
import GRDB
import GatherModel
import GatherModelTestSupport
import GatherStore
import XCTest

/// A database written by the first release's binary (Tests/Fixtures/release1.sqlite, made by
/// make_release1_fixture.py) opened by this build: nothing lost, and the records replayed with
/// the rule a gather ending now applies.
final class MigrationTests: XCTestCase {
    private var folder: TemporaryFolder!

    private static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/release1.sqlite").path

    override func setUpWithError() throws {
        folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.child("data"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: database)
    }

    override func tearDown() { folder.remove() }

    private var database: String { folder.child("data/gather.sqlite") }

    private func open() throws -> SQLiteStore { try SQLiteStore(directory: folder.child("data")) }

    private func migrations() throws -> [String] {
        let queue = try DatabaseQueue(path: database)
        defer { try? queue.close() }
        return try queue.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier") }
    }

    // MARK: - What the fixture holds, brought forward by hand

    /// The ratings replayed through the two finished gathers in the order they ended:
    ///
    /// Start from skill: Ann 1400, Bob 1200, Cid 1000, Dee 1200, Eve (no skill) 1200, Fay 1400.
    ///
    /// Gather 1, Reds (Ann, Bob, Cid) 2–1 Team B (Dee, Eve, Fay): means 3600 / 3 = 1200 and
    /// 3800 / 3 = 1266.67. E_A = 1 / (1 + 10^(66.67 / 400)) = 1 / (1 + 1.4678) = 0.405219;
    /// Δ_A = round(32 × (1 − 0.405219)) = round(19.033) = +19, Δ_B = round(−19.033) = −19.
    /// → Ann 1419, Bob 1219, Cid 1019, Dee 1181, Eve 1181, Fay 1381.
    ///
    /// Gather 2, Team A (Ann 1419, Dee 1181) 1–1 Team B (Bob 1219, Eve 1181), Cid on the bench:
    /// means 1300 and 1200. E_A = 1 / (1 + 10^(−100 / 400)) = 1 / (1 + 0.562341) = 0.640065;
    /// Δ_A = round(32 × (0.5 − 0.640065)) = round(−4.482) = −4, Δ_B = +4.
    /// → Ann 1415, Dee 1177, Bob 1223, Eve 1185; Cid 1019 and Fay 1381 unchanged.
    ///
    /// No goals: the first release never knew who scored.
    private let expectedPlayers = [
        Player(id: 1, name: "Ann", age: 31, skill: .professional, position: .striker, favouriteTeam: "Arsenal",
               rating: 1415, stats: PlayerStats(games: 2, wins: 1, draws: 1)),
        Player(id: 2, name: "Bob", age: 28, skill: .amateur, position: .goalkeeper,
               rating: 1223, stats: PlayerStats(games: 2, wins: 1, draws: 1)),
        Player(id: 3, name: "Cid", skill: .beginner, position: .defender,
               rating: 1019, stats: PlayerStats(games: 1, wins: 1)),
        Player(id: 4, name: "Dee", age: 40, skill: .amateur, position: .goalkeeper, favouriteTeam: "Celtic",
               rating: 1177, stats: PlayerStats(games: 2, draws: 1, losses: 1)),
        Player(id: 5, name: "Eve", position: .midfielder, rating: 1185, stats: PlayerStats(games: 2, draws: 1, losses: 1)),
        Player(id: 6, name: "Fay", skill: .professional, position: .winger,
               rating: 1381, stats: PlayerStats(games: 1, losses: 1)),
    ]

    private static func lineup(_ name: String, _ players: [(Int, String)]) -> HistoryEntry.Lineup {
        HistoryEntry.Lineup(name: name, players: players.map { HistoryEntry.PlayerName(id: $0.0, name: $0.1) })
    }

    /// Newest first, both on pitch 1, with no goals.
    private let expectedHistory = [
        HistoryEntry(id: "164bb6c3-5c72-43aa-b955-88b37d59f6b3", endedAt: 1_795_456_768_550, pitch: .first,
                     teamA: MigrationTests.lineup("Team A", [(1, "Ann"), (4, "Dee")]),
                     teamB: MigrationTests.lineup("Team B", [(2, "Bob"), (5, "Eve")]),
                     score: Score(A: 1, B: 1), goals: []),
        HistoryEntry(id: "6f60b71e-646b-471f-b046-315552583f93", endedAt: 1_795_456_768_535, pitch: .first,
                     teamA: MigrationTests.lineup("Reds", [(1, "Ann"), (2, "Bob"), (3, "Cid")]),
                     teamB: MigrationTests.lineup("Team B", [(4, "Dee"), (5, "Eve"), (6, "Fay")]), score: Score(A: 2, B: 1), goals: []),
    ]

    /// The live gather as the first release stored it; its one goal (no −1 in this gather) now
    /// says it stands.
    private var expectedGather: ActiveGather {
        var gather = ActiveGather(id: "716abab8-9ebb-4314-954c-53f746960efc", phase: .live,
                                  teamA: Team(name: "Team A", players: [3, 6]), teamB: Team(name: "Team B", players: [5, 1]),
                                  bench: [], score: Score(A: 1, B: 0),
                                  timer: MatchTimer(status: .paused, durationSeconds: 420, remainingMs: 418_798))
        gather.events = [
            GatherEvent(seq: 1, kind: .timerSet, at: 1_795_456_768_560, by: "ann"),
            GatherEvent(seq: 2, kind: .kickoff, at: 1_795_456_768_562, by: "ann"),
            GatherEvent(seq: 3, kind: .timerStarted, at: 1_795_456_768_564, matchMs: 0, by: "ann"),
            GatherEvent(seq: 4, kind: .timerPaused, at: 1_795_456_769_766, matchMs: 1202, by: "ann"),
            .goal(seq: 5, team: .A, at: 1_795_456_769_769, matchMs: 1202, by: "ann"),
        ]
        return gather
    }

    // MARK: - Tests

    func testEveryPlayerGatherResultAndCounterIsKeptAndRecordsAreReplayed() throws {
        XCTAssertEqual(try migrations(), ["v1"], "the copy is a first-release database")
        let loaded = try open().load()
        XCTAssertEqual(loaded.state.players, expectedPlayers)
        XCTAssertEqual(loaded.state.pitches, [Pitch(id: 1, name: "Pitch 1", gather: expectedGather)])
        XCTAssertEqual(loaded.state.history, expectedHistory)
        XCTAssertEqual(loaded.state, GatherState(players: expectedPlayers,
                                                 pitches: [Pitch(id: 1, name: "Pitch 1", gather: expectedGather)],
                                                 history: expectedHistory, nextPlayerID: 7, nextPitchID: 2))
        XCTAssertEqual(loaded.version, 40)
        XCTAssertEqual(try open().allHistory(), expectedHistory)
    }

    func testTheJournalRepliesAndAccountsStillAnswer() throws {
        let store = try open()
        let loaded = try store.load()
        XCTAssertEqual(loaded.version, 40)
        let journal = try store.recentJournal()
        XCTAssertEqual(journal.map(\.version), Array(1...40))
        // The first release's subject texts read as pitch 1's subjects.
        XCTAssertEqual(journal[6].subjects,
                       Set([.gather(1), .timer(1), .score(1, .A), .score(1, .B), .teamName(1, .A), .teamName(1, .B)]
                           + (1...6).map(Subject.player)))
        XCTAssertEqual(try store.journal(after: 38), [
            JournalEntry(version: 39, organiser: "ann", commandID: "b45989adb1054310be6fa337655799d3", kind: .pauseTimer,
                         subjects: [.timer(1)], at: 1_795_456_769_766),
            JournalEntry(version: 40, organiser: "ann", commandID: "4d4ef65105014c4e88effa4b38caaeaf", kind: .score,
                         subjects: [.score(1, .A)], at: 1_795_456_769_769),
        ])
        XCTAssertEqual(try store.reply(organiser: "ann", commandID: "kept-rejection"),
                       .rejected(code: .inUse, message: "Ann is in the current gather; take them out first.", version: 40))
        XCTAssertEqual(try store.reply(organiser: "ann", commandID: "d5d8da52e5e84e25b67b951fab8751f9"), .ack(version: 1))

        let ann = try XCTUnwrap(store.organiser(username: "ANN"))
        XCTAssertEqual(ann.username, "ann")
        XCTAssertEqual(ann.createdAt, 1_795_456_768_496)
        XCTAssertTrue(ann.passwordHash.hasPrefix("$scrypt$ln=15,r=8,p=3$"))
        XCTAssertEqual(try store.sessionUsername(
            tokenHash: "ffe20c93c20e6454fd859ffce60b22d2180193546d40a15af77e47bee73354ac",
            usedSince: 1_795_456_768_497, now: 1_795_456_800_000), "ann")
        XCTAssertFalse(try store.insertOrganiser(username: "Ann", passwordHash: "x", at: 0), "the name is still taken")
    }

    func testOpeningTwiceMigratesOnceAndLoadsTheSame() throws {
        let first = try open().load()
        let second = try open().load()
        XCTAssertEqual(first, second)
        XCTAssertEqual(try migrations(), ["activity-sentence-keys", "tournaments", "v1", "v2-pitches-and-records", "v3-organisers", "v3-sunday-pitch-last-result", "v5-referee-links"])
        let queue = try DatabaseQueue(path: database)
        defer { try? queue.close() }
        try queue.read { db in
            XCTAssertFalse(try db.tableExists("active_gather"))
            XCTAssertEqual(try Int.fetchAll(db, sql: "SELECT pitch_id FROM history ORDER BY seq"), [1, 1])
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT next_pitch_id FROM meta"), 2)
            XCTAssertEqual(try Int.fetchAll(db, sql: "SELECT rating FROM players ORDER BY id"),
                           [1415, 1223, 1019, 1177, 1185, 1381])
        }
    }

    func testANewCommitAfterTheMigrationLandsAsVersionFortyOne() throws {
        let writer = try Writer(store: open())
        try writer.apply(.endGather, id: "after-migration")
        // The live gather ends 1–0 for Team A (Cid 1019, Fay 1381; mean 1200) against Team B
        // (Eve 1185, Ann 1415; mean 1300): E_A = 1 / (1 + 10^(100 / 400)) = 0.359935, so
        // Δ_A = round(32 × 0.640065) = round(20.482) = +20 and Δ_B = −20.
        var players = expectedPlayers
        players[2].rating = 1039
        players[2].stats = PlayerStats(games: 2, wins: 2)
        players[5].rating = 1401
        players[5].stats = PlayerStats(games: 2, wins: 1, losses: 1)
        players[4].rating = 1165
        players[4].stats = PlayerStats(games: 3, draws: 1, losses: 2)
        players[0].rating = 1395
        players[0].stats = PlayerStats(games: 3, wins: 1, draws: 1, losses: 1)
        let ended = HistoryEntry(id: "716abab8-9ebb-4314-954c-53f746960efc", endedAt: writer.now, pitch: .first,
                                 teamA: MigrationTests.lineup("Team A", [(3, "Cid"), (6, "Fay")]),
                                 teamB: MigrationTests.lineup("Team B", [(5, "Eve"), (1, "Ann")]), score: Score(A: 1, B: 0),
                                 goals: [.init(team: .A, playerId: nil, assistId: nil, matchMs: 1202)])
        // The ended gather stays on pitch 1 as its last result ("Full time"), reopened too.
        let expected = GatherState(players: players, pitches: [Pitch(id: 1, name: "Pitch 1", lastResult: ended)],
                                   history: [ended] + expectedHistory, nextPlayerID: 7, nextPitchID: 2)
        XCTAssertEqual(writer.state, expected)

        let reopened = try open()
        let loaded = try reopened.load()
        XCTAssertEqual(loaded.version, 41)
        XCTAssertEqual(loaded.state, expected, "a reopening keeps the new records rather than replaying them")
        XCTAssertEqual(try reopened.reply(organiser: "ann", commandID: "after-migration"), .ack(version: 41))
        XCTAssertEqual(try reopened.allHistory().map(\.id), [ended.id] + expectedHistory.map(\.id))
        XCTAssertEqual(try migrations(), ["activity-sentence-keys", "tournaments", "v1", "v2-pitches-and-records", "v3-organisers", "v3-sunday-pitch-last-result", "v5-referee-links"])
    }

    func testTheFixtureItselfIsNeverWritten() throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: Self.fixture))
        _ = try open().load()
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: Self.fixture)), before)
    }

    // MARK: - A first-release −1 in the live gather

    func testFirstReleaseMinusOnesInTheLiveGatherMarkTheGoalsTheyTookBack() throws {
        // As the first release would have stored it after A, B, A, −1 A, −1 A: bare goals and bare
        // cancellations, 0–1.
        let stored = """
            {"bench":[],"events":[{"at":10,"by":"ann","kind":"kickoff","seq":1},\
            {"at":11,"by":"ann","kind":"goal","matchMs":0,"seq":2,"team":"A"},\
            {"at":12,"by":"ann","kind":"goal","matchMs":0,"seq":3,"team":"B"},\
            {"at":13,"by":"ann","kind":"goal","matchMs":0,"seq":4,"team":"A"},\
            {"at":14,"by":"ann","kind":"goalCancelled","matchMs":0,"seq":5,"team":"A"},\
            {"at":15,"by":"ann","kind":"goalCancelled","matchMs":0,"seq":6,"team":"A"}],\
            "id":"g","phase":"live","score":{"A":0,"B":1},"teamA":{"name":"Team A","players":[3,6]},\
            "teamB":{"name":"Team B","players":[5,1]},"timer":{"durationSeconds":600,"remainingMs":600000,"status":"stopped"}}
            """
        let queue = try DatabaseQueue(path: database)
        try queue.write { try $0.execute(sql: "UPDATE active_gather SET json = ?", arguments: [stored]) }
        try queue.close()

        let gather = try XCTUnwrap(open().load().state.gather)
        // Each −1 took back Team A's latest goal still standing: #4, then #2.
        XCTAssertEqual(gather.events, [
            GatherEvent(seq: 1, kind: .kickoff, at: 10, by: "ann"),
            GatherEvent(seq: 2, kind: .goal, team: .A, at: 11, matchMs: 0, by: "ann", cancelled: true),
            GatherEvent(seq: 3, kind: .goal, team: .B, at: 12, matchMs: 0, by: "ann", cancelled: false),
            GatherEvent(seq: 4, kind: .goal, team: .A, at: 13, matchMs: 0, by: "ann", cancelled: true),
            GatherEvent(seq: 5, kind: .goalCancelled, team: .A, at: 14, matchMs: 0, by: "ann", cancels: 4),
            GatherEvent(seq: 6, kind: .goalCancelled, team: .A, at: 15, matchMs: 0, by: "ann", cancels: 2),
        ])
        XCTAssertEqual(gather.score, Score(A: 0, B: 1))
        XCTAssertEqual(gather.standingGoals.map(\.seq), [3])
    }
}
