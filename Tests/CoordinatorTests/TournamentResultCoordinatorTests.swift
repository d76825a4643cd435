import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherPresenters
import GatherStore
import XCTest

/// The tournament scope through the whole core: a match's result landing in the same commit (one
/// version) as its gather's history entry, corrections, cancelling, arbitration per match / team /
/// settings and exactly-once answers.
final class TournamentResultCoordinatorTests: TournamentCoordinatorTestCase {
    // MARK: - The result: endGather and cancelGather

    func testAGoalChangesTheGatherOnlyAndFullTimeRecordsTheResultInTheSameCommit() throws {
        createCup()
        harness.prepare(ann, id: "start 1", ["kind": "startMatch", "match": 1])
        let now = harness.clock.now
        harness.command(ann, id: "goal", ["kind": "score", "team": "A", "delta": 1]) { state in
            state.pitches[0].gather!.score.A = 1
            state.pitches[0].gather!.events.append(.goal(seq: 2, team: .A, at: now, matchMs: 0, by: "ann"))
        }
        harness.rejected(ann, id: "pens", ["kind": "endGather", "penalties": ["A": 4, "B": 3]], code: .invalid,
                         messageContains: "group match")
        harness.clock.advance(byMs: 11 * 60_000)
        let before = harness.state
        let version = harness.version
        harness.message(ann, ["type": "command", "id": "ft", "base": .int(version), "action": ["kind": "endGather"]],
                        exhaustivity: .off)
        XCTAssertEqual(harness.version, version + 1, "one change: the history entry and the result together")
        let entry = try XCTUnwrap(harness.state.history.first)
        XCTAssertEqual(entry.id, before.pitches[0].gather?.id)
        XCTAssertEqual(entry.match, TournamentMatchLink(tournament: before.tournament!.id, match: 1))
        var expected = before.tournament!
        try expected.finishMatch(1, score: HomeAway(home: 1, away: 0), penalties: nil, endedAt: harness.clock.now,
                                 historyID: entry.id)
        XCTAssertEqual(harness.state.tournament, expected)
        XCTAssertEqual(expected.groups[0].table.map(\.team), [1, 3])
        XCTAssertNil(harness.state.pitches[0].gather)
        XCTAssertEqual(harness.state.pitches[0].lastResult, entry)
        let journal = try harness.store.journal(after: version)
        XCTAssertEqual(journal.map(\.kind), [.endGather])
        XCTAssertTrue(journal[0].subjects.contains(.tournamentMatch(1)))
        // What was committed is what a restart reads back.
        _ = try harness.restart()
        XCTAssertEqual(harness.state.tournament, expected)
    }

    func testTheClockTicksAndRunsOutWithoutTouchingTheTournament() throws {
        createCup()
        harness.prepare(ann, id: "start 1", ["kind": "startMatch", "match": 1])
        harness.prepare(ann, id: "go", ["kind": "startTimer"])
        let tournament = harness.state.tournament
        for _ in 0..<3 {
            harness.clock.advance(byMs: 1000)
            let effects = harness.send(.countdownWoke(pitch: 1), exhaustivity: .off)
            XCTAssertFalse(effects.contains { if case .publishSnapshot = $0 { true } else { false } }, "a tick is not a change")
        }
        harness.clock.advance(byMs: 600_000)
        let version = harness.version
        harness.send(.countdownWoke(pitch: 1), exhaustivity: .off)
        XCTAssertEqual(harness.version, version + 1)
        XCTAssertEqual(harness.state.pitches[0].gather?.timer.status, .finished)
        XCTAssertEqual(harness.state.tournament, tournament, "full time on the clock is not the result: endGather is")
    }

