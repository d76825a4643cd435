import GatherModel
import GatherModelTestSupport
import XCTest

/// docs/PROTOCOL.md "Who scored": goals name their scorer and assist at +1 or a moment later,
/// a named goal can be taken back, −1 takes back the team's latest goal still standing, and a
/// gather's timeline is capped at 500 events without ever losing the server's full time.
final class GoalTests: XCTestCase {
    private let start = GatherTestStore.start

    /// Ann (1) and Cid (3) on Team A, Bob (2) and Dan (4) on Team B, live since `start`, the
    /// timer stopped at 10:00 (so every goal is at 0 ms played).
    private func twoAside() -> GatherTestStore {
        var state = GatherTestStore.liveGather().state
        state.gather!.teamA.players = [1, 3]
        state.gather!.teamB.players = [2, 4]
        state.gather!.bench = []
        return GatherTestStore(state)
    }

    private func goal(_ store: GatherTestStore, _ side: TeamSide, seq: Int, scorer: Player.ID? = nil,
                      assist: Player.ID? = nil, file: StaticString = #filePath, line: UInt = #line) {
        store.send(.score(side, delta: 1, scorer: scorer, assist: assist), file: file, line: line) { state in
            state.gather!.score[side] += 1
            state.gather!.events.append(.goal(seq: seq, team: side, at: store.now, matchMs: 0, by: "ann",
                                              playerId: scorer, assistId: assist))
        }
    }

    // MARK: - Naming the scorer at +1

    func testAGoalNamesItsScorerAndAssist() {
        let store = twoAside()
        store.send(json: ["kind": "score", "team": "A", "delta": 1, "playerId": 3, "assistId": 1]) { state in
            state.gather!.score.A = 1
            state.gather!.events.append(.goal(seq: 2, team: .A, at: self.start, matchMs: 0, by: "ann", playerId: 3,
                                              assistId: 1))
        }
        store.send(json: ["kind": "score", "team": "B", "delta": 1, "playerId": 4, "assistId": nil]) { state in
            state.gather!.score.B = 1
            state.gather!.events.append(.goal(seq: 3, team: .B, at: self.start, matchMs: 0, by: "ann", playerId: 4))
        }
    }

    func testTheScorerAndAssistMustPlayForThatTeamInThatGatherAndDiffer() {
        let store = twoAside()
        store.reject(json: ["kind": "score", "team": "A", "delta": 1, "playerId": 2], code: .invalid,
                     messageContains: "scorer must be a player of Team A")
        store.reject(json: ["kind": "score", "team": "A", "delta": 1, "playerId": 1, "assistId": 4], code: .invalid,
                     messageContains: "assist must be a player of Team A")
        store.reject(json: ["kind": "score", "team": "A", "delta": 1, "playerId": 99], code: .invalid)
        store.reject(json: ["kind": "score", "team": "A", "delta": 1, "playerId": 1, "assistId": 1], code: .invalid,
                     messageContains: "cannot assist their own goal")
        store.reject(json: ["kind": "score", "team": "A", "delta": 1, "playerId": "1"], code: .invalid)
        // A −1 takes back a goal; it never names anyone.
        goal(store, .A, seq: 2)
        store.reject(json: ["kind": "score", "team": "A", "delta": -1, "playerId": 1], code: .invalid,
                     messageContains: "cancelGoal")
        store.reject(json: ["kind": "score", "team": "A", "delta": -1, "assistId": 3], code: .invalid)
    }

    func testABenchPlayerCannotBeCredited() {
        var state = twoAside().state
        state.gather!.teamA.players = [1]
        state.gather!.bench = [3]
        let store = GatherTestStore(state)
        store.reject(.score(.A, delta: 1, scorer: 3), code: .invalid, messageContains: "scorer")
        store.reject(.score(.A, delta: 1, scorer: 1, assist: 3), code: .invalid, messageContains: "assist")
    }

    // MARK: - Naming the scorer later

