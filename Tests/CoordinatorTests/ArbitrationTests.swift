import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherModelTestSupport
import GatherPresenters
import XCTest

/// docs/PROTOCOL.md "Arbitration between organisers": exactly once, and no silent overwrite.
final class ArbitrationTests: XCTestCase {
    private var harness: CoordinatorHarness!
    private var ann: ConnectionID!
    private var bob: ConnectionID!

    override func setUpWithError() throws {
        harness = try CoordinatorHarness()
        ann = harness.organiser(1, "ann")
        bob = harness.organiser(2, "bob")
        harness.addThreePlayers(by: ann)
    }

    private func liveGather() {
        harness.startLiveGather(by: ann)
    }

    func testTheSameGoalFromTwoOrganisersCountsOnce() throws {
        liveGather()
        let base = harness.version
        harness.clock.advance(byMs: 3000)
        // The presence held back since bob's registration comes due with the first step after a second.
        harness.command(ann, id: "ann+1", base: base, ["kind": "score", "team": "A", "delta": 1],
                        also: [.publishPresence(organisers: ["ann", "bob"], spectators: 0)]) { state in
            state.gather!.score.A = 1
            state.gather!.events.append(GatherEvent.goal(seq: 2, team: .A, at: harness.clock.now,
                                                    matchMs: 0, by: "ann"))
        }
        harness.clock.advance(byMs: 12_000)
        harness.rejected(bob, id: "bob+1", base: base, ["kind": "score", "team": "A", "delta": 1], code: .conflict,
                         messageContains: "ann changed Team A's score 12 s ago")
        XCTAssertEqual(harness.state.gather?.score, Score(A: 1, B: 0))
    }

    func testChangesToDifferentSubjectsFromAnOldBaseBothApply() throws {
        let base = harness.version
        harness.command(ann, id: "e1", base: base, ["kind": "editPlayer", "playerId": 1, "age": 30]) { state in
            state.players[0].age = 30
        }
        harness.command(bob, id: "e2", base: base, ["kind": "editPlayer", "playerId": 2, "skill": "professional"]) {
            state in
            state.players[1].skill = .professional
            state.players[1].rating = 1400  // no games yet: the rating follows the skill
        }
    }

    func testTheSamePlayerEditedFromAnOldBaseConflicts() throws {
        let base = harness.version
        harness.command(ann, id: "e1", base: base, ["kind": "editPlayer", "playerId": 3, "name": "Cyd"]) { state in
            state.players[2].name = "Cyd"
        }
        harness.rejected(bob, id: "e2", base: base, ["kind": "editPlayer", "playerId": 3, "age": 40], code: .conflict,
                         messageContains: "ann changed Cyd's details or place just now")
    }

    func testStartGatherFromABaseOlderThanALineupChangeConflicts() throws {
        for (id, action) in [("g", ["kind": "createGather", "playerIds": [1, 2, 3]] as JSONValue),
                             ("a", ["kind": "assign", "playerId": 1, "to": "A"]),
                             ("b", ["kind": "assign", "playerId": 2, "to": "B"])] {
            harness.prepare(ann, id: id, action)
        }
        let base = harness.version
        harness.command(ann, id: "move", base: base, ["kind": "assign", "playerId": 3, "to": "A"]) { state in
            state.gather!.bench = []
            state.gather!.teamA.players = [1, 3]
        }
        harness.rejected(bob, id: "ko", base: base, ["kind": "startGather"], code: .conflict,
                         messageContains: "ann changed")
    }

    func testAnOrganisersOwnEarlierChangeIsNotAConflict() throws {
        liveGather()
        let base = harness.version
        harness.command(ann, id: "g1", base: base, ["kind": "score", "team": "A", "delta": 1]) { state in
            state.gather!.score.A = 1
            state.gather!.events.append(GatherEvent.goal(seq: 2, team: .A, at: harness.clock.now, matchMs: 0,
                                                    by: "ann"))
        }
        harness.command(ann, id: "g2", base: base, ["kind": "score", "team": "A", "delta": 1]) { state in
            state.gather!.score.A = 2
            state.gather!.events.append(GatherEvent.goal(seq: 3, team: .A, at: harness.clock.now, matchMs: 0,
                                                    by: "ann"))
        }
    }

    func testAResentIdIsAnsweredNotReapplied() throws {
        let base = harness.version
        let action: JSONValue = ["kind": "addPlayer", "name": "Dee"]
        harness.command(ann, id: "dee", base: base, action) { state in
            state.players.append(Player(id: 4, name: "Dee"))
            state.nextPlayerID = 5
        }
        let version = harness.version
        // Reconnect: a new connection resumes the same organiser and resends the id.
        harness.send(.clientDisconnected(ann), exhaustivity: .off)
        let again = harness.connect(7)
        _ = harness.message(again, ["type": "login", "username": "ann", "password": "correct horse"], exhaustivity: .off)
        harness.send(.passwordChecked(PasswordJob(client: again, purpose: .login, username: "ann",
                                                  password: "correct horse", requestID: nil), matches: true), exhaustivity: .off)
        let applied = harness.tally.commandsApplied
        harness.message(again, ["type": "command", "id": "dee", "base": .int(base), "action": action],
                        expect: [.send(again, .ack(id: "dee", version: version))])
        XCTAssertEqual(harness.tally.commandsApplied, applied, "a repeated ack is not a newly applied command")
        XCTAssertEqual(harness.state.players.count, 4)
        XCTAssertEqual(harness.version, version)
    }

    func testARepeatedRejectionKeepsItsOriginalVersion() throws {
        harness.rejected(ann, id: "bad", ["kind": "removePlayer", "playerId": 99], code: .notFound)
        let firstVersion = harness.version
        harness.command(ann, id: "other", ["kind": "addPlayer", "name": "Eve"]) { state in
            state.players.append(Player(id: 4, name: "Eve"))
            state.nextPlayerID = 5
        }
        harness.message(ann, ["type": "command", "id": "bad", "base": .int(harness.version),
                              "action": ["kind": "removePlayer", "playerId": 99]],
                        expect: [.send(ann, .rejected(id: "bad",
                                                      rejection: Rejection(.notFound, .noSuchPlayer, ["id": .number(99)],
                                                                           "There is no player with id 99; they may have been removed."),
                                                      version: firstVersion))])
        XCTAssertEqual(harness.tally.rejectionsByCode, ["not_found": 1], "the repeated rejection is not counted again")
    }

    func testRateLimitedIsNotAFinalAnswer() throws {
        for index in 0..<96 {
            harness.prepare(ann, id: "n\(index)", ["kind": "editPlayer", "playerId": 1, "age": .int(index % 90 + 1)])
        }
        // Every message shares the bucket: the register, 3 setup commands and 96 = the burst of 100.
        harness.rejected(ann, id: "over", ["kind": "addPlayer", "name": "Zed"], code: .rateLimited)
        harness.clock.advance(byMs: 50) // 20 a second refill one token in 50 ms
        harness.command(ann, id: "over", ["kind": "addPlayer", "name": "Zed"]) { state in
            state.players.append(Player(id: 4, name: "Zed"))
            state.nextPlayerID = 5
        }
    }
}
