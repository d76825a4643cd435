import GatherModel
import GatherModelTestSupport
import XCTest

/// docs/PROTOCOL.md "A Sunday without surprises": one goal counted once between two organisers,
/// the last result kept on its pitch until the next gather, a cancelled goal brought back, and
/// the teams' kit colours.
final class SundayTests: XCTestCase {
    private let start = GatherTestStore.start

    /// Ann (1) and Cid (3) on Team A ("Whites"), Bob (2) and Dan (4) on Team B, live since `start`.
    private func match() -> GatherTestStore {
        var state = GatherTestStore.liveGather().state
        state.gather!.teamA = Team(name: "Whites", players: [1, 3])
        state.gather!.teamB.players = [2, 4]
        state.gather!.bench = []
        return GatherTestStore(state)
    }

    private func goal(_ store: GatherTestStore, _ side: TeamSide, seq: Int, scorer: Player.ID? = nil,
                      file: StaticString = #filePath, line: UInt = #line) {
        store.send(.score(side, delta: 1, scorer: scorer), file: file, line: line) { state in
            state.gather!.score[side] += 1
            state.gather!.events.append(.goal(seq: seq, team: side, at: store.now, matchMs: 0, by: store.organiser,
                                              playerId: scorer))
        }
    }

    /// The other organiser's goal (seq 2) just before ann acts: what every duplicate question is about.
    private func mariaScored(_ store: GatherTestStore, _ side: TeamSide, file: StaticString = #filePath, line: UInt = #line) {
        store.organiser = "maria"
        goal(store, side, seq: 2, file: file, line: line)
        store.organiser = "ann"
    }

    // MARK: - One goal, counted once

    func testAnotherOrganisersGoalWithinTwentySecondsIsAskedAboutNamingWhoAndWhen() {
        let store = match()
        mariaScored(store, .A)
        store.advance(byMs: 3400)
        store.reject(.score(.A, delta: 1), code: .possibleDuplicate,
                     messageContains: "maria added a goal for Whites 3 s ago. Add another?")
        store.advance(byMs: 16_599)  // 19.999 s after maria's goal: still asked
        store.reject(.score(.A, delta: 1, scorer: 3), code: .possibleDuplicate, messageContains: "19 s ago")
    }

    func testWithinASecondItSaysJustNow() {
        let store = match()
        mariaScored(store, .B)
        store.advance(byMs: 999)
        store.reject(.score(.B, delta: 1), code: .possibleDuplicate,
                     messageContains: "maria added a goal for Team B just now. Add another?")
    }

    func testConfirmedCountsTheSecondGoal() {
        let store = match()
        mariaScored(store, .A)
        store.advance(byMs: 3000)
        store.confirmed = true
        goal(store, .A, seq: 3)
    }

    func testTheSameOrganisersSecondPressIsASecondGoal() {
        let store = match()
        goal(store, .A, seq: 2)
        store.advance(byMs: 500)
        goal(store, .A, seq: 3)
    }

    func testTwentySecondsLaterTheOtherTeamOrACancelledGoalIsNotAsked() {
        let store = match()
        mariaScored(store, .A)
        // The other team's goal is never a duplicate of this one.
        goal(store, .B, seq: 3)
        // Exactly 20 s later: no question.
        store.advance(byMs: 20_000)
        goal(store, .A, seq: 4)
        // maria's goal (she was asked about ann's and confirmed), then cancelled by maria: the
        // latest standing goal is ann's own again, so ann is not asked.
        store.organiser = "maria"
        store.reject(.score(.A, delta: 1), code: .possibleDuplicate, messageContains: "ann added a goal for Whites")
        store.confirmed = true
        goal(store, .A, seq: 5)
        store.confirmed = false
        store.send(.onPitch(1, .cancelGoal(seq: 5))) { state in
            state.gather!.events[4].cancelled = true
            state.gather!.score.A -= 1
            state.gather!.events.append(GatherEvent(seq: 6, kind: .goalCancelled, team: .A, at: self.start + 20_000,
                                                    matchMs: 0, by: "maria", cancels: 5))
        }
        store.organiser = "ann"
        goal(store, .A, seq: 7)
    }

