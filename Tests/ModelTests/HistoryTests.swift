import GatherModel
import GatherModelTestSupport
import XCTest

/// Ending and cancelling a gather: what history keeps, what it forgets, and how much of it the
/// live state carries.
final class HistoryTests: XCTestCase {
    private let start = GatherTestStore.start

    private func entry(_ number: Int, score: Score = Score()) -> HistoryEntry {
        HistoryEntry(id: "old-\(number)", endedAt: start - Int64(number) * 1000,
                     teamA: .init(name: "Team A", players: []), teamB: .init(name: "Team B", players: []),
                     score: score)
    }

    /// What a finished gather leaves on its players, worked by hand: everyone starts at 1200 (no
    /// skill), so E = ½ for both sides and a win is +round(32 × ½) = +16, a draw 0, a loss −16.
    private func record(_ state: inout GatherState, _ id: Player.ID, rating: Int, _ stats: PlayerStats) {
        let index = state.players.firstIndex { $0.id == id }!
        state.players[index].rating = rating
        state.players[index].stats = stats
    }

    func testEndingWritesTheFinalScoreWinnerAndLineUpToHistory() {
        let store = GatherTestStore.liveGather()
        store.send(.renameTeam(.B, name: "Blues")) { state in
            state.gather!.teamB.name = "Blues"
        }
        store.send(.assign(3, to: .B)) { state in
            state.gather!.bench = [4]
            state.gather!.teamB.players = [2, 3]
        }
        store.send(.score(.B, delta: 1)) { state in
            state.gather!.score.B = 1
            state.gather!.events.append(GatherEvent.goal(seq: 2, team: .B, at: self.start, matchMs: 0,
                                                    by: "ann"))
        }
        store.advance(byMs: 600_000)
        store.send(json: ["kind": "endGather"]) { state in
            state.gather = nil
            state.history = [HistoryEntry(
                id: "gather-1", endedAt: self.start + 600_000,
                teamA: .init(name: "Team A", players: [.init(id: 1, name: "Ann")]),
                teamB: .init(name: "Blues", players: [.init(id: 2, name: "Bob"), .init(id: 3, name: "Cid")]),
                score: Score(A: 0, B: 1), goals: [.init(team: .B, playerId: nil, assistId: nil, matchMs: 0)])]
            self.record(&state, 1, rating: 1184, PlayerStats(games: 1, losses: 1))
            self.record(&state, 2, rating: 1216, PlayerStats(games: 1, wins: 1))
            self.record(&state, 3, rating: 1216, PlayerStats(games: 1, wins: 1))
            state.pitches[0].lastResult = state.history[0]
        }
        XCTAssertEqual(store.state.history.first?.winner, .B)
    }

    func testADrawIsRecordedAsADraw() {
        let store = GatherTestStore.liveGather()
        store.send(.endGather) { state in
            state.gather = nil
            state.history = [HistoryEntry(id: "gather-1", endedAt: self.start,
                                          teamA: .init(name: "Team A", players: [.init(id: 1, name: "Ann")]),
                                          teamB: .init(name: "Team B", players: [.init(id: 2, name: "Bob")]),
                                          score: Score())]
            self.record(&state, 1, rating: 1200, PlayerStats(games: 1, draws: 1))
            self.record(&state, 2, rating: 1200, PlayerStats(games: 1, draws: 1))
            state.pitches[0].lastResult = state.history[0]
        }
        XCTAssertEqual(store.state.history.first?.winner, .draw)
    }

    func testOnlyALiveGatherCanEnd() {
        let store = GatherTestStore.setUpGather()
        store.reject(.endGather, code: .wrongPhase, messageContains: "Kick off")
        GatherTestStore(.roster("Ann")).reject(.endGather, code: .wrongPhase, messageContains: "no gather")
    }

    func testCancellingLeavesNoHistoryInSetupOrLive() {
        let setUp = GatherTestStore.setUpGather()
        setUp.send(json: ["kind": "cancelGather"]) { state in
            state.gather = nil
        }
        let live = GatherTestStore.liveGather()
        live.send(.score(.A, delta: 1)) { state in
            state.gather!.score.A = 1
            state.gather!.events.append(GatherEvent.goal(seq: 2, team: .A, at: self.start, matchMs: 0,
                                                    by: "ann"))
        }
        live.send(.cancelGather) { state in
            state.gather = nil
        }
        XCTAssertEqual(live.state.history, [])
        GatherTestStore(.roster("Ann")).reject(.cancelGather, code: .wrongPhase)
    }

