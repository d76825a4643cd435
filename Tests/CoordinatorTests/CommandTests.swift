import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherModelTestSupport
import GatherPresenters
import XCTest

final class CommandTests: XCTestCase {
    func testAConnectionIsWelcomedAsASpectator() throws {
        let harness = try CoordinatorHarness()
        let client = ConnectionID(1)
        harness.send(.clientConnected(client, address: "10.0.0.2"), expect: [
            .greet(client, .welcome(serverTime: CoordinatorHarness.start)),
            .publishPresence(organisers: [], spectators: 1),
        ])
    }

    func testASpectatorCannotChangeAnything() throws {
        let harness = try CoordinatorHarness()
        let spectator = harness.connect(1)
        harness.rejected(spectator, id: "c1", ["kind": "addPlayer", "name": "Ann"], code: .forbidden,
                         messageContains: "log in")
    }

    func testAddingAPlayerAcknowledgesAfterTheSnapshot() throws {
        let harness = try CoordinatorHarness()
        let ann = harness.organiser(1, "ann")
        harness.command(ann, id: "c1", ["kind": "addPlayer", "name": "  Ann ", "age": 31, "skill": "amateur",
                                        "position": "striker", "favouriteTeam": "Arsenal"]) { state in
            state.players = [Player(id: 1, name: "Ann", age: 31, skill: .amateur, position: .striker,
                                    favouriteTeam: "Arsenal")]
            state.nextPlayerID = 2
        }
    }

    func testAWholeGatherFromRosterToHistory() throws {
        let harness = try CoordinatorHarness()
        let ann = harness.organiser(1, "ann")
        for (index, name) in ["Ann", "Bob", "Cid"].enumerated() {
            harness.command(ann, id: "add\(index)", ["kind": "addPlayer", "name": .string(name)]) { state in
                state.players.append(Player(id: index + 1, name: name))
                state.nextPlayerID = index + 2
            }
        }
        harness.command(ann, id: "g", ["kind": "createGather", "playerIds": [1, 2, 3]]) { state in
            state.gather = ActiveGather(id: "gather-2", bench: [1, 2, 3])
        }
        harness.command(ann, id: "a1", ["kind": "assign", "playerId": 1, "to": "A"]) { state in
            state.gather!.bench = [2, 3]
            state.gather!.teamA.players = [1]
        }
        harness.rejected(ann, id: "early", ["kind": "startGather"], code: .invalid, messageContains: "Both teams")
        harness.command(ann, id: "a2", ["kind": "assign", "playerId": 2, "to": "B"]) { state in
            state.gather!.bench = [3]
            state.gather!.teamB.players = [2]
        }
        let now = harness.clock.now
        harness.command(ann, id: "ko", ["kind": "startGather"]) { state in
            state.gather!.phase = .live
            state.gather!.events = [GatherEvent(seq: 1, kind: .kickoff, at: now, by: "ann")]
        }
        harness.clock.advance(byMs: 5000)
        harness.command(ann, id: "goal", ["kind": "score", "team": "B", "delta": 1],
                        also: [.publishPresence(organisers: ["ann"], spectators: 0)]) { state in
            state.gather!.score.B = 1
            state.gather!.events.append(GatherEvent.goal(seq: 2, team: .B, at: now + 5000, matchMs: 0,
                                                    by: "ann"))
        }
        harness.command(ann, id: "end", ["kind": "endGather"]) { state in
            state.gather = nil
            state.history = [HistoryEntry(id: "gather-2", endedAt: now + 5000,
                                          teamA: .init(name: "Team A", players: [.init(id: 1, name: "Ann")]),
                                          teamB: .init(name: "Team B", players: [.init(id: 2, name: "Bob")]),
                                          score: Score(A: 0, B: 1),
                                          goals: [.init(team: .B, playerId: nil, assistId: nil, matchMs: 0)])]
            // Equal ratings (1200 each): the winner gains round(32 × ½) = 16, the loser gives it.
            state.players[0].rating = 1184
            state.players[0].stats = PlayerStats(games: 1, losses: 1)
            state.players[1].rating = 1216
            state.players[1].stats = PlayerStats(games: 1, wins: 1)
            state.pitches[0].lastResult = state.history[0]
        }
        XCTAssertEqual(harness.state.history.first?.winner, .B)
        XCTAssertEqual(try harness.store.allHistory().count, 1)
    }

    func testBaseMustBeAnIntegerUpToTheCurrentVersion() throws {
        let harness = try CoordinatorHarness()
        let ann = harness.organiser(1, "ann")
        harness.rejected(ann, id: "ahead", base: 1, ["kind": "addPlayer", "name": "Ann"], code: .invalid,
                         messageContains: "base")
        harness.rejected(ann, id: "negative", base: -1, ["kind": "addPlayer", "name": "Ann"], code: .invalid)
        let effects = harness.message(ann, ["type": "command", "id": "missing", "action": ["kind": "startTimer"]], exhaustivity: .off)
        guard case .send(ann, .rejected("missing", let rejection, 0)) = effects.first else {
            return XCTFail("\(effects)")
        }
        XCTAssertEqual(rejection.code, .invalid)
    }

    func testUnknownKindAndBadFieldsAreInvalid() throws {
        let harness = try CoordinatorHarness()
        let ann = harness.organiser(1, "ann")
        harness.rejected(ann, id: "u", ["kind": "teleport"], code: .invalid, messageContains: "Unknown action")
        harness.rejected(ann, id: "age", ["kind": "addPlayer", "name": "Ann", "age": 120], code: .invalid)
        harness.rejected(ann, id: "name", ["kind": "addPlayer", "name": ""], code: .invalid)
        harness.rejected(ann, id: "edit", ["kind": "editPlayer", "playerId": 1], code: .invalid)
    }

    func testMalformedMessagesGetAnErrorAndTheConnectionStaysUsable() throws {
        let harness = try CoordinatorHarness()
        let client = harness.connect(1)
        func error(_ text: String) -> (ErrorCode, String?)? {
            let effects = harness.send(.messageReceived(client, text: text), exhaustivity: .off)
            guard effects.count == 1, case .send(client, .error(let code, _, let id, _)) = effects[0] else { return nil }
            return (code, id)
        }
        XCTAssertEqual(error("{")?.0, .badJSON)
        XCTAssertEqual(error("[1,2]")?.0, .badMessage)
        XCTAssertEqual(error("{\"id\":\"x\"}")?.0, .badMessage)
        XCTAssertEqual(error("{\"id\":\"x\"}")?.1, "x")
        XCTAssertEqual(error("{\"type\":\"dance\",\"id\":\"d1\"}")?.0, .unknownType)
        XCTAssertEqual(error("{\"type\":\"dance\",\"id\":\"d1\"}")?.1, "d1")
        XCTAssertEqual(error("{\"type\":\"command\",\"base\":0}")?.0, .badMessage)
        XCTAssertEqual(error("{\"type\":\"logout\",\"id\":\"\"}")?.0, .badMessage)
        XCTAssertEqual(error("{\"type\":\"logout\",\"id\":\"\(String(repeating: "x", count: 65))\"}")?.0, .badMessage)
        // One character carrying 200 combining marks is one character but 401 bytes: refused.
        let heavy = "a" + String(repeating: "\u{301}", count: 200)
        XCTAssertEqual(heavy.count, 1)
        XCTAssertEqual(error("{\"type\":\"logout\",\"id\":\"\(heavy)\"}")?.0, .badMessage)
        // Still usable: a well-formed message is answered normally.
        harness.send(.messageReceived(client, text: "{\"type\":\"logout\"}"), expect: [.send(client, .session(nil))])
    }
}
