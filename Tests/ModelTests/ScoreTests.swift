import GatherModel
import GatherModelTestSupport
import XCTest

/// Goals and cancelled goals: live only, each score within 0–99, each one in the timeline with
/// the time played on the clock.
final class ScoreTests: XCTestCase {
    private let start = GatherTestStore.start

    func testAGoalRaisesTheScoreAndRecordsTeamOrganiserAndTimePlayed() {
        let store = GatherTestStore.liveGather()
        store.send(.startTimer) { state in
            state.gather!.timer = MatchTimer(status: .running, durationSeconds: 600, endsAt: self.start + 600_000)
            state.gather!.events.append(GatherEvent(seq: 2, kind: .timerStarted, at: self.start, matchMs: 0, by: "ann"))
        }
        store.advance(byMs: 254_000) // 4:14 played, 05:46 on the clock
        store.organiser = "bob"
        store.send(json: ["kind": "score", "team": "B", "delta": 1]) { state in
            state.gather!.score = Score(A: 0, B: 1)
            state.gather!.events.append(GatherEvent.goal(seq: 3, team: .B, at: self.start + 254_000,
                                                    matchMs: 254_000, by: "bob"))
        }
    }

    func testCancellingAGoalLowersTheScoreAndIsRecordedToo() {
        let store = GatherTestStore.liveGather()
        store.send(.score(.A, delta: 1)) { state in
            state.gather!.score.A = 1
            state.gather!.events.append(GatherEvent.goal(seq: 2, team: .A, at: self.start, matchMs: 0,
                                                    by: "ann"))
        }
        store.advance(byMs: 2000)
        store.send(json: ["kind": "score", "team": "A", "delta": -1]) { state in
            state.gather!.score.A = 0
            state.gather!.events[1].cancelled = true
            state.gather!.events.append(GatherEvent(seq: 3, kind: .goalCancelled, team: .A, at: self.start + 2000,
                                                    matchMs: 0, by: "ann", cancels: 2))
        }
    }

    func testAGoalWhilePausedCountsTheFrozenTimeAndAfterFullTimeTheWholeMatch() {
        var gather = GatherTestStore.liveGather().state.gather!
        gather.timer = MatchTimer(status: .paused, durationSeconds: 600, remainingMs: 420_500)
        let store = GatherTestStore(GatherState(gather: gather))
        store.send(.score(.A, delta: 1)) { state in
            state.gather!.score.A = 1
            state.gather!.events.append(GatherEvent.goal(seq: 2, team: .A, at: self.start, matchMs: 179_500,
                                                    by: "ann"))
        }
        store.send(.setTimer(minutes: 1, seconds: 0)) { state in
            state.gather!.timer = MatchTimer(durationSeconds: 60)
            state.gather!.events.append(GatherEvent(seq: 3, kind: .timerSet, at: self.start, by: "ann"))
        }
        store.send(.startTimer) { state in
            state.gather!.timer = MatchTimer(status: .running, durationSeconds: 60, endsAt: self.start + 60_000)
            state.gather!.events.append(GatherEvent(seq: 4, kind: .timerStarted, at: self.start, matchMs: 0, by: "ann"))
        }
        store.advance(byMs: 61_000)
        store.expireTimer { state in
            state.gather!.timer = MatchTimer(status: .finished, durationSeconds: 60, remainingMs: 0)
            state.gather!.events.append(GatherEvent(seq: 5, kind: .fullTime, at: self.start + 60_000, matchMs: 60_000))
        }
        store.send(.score(.B, delta: 1)) { state in
            state.gather!.score.B = 1
            state.gather!.events.append(GatherEvent.goal(seq: 6, team: .B, at: self.start + 61_000,
                                                    matchMs: 60_000, by: "ann"))
        }
    }

    func testTheScoreChangesOnlyOnceLive() {
        let store = GatherTestStore.setUpGather()
        store.reject(.score(.A, delta: 1), code: .wrongPhase, messageContains: "Kick off")
        GatherTestStore(.roster("Ann")).reject(.score(.A, delta: 1), code: .wrongPhase)
    }

    func testAScoreNeverGoesBelowZero() {
        let store = GatherTestStore.liveGather()
        store.reject(.score(.B, delta: -1), code: .outOfRange, messageContains: "no goals")
    }

    func testAScoreNeverGoesAboveNinetyNine() {
        var gather = GatherTestStore.liveGather().state.gather!
        gather.score = Score(A: 98, B: 0)
        gather.teamA.name = "Reds"
        let store = GatherTestStore(GatherState(gather: gather))
        store.send(.score(.A, delta: 1)) { state in
            state.gather!.score.A = 99
            state.gather!.events.append(GatherEvent.goal(seq: 2, team: .A, at: self.start, matchMs: 0,
                                                    by: "ann"))
        }
        store.reject(.score(.A, delta: 1), code: .outOfRange, messageContains: "Reds already has 99")
    }

    func testADeltaOtherThanPlusOrMinusOneIsInvalid() {
        let store = GatherTestStore.liveGather()
        for delta: JSONValue in [0, 2, -2, 99, .double(1.0), "1", nil] {
            store.reject(json: ["kind": "score", "team": "A", "delta": delta], code: .invalid, messageContains: "+1 or -1")
        }
        store.reject(json: ["kind": "score", "delta": 1], code: .invalid, messageContains: "team")
        store.reject(json: ["kind": "score", "team": "b", "delta": 1], code: .invalid)
    }

    // MARK: - Winner

    func testTheWinnerIsTheTeamWithMoreGoalsOrADraw() {
        XCTAssertEqual(Score(A: 2, B: 1).winner, .A)
        XCTAssertEqual(Score(A: 0, B: 1).winner, .B)
        XCTAssertEqual(Score(A: 3, B: 3).winner, .draw)
        XCTAssertEqual(Score().winner, .draw)
        XCTAssertEqual(Score(A: 99, B: 98).winner, .A)
    }

    func testSeqNumbersFollowTheLastEvent() {
        var gather = GatherTestStore.liveGather().state.gather!
        gather.events = [GatherEvent(seq: 41, kind: .kickoff, at: start)]
        let store = GatherTestStore(GatherState(gather: gather))
        store.send(.score(.B, delta: 1)) { state in
            state.gather!.score.B = 1
            state.gather!.events.append(GatherEvent.goal(seq: 42, team: .B, at: self.start, matchMs: 0,
                                                    by: "ann"))
        }
    }
}
