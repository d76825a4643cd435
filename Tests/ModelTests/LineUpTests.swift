import GatherModel
import GatherModelTestSupport
import XCTest

/// Choosing players for a gather, moving them between bench, Team A, Team B and out, naming
/// the teams and kicking off.
final class LineUpTests: XCTestCase {
    // MARK: - Creating a gather

    func testANewGatherPutsEveryoneOnTheBenchWithTenMinutesAndNilNil() {
        let store = GatherTestStore(.roster("Ann", "Bob", "Cid"))
        store.send(json: ["kind": "createGather", "playerIds": [3, 1]]) { state in
            state.gather = ActiveGather(
                id: "gather-1", phase: .setup, teamA: Team(name: "Team A", players: []),
                teamB: Team(name: "Team B", players: []), bench: [3, 1], score: Score(A: 0, B: 0),
                timer: MatchTimer(status: .stopped, durationSeconds: 600, remainingMs: 600_000, endsAt: nil),
                events: [])
        }
    }

    func testAGatherNeedsAtLeastTwoDistinctPlayers() {
        let store = GatherTestStore(.roster("Ann", "Bob"))
        store.reject(json: ["kind": "createGather", "playerIds": []], code: .invalid, messageContains: "two")
        store.reject(json: ["kind": "createGather", "playerIds": [1]], code: .invalid, messageContains: "two")
        store.reject(json: ["kind": "createGather", "playerIds": [1, 1]], code: .invalid, messageContains: "once")
        store.reject(json: ["kind": "createGather", "playerIds": [1, 1, 2]], code: .invalid, messageContains: "once")
    }

    func testAGatherOfUnknownPlayersIsNotFound() {
        let store = GatherTestStore(.roster("Ann", "Bob"))
        store.reject(json: ["kind": "createGather", "playerIds": [1, 7]], code: .notFound, messageContains: "7")
    }

    func testOnlyOneGatherAtATime() {
        let store = GatherTestStore.setUpGather()
        store.reject(.createGather(playerIDs: [3, 4]), code: .wrongPhase, messageContains: "already")
    }

    // MARK: - Moving players

    func testMovingPlayersBetweenBenchTeamsAndOut() {
        let store = GatherTestStore.setUpGather()
        store.send(.assign(3, to: .A)) { state in
            state.gather!.bench = [4]
            state.gather!.teamA.players = [1, 3]
        }
        store.send(.assign(1, to: .B)) { state in
            state.gather!.teamA.players = [3]
            state.gather!.teamB.players = [2, 1]
        }
        store.send(.assign(2, to: .bench)) { state in
            state.gather!.teamB.players = [1]
            state.gather!.bench = [4, 2]
        }
        store.send(.assign(4, to: .out)) { state in
            state.gather!.bench = [2]
        }
        XCTAssertEqual(store.state.gather!.memberIDs, [3, 1, 2])
    }

    func testAssigningToTheSamePlaceMovesThePlayerToTheEndWithoutDuplicating() {
        let store = GatherTestStore.setUpGather()
        store.send(.assign(3, to: .bench)) { state in
            state.gather!.bench = [4, 3]
        }
    }

    func testARosterPlayerNotYetInTheGatherCanBeAssignedDirectly() {
        let store = GatherTestStore.setUpGather()
        store.send(.addPlayer(PlayerChanges(name: "Eve"))) { state in
            state.players.append(Player(id: 5, name: "Eve"))
            state.nextPlayerID = 6
        }
        store.send(json: ["kind": "assign", "playerId": 5, "to": "B"]) { state in
            state.gather!.teamB.players = [2, 5]
        }
    }

    func testTakingOutSomeoneWhoIsNotInTheGatherIsNotFound() {
        let store = GatherTestStore.setUpGather()
        store.send(.assign(4, to: .out)) { state in
            state.gather!.bench = [3]
        }
        store.reject(.assign(4, to: .out), code: .notFound, messageContains: "Dan")
        store.reject(.assign(9, to: .A), code: .notFound, messageContains: "9")
    }