    func testALevelKnockoutMatchNeedsPenaltiesAndTheChampionFollows() throws {
        createCup()
        for (match, pitch, side) in [(1, 1, "A"), (2, 2, "B")] {
            harness.prepare(ann, id: "start \(match)", ["kind": "startMatch", "match": .int(match)])
            harness.prepare(ann, id: "goal \(match)", ["kind": "score", "team": .string(side), "delta": 1, "pitch": .int(pitch)])
            harness.prepare(ann, id: "ft \(match)", ["kind": "endGather", "pitch": .int(pitch)])
        }
        let tournament = try XCTUnwrap(harness.state.tournament)
        XCTAssertEqual(tournament.phase, .knockout)
        XCTAssertEqual(tournament.match(3).map { [$0.home, $0.away] }, [1, 4], "A1 Reds v B1 Golds")
        harness.prepare(ann, id: "start 3", ["kind": "startMatch", "match": 3])
        XCTAssertEqual(harness.state.pitches[0].gather?.teamA.name, "Reds")
        harness.rejected(ann, id: "level", ["kind": "endGather"], code: .invalid, messageContains: "penalties")
        harness.rejected(ann, id: "equal", ["kind": "endGather", "penalties": ["A": 3, "B": 3]], code: .invalid)
        harness.rejected(ann, id: "bad", ["kind": "endGather", "penalties": ["home": 3, "away": 2]], code: .invalid)
        harness.prepare(ann, id: "final", ["kind": "endGather", "penalties": ["A": 3, "B": 4]])
        let finished = try XCTUnwrap(harness.state.tournament)
        XCTAssertEqual(finished.phase, .finished)
        XCTAssertEqual(finished.champion, 4)
        XCTAssertEqual(finished.match(3)?.penalties, HomeAway(home: 3, away: 4))
        // One result everywhere: the history entry (and the pitch's full time) carry the shoot-out
        // and its winner, never a draw.
        let final = try XCTUnwrap(harness.state.history.first)
        XCTAssertEqual(final.score, Score(A: 0, B: 0))
        XCTAssertEqual(final.penalties, Score(A: 3, B: 4))
        XCTAssertEqual(final.winner, .B)
        XCTAssertNil(final.correctedAt)
        XCTAssertEqual(harness.state.pitches[0].lastResult, final)
        let group = try XCTUnwrap(harness.state.history.last)
        XCTAssertNil(group.penalties, "a group match has none")
        // A finished tournament cannot be cancelled; a new one may be created.
        harness.rejected(ann, id: "cancel", ["kind": "cancelTournament"], code: .wrongPhase)
        harness.prepare(ann, id: "cup 2", Self.cup())
        XCTAssertNotEqual(harness.state.tournament?.id, finished.id)
    }

    func testPenaltiesOnAGatherThatPlaysNoMatchAreInvalid() {
        harness.addThreePlayers(by: ann)
        harness.startLiveGather(by: ann)
        harness.rejected(ann, id: "pens", ["kind": "endGather", "penalties": ["A": 4, "B": 3]], code: .invalid,
                         messageContains: "not one")
    }

    func testCancelGatherPutsTheMatchBackToScheduled() throws {
        createCup()
        let before = harness.state
        harness.prepare(ann, id: "start 1", ["kind": "startMatch", "match": 1])
        harness.command(ann, id: "cancel", ["kind": "cancelGather"]) { state in
            state.pitches[0].gather = nil
            state.tournament = before.tournament
            // The clock moved on since their planned start: a match not started by now is expected
            // now (release 5). Every time moved once, at match 1's kickoff (cancelled at that same
            // moment, nothing moves again): the calendar's SEQUENCE went up once.
            let now = self.harness.clock.now
            XCTAssertGreaterThan(now, before.tournament!.matches[0].plannedAt)
            state.tournament!.matches[0].expectedAt = now
            state.tournament!.matches[1].expectedAt = now
            state.tournament!.matches[2].expectedAt = now + state.tournament!.rules.slotMs
            for index in 0..<3 { state.tournament!.matches[index].revision = 1 }
        }
        XCTAssertEqual(harness.state.tournament?.match(1)?.status, .scheduled)
    }

    // MARK: - correctResult

    func testCorrectResultMovesTablesButNotWhoAlreadyPlays() throws {
        createCup()
        harness.rejected(ann, id: "early", ["kind": "correctResult", "match": 1, "score": ["home": 1, "away": 0]],
                         code: .wrongPhase)
        for (match, pitch, side) in [(1, 1, "A"), (2, 2, "B")] {
            harness.prepare(ann, id: "start \(match)", ["kind": "startMatch", "match": .int(match)])
            harness.prepare(ann, id: "goal \(match)", ["kind": "score", "team": .string(side), "delta": 1, "pitch": .int(pitch)])
            harness.prepare(ann, id: "ft \(match)", ["kind": "endGather", "pitch": .int(pitch)])
        }
        let played = try XCTUnwrap(harness.state.history.first)
        let now = harness.clock.now
        harness.command(bob, id: "fix 2", ["kind": "correctResult", "match": 2, "score": ["home": 2, "away": 1]]) { state in
            try! state.tournament!.correctResult(2, score: HomeAway(home: 2, away: 1), penalties: nil)
            // The linked history entry follows, and so does pitch 2's full time.
            state.history[0].score = Score(A: 2, B: 1)
            state.history[0].winner = .A
            state.history[0].correctedAt = now
            state.history[0].correctedBy = "bob"
            state.pitches[1].lastResult = state.history[0]
        }
        XCTAssertEqual(harness.state.history[0].id, played.id)
        XCTAssertEqual(played.winner, .B)
        XCTAssertEqual(harness.state.tournament?.match(3)?.away, 2, "B1 is now Blues")
        harness.prepare(ann, id: "start 3", ["kind": "startMatch", "match": 3])
        harness.rejected(ann, id: "fix 1", ["kind": "correctResult", "match": 1, "score": ["home": 0, "away": 1]],
                         code: .inUse, messageContains: "already started")
        harness.rejected(ann, id: "pens", ["kind": "correctResult", "match": 2, "score": ["home": 2, "away": 1],
                                           "penalties": ["home": 4, "away": 3]], code: .invalid)
        let corrected = try XCTUnwrap(harness.state.history.first)
        XCTAssertEqual(corrected.score, Score(A: 2, B: 1), "history follows the correction")
        // Committed: a restart reads the corrected entry back from its row.
        _ = try harness.restart()
        XCTAssertEqual(harness.state.history.first, corrected)
        XCTAssertEqual(try harness.store.allHistory().first(where: { $0.id == played.id }), corrected)
    }