    func testTheServersOwnEventsAndAMinusOneAreNeverAsked() {
        let store = match()
        mariaScored(store, .A)
        store.send(.score(.A, delta: -1)) { state in
            state.gather!.events[1].cancelled = true
            state.gather!.score.A = 0
            state.gather!.events.append(GatherEvent(seq: 3, kind: .goalCancelled, team: .A, at: self.start, matchMs: 0,
                                                    by: "ann", cancels: 2))
        }
    }

    // MARK: - Full time stays

    func testEndingAGatherKeepsItsResultOnThePitchUntilTheNextGather() {
        let store = match()
        goal(store, .A, seq: 2, scorer: 3)
        store.advance(byMs: 60_000)
        var entry: HistoryEntry!
        store.send(.endGather) { state in
            entry = HistoryEntry(id: "gather-1", endedAt: self.start + 60_000, pitch: .first,
                                 teamA: HistoryEntry.Lineup(name: "Whites", players: [.init(id: 1, name: "Ann"), .init(id: 3, name: "Cid")]),
                                 teamB: HistoryEntry.Lineup(name: "Team B", players: [.init(id: 2, name: "Bob"), .init(id: 4, name: "Dan")]),
                                 score: Score(A: 1, B: 0),
                                 goals: [HistoryEntry.Goal(team: .A, playerId: 3, assistId: nil, matchMs: 0)])
            state.history.insert(entry, at: 0)
            state.gather = nil
            state.pitches[0].lastResult = entry
            // Ratings: equal means, a win is +16, a loss −16; Cid's goal counts for him.
            for id in [1, 3] { state.players[id - 1].rating += 16; state.players[id - 1].stats.games = 1; state.players[id - 1].stats.wins = 1 }
            for id in [2, 4] { state.players[id - 1].rating -= 16; state.players[id - 1].stats.games = 1; state.players[id - 1].stats.losses = 1 }
            state.players[2].stats.goals = 1
        }
        // Renaming the pitch keeps the result, which keeps the name it was played under.
        store.send(.renamePitch(1, name: "North")) { state in state.pitches[0].name = "North" }
        // A new gather clears it; cancelling that gather does not bring it back.
        let id = store.nextGatherID
        store.send(.createGather(playerIDs: [1, 2])) { state in
            state.gather = ActiveGather(id: id, bench: [1, 2])
            state.pitches[0].lastResult = nil
        }
        store.send(.cancelGather) { state in state.gather = nil }
        XCTAssertNil(store.state.pitches[0].lastResult)
    }

    func testCancellingAGatherLeavesTheLastResultAndOtherPitchesKeepTheirs() {
        var state = match().state
        let earlier = HistoryEntry(id: "old", endedAt: start - 1000, teamA: .init(name: "A", players: []),
                                   teamB: .init(name: "B", players: []), score: Score(A: 2, B: 2))
        state.pitches.append(Pitch(id: 2, name: "Pitch 2", lastResult: earlier))
        state.nextPitchID = 3
        let store = GatherTestStore(state)
        store.send(.cancelGather) { state in state.gather = nil }
        store.send(.onPitch(2, .createGather(playerIDs: [1, 2]))) { state in
            state.pitches[1].gather = ActiveGather(id: "gather-1", bench: [1, 2])
            state.pitches[1].lastResult = nil
        }
    }

    // MARK: - Undo a removed goal

    private func cancelledGoal() -> GatherTestStore {
        let store = match()
        goal(store, .A, seq: 2, scorer: 3)
        store.advance(byMs: 2000)
        store.send(.onPitch(1, .cancelGoal(seq: 2))) { state in
            state.gather!.events[1].cancelled = true
            state.gather!.score.A = 0
            state.gather!.events.append(GatherEvent(seq: 3, kind: .goalCancelled, team: .A, at: self.start + 2000,
                                                    matchMs: 0, by: "ann", cancels: 2))
        }
        return store
    }