    func testTheScorerIsNamedReattributedAndClearedAfterTheGoal() {
        let store = twoAside()
        goal(store, .A, seq: 2)
        store.advance(byMs: 4000)
        store.send(json: ["kind": "setScorer", "seq": 2, "playerId": 3]) { state in
            state.gather!.events[1].playerId = 3
        }
        store.send(json: ["kind": "setScorer", "seq": 2, "playerId": 1, "assistId": 3]) { state in
            state.gather!.events[1].playerId = 1
            state.gather!.events[1].assistId = 3
        }
        // An absent assist means no assist, not "keep the assist".
        store.send(json: ["kind": "setScorer", "seq": 2, "playerId": 3]) { state in
            state.gather!.events[1].playerId = 3
            state.gather!.events[1].assistId = nil
        }
        store.send(json: ["kind": "setScorer", "seq": 2, "playerId": nil]) { state in
            state.gather!.events[1].playerId = nil
        }
    }

    func testSetScorerFollowsTheSameRulesAndNeedsAGoalThatExists() {
        let store = twoAside()
        goal(store, .B, seq: 2)
        store.reject(json: ["kind": "setScorer", "seq": 2, "playerId": nil, "assistId": 4], code: .invalid,
                     messageContains: "scorer before the assist")
        store.reject(json: ["kind": "setScorer", "seq": 2, "playerId": 1], code: .invalid,
                     messageContains: "scorer must be a player of Team B")
        store.reject(json: ["kind": "setScorer", "seq": 2, "playerId": 2, "assistId": 2], code: .invalid)
        store.reject(json: ["kind": "setScorer", "seq": 2, "assistId": 4], code: .invalid, messageContains: "playerId")
        store.reject(json: ["kind": "setScorer", "playerId": 2], code: .invalid, messageContains: "seq")
        store.reject(json: ["kind": "setScorer", "seq": 99, "playerId": 2], code: .notFound, messageContains: "#99")
        store.reject(json: ["kind": "setScorer", "seq": 1, "playerId": 2], code: .notFound, messageContains: "#1")
        GatherTestStore(.roster("Ann")).reject(json: ["kind": "setScorer", "seq": 2, "playerId": 1], code: .wrongPhase)
    }

    // MARK: - Taking a goal back

    func testCancellingANamedGoalMarksItAndLowersTheScore() {
        let store = twoAside()
        goal(store, .A, seq: 2, scorer: 3, assist: 1)
        goal(store, .B, seq: 3, scorer: 4)
        store.advance(byMs: 9000)
        store.organiser = "bob"
        store.send(json: ["kind": "cancelGoal", "seq": 2]) { state in
            state.gather!.score.A = 0
            state.gather!.events[1].cancelled = true
            state.gather!.events.append(GatherEvent(seq: 4, kind: .goalCancelled, team: .A, at: self.start + 9000,
                                                    matchMs: 0, by: "bob", cancels: 2))
        }
        XCTAssertEqual(store.state.gather!.standingGoals.map(\.seq), [3])
        store.reject(json: ["kind": "cancelGoal", "seq": 2], code: .notFound, messageContains: "#2")
        store.reject(json: ["kind": "cancelGoal", "seq": 4], code: .notFound, messageContains: "#4")
        store.reject(json: ["kind": "cancelGoal", "seq": 1], code: .notFound)
        store.reject(json: ["kind": "cancelGoal", "seq": 50], code: .notFound)
        store.reject(json: ["kind": "cancelGoal"], code: .invalid)
    }

    func testMinusOneTakesBackTheTeamsLatestGoalStillStanding() {
        let store = twoAside()
        goal(store, .A, seq: 2, scorer: 1)
        goal(store, .B, seq: 3)
        goal(store, .A, seq: 4, scorer: 3)
        store.send(.onPitch(1, .cancelGoal(seq: 4))) { state in
            state.gather!.score.A = 1
            state.gather!.events[3].cancelled = true
            state.gather!.events.append(GatherEvent(seq: 5, kind: .goalCancelled, team: .A, at: self.start,
                                                    matchMs: 0, by: "ann", cancels: 4))
        }
        // Goal #4 is gone already: −1 takes back #2, the latest of Team A's goals that still counts.
        store.send(json: ["kind": "score", "team": "A", "delta": -1]) { state in
            state.gather!.score.A = 0
            state.gather!.events[1].cancelled = true
            state.gather!.events.append(GatherEvent(seq: 6, kind: .goalCancelled, team: .A, at: self.start,
                                                    matchMs: 0, by: "ann", cancels: 2))
        }
        store.reject(json: ["kind": "score", "team": "A", "delta": -1], code: .outOfRange, messageContains: "no goals")
        XCTAssertEqual(store.state.gather!.score, Score(A: 0, B: 1))
        XCTAssertEqual(store.state.gather!.standingGoals.map(\.seq), [3])
    }