    // MARK: - cancelTournament

    func testCancelTournamentLeavesALiveMatchsGatherOutsideAnyTournament() throws {
        createCup()
        harness.prepare(ann, id: "start 1", ["kind": "startMatch", "match": 1])
        harness.command(ann, id: "cancel", ["kind": "cancelTournament"]) { state in
            state.tournament = nil
            state.pitches[0].gather!.match = nil
        }
        harness.rejected(ann, id: "again", ["kind": "cancelTournament"], code: .notFound)
        harness.prepare(ann, id: "ft", ["kind": "endGather"])
        XCTAssertNil(harness.state.history.first?.match)
        let kept = try harness.store.allTournaments()
        XCTAssertEqual(kept.map(\.cancelled), [true])
    }

    // MARK: - Arbitration and exactly once

    func testTwoOrganisersStartTwoMatchesFromOneBaseButAStaleActionAfterACancelConflicts() {
        createCup()
        let base = harness.version
        harness.prepare(ann, id: "start 1", ["kind": "startMatch", "match": 1])
        harness.message(bob, ["type": "command", "id": "start 2", "base": .int(base),
                              "action": ["kind": "startMatch", "match": 2]], exhaustivity: .off)
        XCTAssertEqual(harness.state.tournament?.matches.map(\.status), [.live, .live, .scheduled])
        let seen = harness.version
        harness.prepare(ann, id: "cancel", ["kind": "cancelTournament"])
        harness.prepare(ann, id: "cup 2", Self.cup(pitches: [1]))
        harness.rejected(bob, id: "team", base: seen, ["kind": "setTournamentTeam", "team": 1, "name": "Old"],
                         code: .conflict, messageContains: "ann changed the tournament")
    }

    func testTwoOrganisersCorrectingOneMatchConflictButOneTeamEachDoesNot() {
        createCup()
        let base = harness.version
        harness.prepare(ann, id: "reds", ["kind": "setTournamentTeam", "team": 1, "colour": "red"])
        harness.message(bob, ["type": "command", "id": "blues", "base": .int(base),
                              "action": ["kind": "setTournamentTeam", "team": 2, "colour": "blue"]], exhaustivity: .off)
        XCTAssertEqual(harness.state.tournament?.teams.map(\.colour), [.red, .blue, nil, nil])
        harness.rejected(bob, id: "reds 2", base: base, ["kind": "setTournamentTeam", "team": 1, "colour": "white"],
                         code: .conflict, messageContains: "ann changed the team Reds")
    }

    func testAResentCommandGetsItsFirstAnswerAndChangesNothing() {
        createCup()
        let version = harness.version
        harness.prepare(ann, id: "start 1", ["kind": "startMatch", "match": 1])
        let state = harness.state
        harness.message(ann, ["type": "command", "id": "start 1", "base": .int(version), "action": ["kind": "startMatch", "match": 1]],
                        expect: [.send(ann, .ack(id: "start 1", version: version + 1))])
        XCTAssertEqual(harness.state, state)
        harness.rejected(ann, id: "twice", ["kind": "startMatch", "match": 1], code: .wrongPhase)
        harness.message(ann, ["type": "command", "id": "twice", "base": .int(0), "action": ["kind": "cancelTournament"]],
                        exhaustivity: .off)
        XCTAssertEqual(harness.state, state, "a resent id keeps its first answer, whatever it carries now")
    }

    func testASpectatorCannotActOnTheTournament() {
        let viewer = harness.connect(9)
        harness.message(viewer, ["type": "command", "id": "c", "base": 0, "action": Self.cup()], expect: [
            .send(viewer, .rejected(id: "c", rejection: Rejection(.forbidden, .logInFirst, "Only organisers can change the gather; log in first."),
                                    version: harness.version)),
        ], exhaustivity: .off)
        XCTAssertNil(harness.state.tournament)
    }
}