    func testRestoringBringsTheGoalBackWithItsScorerAndMarksTheCancellationUndone() {
        let store = cancelledGoal()
        store.organiser = "bob"
        store.advance(byMs: 3000)
        store.send(json: ["kind": "restoreGoal", "seq": 2]) { state in
            state.gather!.events[1].cancelled = false
            state.gather!.events[2].undone = true
            state.gather!.score.A = 1
            state.gather!.events.append(GatherEvent(seq: 4, kind: .goalRestored, team: .A, at: self.start + 5000,
                                                    matchMs: 0, by: "bob", restores: 2))
        }
        // It can be cancelled and restored again; only the latest cancellation is undone then.
        store.send(.onPitch(1, .cancelGoal(seq: 2))) { state in
            state.gather!.events[1].cancelled = true
            state.gather!.score.A = 0
            state.gather!.events.append(GatherEvent(seq: 5, kind: .goalCancelled, team: .A, at: self.start + 5000,
                                                    matchMs: 0, by: "bob", cancels: 2))
        }
        store.send(.onPitch(1, .restoreGoal(seq: 2))) { state in
            state.gather!.events[1].cancelled = false
            state.gather!.events[4].undone = true
            state.gather!.score.A = 1
            state.gather!.events.append(GatherEvent(seq: 6, kind: .goalRestored, team: .A, at: self.start + 5000,
                                                    matchMs: 0, by: "bob", restores: 2))
        }
    }

    func testRestoringAGoalThatStandsOrIsUnknownOrNotAGoalIsNotFound() {
        let store = cancelledGoal()
        goal(store, .B, seq: 4)
        store.reject(.onPitch(1, .restoreGoal(seq: 4)), code: .notFound, messageContains: "no cancelled goal #4")
        store.reject(.onPitch(1, .restoreGoal(seq: 3)), code: .notFound)  // the cancellation itself
        store.reject(.onPitch(1, .restoreGoal(seq: 99)), code: .notFound)
        store.reject(json: ["kind": "restoreGoal"], code: .invalid, messageContains: "seq")
        store.reject(json: ["kind": "restoreGoal", "seq": "2"], code: .invalid)
        store.reject(.onPitch(7, .restoreGoal(seq: 2)), code: .notFound, messageContains: "no pitch 7")
    }

    func testRestoringAtNinetyNineIsOutOfRange() {
        let store = cancelledGoal()
        var state = store.state
        state.gather!.score.A = 99
        let full = GatherTestStore(state, now: store.now)
        full.reject(.onPitch(1, .restoreGoal(seq: 2)), code: .outOfRange, messageContains: "99")
    }

    func testRestoringWithoutAGatherIsWrongPhase() {
        GatherTestStore(.roster("Ann")).reject(.onPitch(1, .restoreGoal(seq: 2)), code: .wrongPhase)
    }

    func testARestoreTouchesThatGoalAndThatTeamsScore() {
        let store = cancelledGoal()
        XCTAssertEqual(GatherRules.subjects(of: .onPitch(1, .restoreGoal(seq: 2)), in: store.state),
                       [.goal(1, seq: 2), .score(1, .A)])
    }

    // MARK: - Kit colours

    func testATeamsKitColourIsOneOfEightAndTravelsToTheResult() {
        let store = match()
        store.send(json: ["kind": "setTeamColour", "team": "A", "colour": "yellow"]) { state in
            state.gather!.teamA.colour = .yellow
        }
        store.reject(json: ["kind": "setTeamColour", "team": "B", "colour": "pink"], code: .invalid,
                     messageContains: "blue, red, white, black, yellow, green, orange, purple")
        store.reject(json: ["kind": "setTeamColour", "team": "C", "colour": "red"], code: .invalid)
        XCTAssertEqual(KitColour.defaultColour(for: .A), .blue)
        XCTAssertEqual(KitColour.defaultColour(for: .B), .red)
        XCTAssertEqual(GatherRules.subjects(of: .onPitch(1, .setTeamColour(.A, .red)), in: store.state), [.teamName(1, .A)])
        var ended = store.state
        XCTAssertNoThrow(try GatherRules.apply(.endGather, to: &ended, context: ActionContext(now: start, by: "ann")).get())
        XCTAssertEqual(ended.pitches[0].lastResult?.teamA.colour, .yellow)
        XCTAssertNil(ended.pitches[0].lastResult?.teamB.colour)
        XCTAssertEqual(ended.history.first, ended.pitches[0].lastResult)
    }
}