    // MARK: - The timeline's cap

    /// 499 events: kick-off, the timer started at `start` for 60 s, and 497 timer settings
    /// before it, as a long afternoon of fiddling might leave.
    private func almostFullTimeline() -> GatherTestStore {
        var state = twoAside().state
        var events = [GatherEvent(seq: 1, kind: .kickoff, at: start, by: "ann")]
        events += (2...498).map { GatherEvent(seq: $0, kind: .timerSet, at: start, by: "ann") }
        events.append(GatherEvent(seq: 499, kind: .timerStarted, at: start, matchMs: 0, by: "ann"))
        state.gather!.events = events
        state.gather!.timer = MatchTimer(status: .running, durationSeconds: 60, endsAt: start + 60_000)
        return GatherTestStore(state)
    }

    func testAFullTimelineRefusesOrganisersEventsButStillRecordsFullTime() {
        let store = almostFullTimeline()
        XCTAssertEqual(ActiveGather.maximumEvents, 500)
        store.advance(byMs: 30_000)
        // The 500th event is the last an organiser may add.
        store.send(.score(.A, delta: 1, scorer: 1)) { state in
            state.gather!.score.A = 1
            state.gather!.events.append(.goal(seq: 500, team: .A, at: self.start + 30_000, matchMs: 30_000, by: "ann",
                                              playerId: 1))
        }
        for action: Action in [.score(.B, delta: 1), .score(.A, delta: -1), .onPitch(1, .cancelGoal(seq: 500)),
                               .pauseTimer, .resetTimer] {
            store.reject(action, code: .outOfRange, messageContains: "500 events")
        }
        // Changes that add no event still work.
        store.send(json: ["kind": "setScorer", "seq": 500, "playerId": 3, "assistId": 1]) { state in
            state.gather!.events[499].playerId = 3
            state.gather!.events[499].assistId = 1
        }
        store.send(.renameTeam(.A, name: "Reds")) { state in
            state.gather!.teamA.name = "Reds"
        }
        store.advance(byMs: 30_500)
        store.expireTimer { state in
            state.gather!.timer = MatchTimer(status: .finished, durationSeconds: 60, remainingMs: 0)
            state.gather!.events.append(GatherEvent(seq: 501, kind: .fullTime, at: self.start + 60_000, matchMs: 60_000))
        }
        // Ending is still possible, and history keeps the one goal with its scorer.
        store.send(.endGather) { state in
            state.gather = nil
            state.history = [HistoryEntry(
                id: "gather-1", endedAt: self.start + 60_500,
                teamA: .init(name: "Reds", players: [.init(id: 1, name: "Ann"), .init(id: 3, name: "Cid")]),
                teamB: .init(name: "Team B", players: [.init(id: 2, name: "Bob"), .init(id: 4, name: "Dan")]),
                score: Score(A: 1, B: 0), goals: [.init(team: .A, playerId: 3, assistId: 1, matchMs: 30_000)])]
            // Everyone at 1200: E = ½, so the winners gain round(32 × ½) = 16 and the losers lose 16.
            state.players[0].rating = 1216
            state.players[0].stats = PlayerStats(games: 1, wins: 1, assists: 1)
            state.players[2].rating = 1216
            state.players[2].stats = PlayerStats(games: 1, wins: 1, goals: 1)
            state.players[1].rating = 1184
            state.players[1].stats = PlayerStats(games: 1, losses: 1)
            state.players[3].rating = 1184
            state.players[3].stats = PlayerStats(games: 1, losses: 1)
            state.pitches[0].lastResult = state.history[0]
        }
    }

    func testAFullTimelineStillLetsTheTimerRunOutOnAnotherPitchToo() {
        var state = almostFullTimeline().state
        state.pitches.append(Pitch(id: 2, name: "Cage", gather: state.gather))
        state.nextPitchID = 3
        let store = GatherTestStore(state)
        store.advance(byMs: 60_000)
        store.expireTimer { state in
            for index in 0...1 {
                state.pitches[index].gather!.timer = MatchTimer(status: .finished, durationSeconds: 60, remainingMs: 0)
                state.pitches[index].gather!.events.append(GatherEvent(seq: 500, kind: .fullTime, at: self.start + 60_000,
                                                                       matchMs: 60_000))
            }
        }
        store.reject(json: ["kind": "resetTimer", "pitch": 2], code: .outOfRange)
    }
}
