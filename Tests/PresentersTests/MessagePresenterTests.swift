import GatherDelivery
import GatherModel
import GatherModelTestSupport
import GatherPresenters
import XCTest

/// Every server message in the exact shape docs/PROTOCOL.md gives, as a client parses it.
final class MessagePresenterTests: XCTestCase {
    private func parsed(_ message: ServerMessage) throws -> JSONValue {
        try JSONValue.parse(MessagePresenter.bytes(message)).get()
    }

    func testWelcome() throws {
        XCTAssertEqual(try parsed(.welcome(serverTime: 1_763_800_000_123)),
                       ["type": "welcome", "role": "spectator", "protocol": "gather.v1", "serverTime": 1_763_800_000_123])
    }

    func testSessionForAnOrganiserAndAfterLogout() throws {
        XCTAssertEqual(try parsed(.session(SessionGrant(username: "ann", token: "t0k", inviteCode: "K1CK", owner: true))),
                       ["type": "session", "role": "organiser", "username": "ann", "token": "t0k", "inviteCode": "K1CK",
                        "owner": true])
        XCTAssertEqual(try parsed(.session(nil)), ["type": "session", "role": "spectator"])
        XCTAssertEqual(try parsed(.sessionEnded(reason: .passwordChanged)),
                       ["type": "session", "role": "spectator", "reason": "password_changed"])
    }

    func testAccountRepliesAndActivity() throws {
        XCTAssertEqual(try parsed(.account(id: "a1", .organisers([
            OrganiserSummary(username: "ann", owner: true, createdAt: 5, lastSeenAt: 9, online: true, sessions: 2),
            OrganiserSummary(username: "bob", owner: false, createdAt: 6, lastSeenAt: nil, online: false, sessions: 0),
        ]))), ["type": "account", "id": "a1", "organisers": [
            ["username": "ann", "owner": true, "createdAt": 5, "lastSeenAt": 9, "online": true, "sessions": 2],
            ["username": "bob", "owner": false, "createdAt": 6, "lastSeenAt": nil, "online": false, "sessions": 0],
        ]])
        XCTAssertEqual(try parsed(.account(id: "a2", .inviteCode("NEWCODE1"))), ["type": "account", "id": "a2", "inviteCode": "NEWCODE1"])
        XCTAssertEqual(try parsed(.account(id: nil, .removed("bob"))), ["type": "account", "removed": "bob"])
        XCTAssertEqual(try parsed(.account(id: "a4", .owner("bob"))), ["type": "account", "id": "a4", "owner": "bob"])
        XCTAssertEqual(try parsed(.account(id: "a5", .sessionsEnded(3))), ["type": "account", "id": "a5", "sessionsEnded": 3])
        XCTAssertEqual(try parsed(.activity(id: "a6", items: [
            ActivityItem(version: 7, at: 99, organiser: "ann", kind: "score", pitch: 1, summary: "Added a goal for Whites",
                         sentence: Sentence(.addedGoal, ["team": .text("Whites")])),
            ActivityItem(version: 6, at: 98, organiser: nil, kind: "timerExpired", pitch: nil, summary: "Full time",
                         sentence: Sentence(.fullTime, ["pitches": .text("Pitch 1")])),
        ])), ["type": "activity", "id": "a6", "items": [
            ["version": 7, "at": 99, "organiser": "ann", "kind": "score", "pitch": 1, "summary": "Added a goal for Whites",
             "reason": "added_goal", "params": ["team": "Whites"]],
            ["version": 6, "at": 98, "organiser": nil, "kind": "timerExpired", "pitch": nil, "summary": "Full time",
             "reason": "full_time", "params": ["pitches": "Pitch 1"]],
        ]])
    }

    func testAckRejectedAndError() throws {
        XCTAssertEqual(try parsed(.ack(id: "c1", version: 7)), ["type": "ack", "id": "c1", "version": 7])
        XCTAssertEqual(try parsed(.rejected(id: "c2", rejection: Rejection(.conflict, "ann changed it."), version: 8)),
                       ["type": "rejected", "id": "c2", "code": "conflict", "message": "ann changed it.", "version": 8,
                        "reason": "conflict", "params": [:]])
        XCTAssertEqual(try parsed(.error(code: .badJSON, message: "Not JSON.", id: nil)),
                       ["type": "error", "code": "bad_json", "message": "Not JSON.", "reason": "bad_json", "params": [:]])
        XCTAssertEqual(try parsed(.error(code: .unknownType, message: "No.", id: "x")),
                       ["type": "error", "code": "unknown_type", "message": "No.", "id": "x", "reason": "unknown_type",
                        "params": [:]])
        XCTAssertEqual(try parsed(.error(code: .invalid, message: "A username is …", id: nil, reason: Sentence(.usernameRule))),
                       ["type": "error", "code": "invalid", "message": "A username is …", "reason": "username_rule",
                        "params": [:]])
    }

    func testPresenceListsOrganisersSorted() throws {
        XCTAssertEqual(try parsed(.presence(organisers: ["zoe", "ann"], spectators: 12)),
                       ["type": "presence", "organisers": ["ann", "zoe"], "spectators": 12, "remote": 0])
    }