    func testAssigningNeedsAGatherAndAKnownPlace() {
        let store = GatherTestStore(.roster("Ann", "Bob"))
        store.reject(.assign(1, to: .A), code: .wrongPhase, messageContains: "create")
        store.reject(json: ["kind": "assign", "playerId": 1, "to": "C"], code: .invalid)
        store.reject(json: ["kind": "assign", "playerId": 1, "to": "a"], code: .invalid)
    }

    func testPlayersCanStillBeMovedWhileLive() {
        let store = GatherTestStore.liveGather()
        store.send(.assign(3, to: .A)) { state in
            state.gather!.bench = [4]
            state.gather!.teamA.players = [1, 3]
        }
    }

    // MARK: - Team names

    func testRenamingATeamTrimsTheName() {
        let store = GatherTestStore.setUpGather()
        store.send(json: ["kind": "renameTeam", "team": "A", "name": "  Reds "]) { state in
            state.gather!.teamA.name = "Reds"
        }
        store.send(json: ["kind": "renameTeam", "team": "B", "name": .string(String(repeating: "b", count: 30))]) {
            state in
            state.gather!.teamB.name = String(repeating: "b", count: 30)
        }
    }

    func testTeamNamesMustBeOneToThirtyCharacters() {
        let store = GatherTestStore.setUpGather()
        store.reject(json: ["kind": "renameTeam", "team": "A", "name": ""], code: .invalid, messageContains: "1–30")
        store.reject(json: ["kind": "renameTeam", "team": "A", "name": "  "], code: .invalid)
        store.reject(json: ["kind": "renameTeam", "team": "A", "name": .string(String(repeating: "b", count: 31))],
                     code: .invalid, messageContains: "1–30")
        store.reject(json: ["kind": "renameTeam", "team": "A"], code: .invalid)
        store.reject(json: ["kind": "renameTeam", "team": "C", "name": "Reds"], code: .invalid,
                     messageContains: "\"A\" or \"B\"")
    }

    func testRenamingWithoutAGatherIsTheWrongPhase() {
        let store = GatherTestStore(.roster("Ann"))
        store.reject(.renameTeam(.A, name: "Reds"), code: .wrongPhase)
    }

    // MARK: - Kick-off

    func testKickOffGoesLiveAndRecordsWhoAndWhen() {
        let store = GatherTestStore.setUpGather()
        store.advance(byMs: 5000)
        store.organiser = "bob"
        store.send(.startGather) { state in
            state.gather!.phase = .live
            state.gather!.events = [GatherEvent(seq: 1, kind: .kickoff, team: nil, at: GatherTestStore.start + 5000,
                                                matchMs: nil, by: "bob")]
        }
    }

    func testKickOffNeedsAPlayerInBothTeams() {
        let store = GatherTestStore(.roster("Ann", "Bob"))
        store.send(.createGather(playerIDs: [1, 2])) { state in
            state.gather = ActiveGather(id: "gather-1", bench: [1, 2])
        }
        store.reject(.startGather, code: .invalid, messageContains: "Both teams")
        store.send(.assign(1, to: .A)) { state in
            state.gather!.bench = [2]
            state.gather!.teamA.players = [1]
        }
        store.reject(.startGather, code: .invalid, messageContains: "Both teams")
        store.send(.assign(2, to: .B)) { state in
            state.gather!.bench = []
            state.gather!.teamB.players = [2]
        }
        store.send(.startGather) { state in
            state.gather!.phase = .live
            state.gather!.events = [GatherEvent(seq: 1, kind: .kickoff, at: GatherTestStore.start, by: "ann")]
        }
    }

    func testKickOffHappensOnce() {
        let store = GatherTestStore.liveGather()
        store.reject(.startGather, code: .wrongPhase, messageContains: "already")
        let empty = GatherTestStore(.roster("Ann"))
        empty.reject(.startGather, code: .wrongPhase)
    }
}