    func testHistoryKeepsTheNamesPlayersHadWhenTheGatherEnded() {
        let store = GatherTestStore.liveGather()
        store.send(.endGather) { state in
            state.gather = nil
            state.history = [HistoryEntry(id: "gather-1", endedAt: self.start,
                                          teamA: .init(name: "Team A", players: [.init(id: 1, name: "Ann")]),
                                          teamB: .init(name: "Team B", players: [.init(id: 2, name: "Bob")]),
                                          score: Score())]
            self.record(&state, 1, rating: 1200, PlayerStats(games: 1, draws: 1))
            self.record(&state, 2, rating: 1200, PlayerStats(games: 1, draws: 1))
            state.pitches[0].lastResult = state.history[0]
        }
        store.send(.editPlayer(1, PlayerChanges(name: "Annie"))) { state in
            state.players[0].name = "Annie"
        }
        store.send(.removePlayer(2)) { state in
            state.players.remove(at: 1)
        }
        XCTAssertEqual(store.state.history[0].teamA.players, [.init(id: 1, name: "Ann")])
        XCTAssertEqual(store.state.history[0].teamB.players, [.init(id: 2, name: "Bob")])
    }

    func testANewGatherCanStartOnceTheLastOneEnded() {
        let store = GatherTestStore.liveGather()
        store.send(.cancelGather) { state in
            state.gather = nil
        }
        store.send(.createGather(playerIDs: [4, 3])) { state in
            state.gather = ActiveGather(id: "gather-2", bench: [4, 3])
        }
    }

    func testTheLiveStateCarriesTheTwentyMostRecentGathersNewestFirst() {
        XCTAssertEqual(GatherState.recentHistoryLimit, 20)
        var state = GatherTestStore.liveGather().state
        state.gather!.score = Score(A: 3, B: 0)
        state.history = (1...20).map { entry($0) }
        let store = GatherTestStore(state)
        store.send(.endGather) { state in
            state.gather = nil
            let newest = HistoryEntry(id: "gather-1", endedAt: self.start,
                                      teamA: .init(name: "Team A", players: [.init(id: 1, name: "Ann")]),
                                      teamB: .init(name: "Team B", players: [.init(id: 2, name: "Bob")]),
                                      score: Score(A: 3, B: 0))
            state.history = [newest] + (1...19).map { self.entry($0) }
            // 3–0 for Team A: Ann wins, Bob loses (the older entries had no players to count).
            self.record(&state, 1, rating: 1216, PlayerStats(games: 1, wins: 1))
            self.record(&state, 2, rating: 1184, PlayerStats(games: 1, losses: 1))
            state.pitches[0].lastResult = state.history[0]
        }
        XCTAssertEqual(store.state.history.count, 20)
        XCTAssertEqual(store.state.history.last?.id, "old-19", "the oldest one dropped out")
    }

    func testHistoryBelowTheLimitKeepsEverything() {
        var state = GatherTestStore.liveGather().state
        state.history = [entry(1, score: Score(A: 1, B: 2))]
        let store = GatherTestStore(state)
        store.send(.endGather) { state in
            state.gather = nil
            state.history.insert(HistoryEntry(id: "gather-1", endedAt: self.start,
                                              teamA: .init(name: "Team A", players: [.init(id: 1, name: "Ann")]),
                                              teamB: .init(name: "Team B", players: [.init(id: 2, name: "Bob")]),
                                              score: Score()), at: 0)
            self.record(&state, 1, rating: 1200, PlayerStats(games: 1, draws: 1))
            self.record(&state, 2, rating: 1200, PlayerStats(games: 1, draws: 1))
            state.pitches[0].lastResult = state.history[0]
        }
        XCTAssertEqual(store.state.history.map(\.id), ["gather-1", "old-1"])
        XCTAssertEqual(store.state.history.map(\.winner), [.draw, .B])
    }
}