    func testTickCarriesEndsAtOnlyWhileRunning() throws {
        let running = MatchTimer(status: .running, durationSeconds: 600, remainingMs: 600_000, endsAt: 1_000_600_000)
        XCTAssertEqual(try parsed(.tick(pitch: 1, timer: running, now: 1_000_000_000 + 1500)),
                       ["type": "tick", "pitch": 1, "timer": ["status": "running", "durationSeconds": 600, "remainingMs": 598_500,
                                                  "endsAt": 1_000_600_000]])
        let paused = MatchTimer(status: .paused, durationSeconds: 600, remainingMs: 42_000)
        XCTAssertEqual(try parsed(.tick(pitch: 2, timer: paused, now: 5)),
                       ["type": "tick", "pitch": 2, "timer": ["status": "paused", "durationSeconds": 600, "remainingMs": 42_000]])
    }

    func testSnapshotOfTheProtocolExample() throws {
        var gather = ActiveGather(id: "g1", bench: [3])
        gather.teamA.players = [1]
        gather.teamB.players = [2]
        gather.events = [GatherEvent.goal(seq: 1, team: .A, at: 1_763_800_000_000, matchMs: 754_000, by: "ann",
                                          playerId: 1)]
        let state = GatherState(
            players: [Player(id: 1, name: "Ann", age: 31, skill: .amateur, position: .striker, favouriteTeam: "Arsenal"),
                      Player(id: 2, name: "Bob", skill: .professional, stats: PlayerStats(games: 1, wins: 1, goals: 2))],
            gather: gather,
            history: [HistoryEntry(id: "h1", endedAt: 1_763_800_000_000,
                                   teamA: .init(name: "Team A", players: [.init(id: 1, name: "Ann")]),
                                   teamB: .init(name: "Team B", players: [.init(id: 2, name: "Bob")]),
                                   score: Score(A: 2, B: 1),
                                   goals: [.init(team: .A, playerId: 1, assistId: nil, matchMs: 60_000)])],
            nextPlayerID: 4)
        let renderedGather: JSONValue = [
            "id": "g1", "phase": "setup",
            "teams": ["A": ["name": "Team A", "players": [1]], "B": ["name": "Team B", "players": [2]]],
            "bench": [3],
            "score": ["A": 0, "B": 0],
            "timer": ["status": "stopped", "durationSeconds": 600, "remainingMs": 600_000],
            "events": [["seq": 1, "kind": "goal", "team": "A", "at": 1_763_800_000_000, "matchMs": 754_000,
                        "by": "ann", "playerId": 1, "assistId": nil, "cancelled": false]],
        ]
        let zero: JSONValue = ["games": 0, "wins": 0, "draws": 0, "losses": 0, "goals": 0, "assists": 0]
        XCTAssertEqual(try parsed(.snapshot(version: 3, state: state, now: 0)), [
            "type": "snapshot", "version": 3,
            "state": [
                "players": [
                    ["id": 1, "name": "Ann", "age": 31, "skill": "amateur", "position": "striker",
                     "favouriteTeam": "Arsenal", "rating": 1200, "stats": zero],
                    ["id": 2, "name": "Bob", "age": nil, "skill": "professional", "position": nil, "favouriteTeam": nil,
                     "rating": 1400,
                     "stats": ["games": 1, "wins": 1, "draws": 0, "losses": 0, "goals": 2, "assists": 0]],
                ],
                "gather": renderedGather,
                "pitches": [["id": 1, "name": "Pitch 1", "gather": renderedGather, "lastResult": nil]],
                "history": [[
                    "id": "h1", "endedAt": 1_763_800_000_000,
                    "pitch": ["id": 1, "name": "Pitch 1"],
                    "teams": ["A": ["name": "Team A", "players": [["id": 1, "name": "Ann"]]],
                              "B": ["name": "Team B", "players": [["id": 2, "name": "Bob"]]]],
                    "score": ["A": 2, "B": 1], "winner": "A",
                    "goals": [["team": "A", "playerId": 1, "assistId": nil, "matchMs": 60_000]],
                ]],
                "tournament": nil,
            ],
        ])
    }

    func testNoGatherIsNull() throws {
        XCTAssertEqual(try parsed(.snapshot(version: 0, state: GatherState(), now: 0)),
                       ["type": "snapshot", "version": 0,
                        "state": ["players": [], "gather": nil, "pitches": [["id": 1, "name": "Pitch 1", "gather": nil, "lastResult": nil]],
                                  "history": [], "tournament": nil]])
    }

    func testGatherV2HasNoTopLevelGatherAndSaysSoInItsWelcome() throws {
        var state = GatherState()
        state.pitches.append(Pitch(id: 2, name: "Back pitch", gather: ActiveGather(id: "g2", bench: [])))
        let v2 = try JSONValue.parse(MessagePresenter.bytes(.snapshot(version: 5, state: state, now: 0), protocol: .v2)).get()
        XCTAssertNil(v2["state"]?["gather"])
        guard case .array(let pitches)? = v2["state"]?["pitches"] else { return XCTFail("no pitches") }
        XCTAssertEqual(pitches.count, 2)
        let welcome = try JSONValue.parse(MessagePresenter.bytes(.welcome(serverTime: 1, protocol: .v2))).get()
        XCTAssertEqual(welcome["protocol"], "gather.v2")
    }

    func testTheSameStateAlwaysRendersTheSameBytes() {
        let state = GatherState(players: [Player(id: 1, name: "Ann \"the wall\" \\ \n")])
        XCTAssertEqual(MessagePresenter.bytes(.snapshot(version: 1, state: state, now: 0)),
                       MessagePresenter.bytes(.snapshot(version: 1, state: state, now: 0)))
    }
}
