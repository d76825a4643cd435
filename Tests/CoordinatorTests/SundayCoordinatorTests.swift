import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherModelTestSupport
import GatherPresenters
import XCTest

/// docs/PROTOCOL.md "A Sunday without surprises", through the Coordinator: the duplicate
/// question is a final answer for its id, a stale base is judged first as a conflict, a
/// confirmed +1 counts, `restoreGoal` conflicts as a subject, and `lastResult` survives a restart.
final class SundayCoordinatorTests: XCTestCase {
    private var harness: CoordinatorHarness!
    private var ann: ConnectionID!
    private var maria: ConnectionID!

    override func setUpWithError() throws {
        harness = try CoordinatorHarness()
        ann = harness.organiser(1, "ann")
        maria = harness.organiser(2, "maria")
        harness.addThreePlayers(by: ann)
        harness.startLiveGather(by: ann, beforeStart: [("n", ["kind": "renameTeam", "team": "A", "name": "Whites"])])
        harness.clock.advance(byMs: 2000)
        // The presence held back since maria's registration comes due with this step.
        harness.send(.clientConnected(ConnectionID(9), address: "10.0.0.9"), exhaustivity: .off)
    }

    private func mariaScores() {
        let now = harness.clock.now
        harness.command(maria, id: "maria+1", ["kind": "score", "team": "A", "delta": 1]) { state in
            state.gather!.score.A = 1
            state.gather!.events.append(.goal(seq: 2, team: .A, at: now, matchMs: 0, by: "maria"))
        }
    }

    // MARK: - One goal, counted once

    func testTheSecondOrganisersPlusOneIsAskedAndTheAnswerIsFinalForThatID() throws {
        mariaScores()
        harness.clock.advance(byMs: 3000)
        harness.rejected(ann, id: "ann+1", ["kind": "score", "team": "A", "delta": 1], code: .possibleDuplicate,
                         messageContains: "maria added a goal for Whites 3 s ago. Add another?")
        // The same id again, even with confirmed: true, gets the same answer back (it is final).
        let version = harness.version
        harness.message(ann, ["type": "command", "id": "ann+1", "base": .int(version),
                              "action": ["kind": "score", "team": "A", "delta": 1, "confirmed": true]],
                        expect: [.send(ann, .rejected(id: "ann+1", rejection: Rejection(
                            .possibleDuplicate, .duplicateGoal,
                            ["organiser": .text("maria"), "team": .text("Whites"), "seconds": .number(3)],
                            "maria added a goal for Whites 3 s ago. Add another?"), version: version))])
        // A new command with confirmed: true counts the second goal.
        let now = harness.clock.now
        harness.command(ann, id: "ann+1-confirmed", ["kind": "score", "team": "A", "delta": 1, "confirmed": true]) {
            state in
            state.gather!.score.A = 2
            state.gather!.events.append(.goal(seq: 3, team: .A, at: now, matchMs: 0, by: "ann"))
        }
        XCTAssertEqual(harness.tally.rejectionsByCode["possible_duplicate"], 1)
    }

    func testAStaleBaseIsJudgedFirstAsAConflict() throws {
        let base = harness.version
        mariaScores()
        harness.clock.advance(byMs: 1000)
        harness.rejected(ann, id: "ann+1", base: base, ["kind": "score", "team": "A", "delta": 1], code: .conflict,
                         messageContains: "maria changed Whites's score")
    }

    func testConfirmedMustBeABoolean() throws {
        harness.rejected(ann, id: "bad", ["kind": "score", "team": "A", "delta": 1, "confirmed": "yes"],
                         code: .invalid, messageContains: "\"confirmed\" is true or false")
    }

    // MARK: - Undo a removed goal

    func testRestoreGoalBringsTheGoalBackAndConflictsAsASubject() throws {
        mariaScores()
        let goalAt = harness.clock.now
        harness.clock.advance(byMs: 4000)
        let base = harness.version
        let now = harness.clock.now
        harness.command(maria, id: "cancel", ["kind": "cancelGoal", "seq": 2]) { state in
            state.gather!.score.A = 0
            state.gather!.events[1].cancelled = true
            state.gather!.events.append(GatherEvent(seq: 3, kind: .goalCancelled, team: .A, at: now, matchMs: 0,
                                                    by: "maria", cancels: 2))
        }
        // ann, who had not seen the cancellation, cannot restore over it unseen.
        harness.rejected(ann, id: "restore-stale", base: base, ["kind": "restoreGoal", "seq": 2], code: .conflict,
                         messageContains: "maria changed")
        harness.command(ann, id: "restore", ["kind": "restoreGoal", "seq": 2]) { state in
            state.gather!.score.A = 1
            state.gather!.events[1].cancelled = false
            state.gather!.events[2].undone = true
            state.gather!.events.append(GatherEvent(seq: 4, kind: .goalRestored, team: .A, at: now, matchMs: 0,
                                                    by: "ann", restores: 2))
        }
        XCTAssertEqual(harness.state.gather?.events[1].at, goalAt)
        harness.rejected(ann, id: "restore-again", ["kind": "restoreGoal", "seq": 2], code: .notFound)
        harness.rejected(ann, id: "restore-unknown", ["kind": "restoreGoal", "seq": 40], code: .notFound)
    }

    // MARK: - Full time stays

    func testTheLastResultIsPublishedAndSurvivesARestart() throws {
        mariaScores()
        harness.clock.advance(byMs: 1000)
        let gatherID = harness.state.gather!.id
        harness.command(ann, id: "end", ["kind": "endGather"]) { state in
            state.gather = nil
            let entry = HistoryEntry(id: gatherID, endedAt: harness.clock.now,
                                     teamA: .init(name: "Whites", players: [.init(id: 1, name: "Ann")]),
                                     teamB: .init(name: "Team B", players: [.init(id: 2, name: "Bob")]),
                                     score: Score(A: 1, B: 0),
                                     goals: [.init(team: .A, playerId: nil, assistId: nil, matchMs: 0)])
            state.history = [entry]
            state.pitches[0].lastResult = entry
            state.players[0].rating = 1216
            state.players[0].stats = PlayerStats(games: 1, wins: 1)
            state.players[1].rating = 1184
            state.players[1].stats = PlayerStats(games: 1, losses: 1)
        }
        let ended = harness.state
        let version = harness.version
        _ = try harness.restart()
        XCTAssertEqual(harness.state, ended, "the last result is read back from the database")
        XCTAssertEqual(harness.version, version)
        let rendered = StatePresenter.json(harness.state, now: harness.clock.now, protocol: .v2)
        guard case .array(let pitches)? = rendered["pitches"] else { return XCTFail("no pitches") }
        XCTAssertEqual(pitches[0]["lastResult"], [
            "historyId": .string(gatherID), "endedAt": .int(Int(ended.history[0].endedAt)),
            "teams": ["A": ["name": "Whites", "score": 1, "playerIds": [1], "colour": "blue"],
                      "B": ["name": "Team B", "score": 0, "playerIds": [2], "colour": "red"]],
            "winner": "A",
            "goals": [["team": "A", "playerId": nil, "assistId": nil, "matchMs": 0]],
        ])
    }
}
