import GatherModel
import GatherModelTestSupport
import XCTest

/// `command.action` from the wire into an `Action`: every kind with good fields, and the
/// mistakes a client can make, each answered `invalid` with a sentence.
final class ActionDecoderTests: XCTestCase {
    private func decodes(_ json: JSONValue, to expected: Action, file: StaticString = #filePath, line: UInt = #line) {
        switch ActionDecoder.decode(json) {
        case .success(let action): XCTAssertEqual(action, expected, file: file, line: line)
        case .failure(let rejection): XCTFail("refused: \(rejection.message)", file: file, line: line)
        }
    }

    private func refuses(_ json: JSONValue, mentioning fragment: String? = nil, file: StaticString = #filePath,
                         line: UInt = #line) {
        switch ActionDecoder.decode(json) {
        case .success(let action): XCTFail("accepted as \(action)", file: file, line: line)
        case .failure(let rejection):
            XCTAssertEqual(rejection.code, .invalid, file: file, line: line)
            XCTAssertGreaterThan(rejection.message.count, 10, "a sentence, not a code", file: file, line: line)
            if let fragment {
                XCTAssertTrue(rejection.message.contains(fragment), "\"\(rejection.message)\"", file: file, line: line)
            }
        }
    }

    // MARK: - Every kind, well formed

    func testEveryKindDecodesFromItsDocumentedFields() {
        decodes(["kind": "addPlayer", "name": "Ann", "age": 31, "skill": "amateur", "position": "striker",
                 "favouriteTeam": "Arsenal"],
                to: .addPlayer(PlayerChanges(name: "Ann", age: .set(31), skill: .set(.amateur), position: .set(.striker),
                                             favouriteTeam: .set("Arsenal"))))
        decodes(["kind": "editPlayer", "playerId": 4, "age": nil, "skill": "beginner"],
                to: .editPlayer(4, PlayerChanges(age: .clear, skill: .set(.beginner))))
        decodes(["kind": "removePlayer", "playerId": 2], to: .removePlayer(2))
        decodes(["kind": "createGather", "playerIds": [2, 1, 3]], to: .createGather(playerIDs: [2, 1, 3]))
        decodes(["kind": "assign", "playerId": 1, "to": "A"], to: .assign(1, to: .A))
        decodes(["kind": "assign", "playerId": 1, "to": "B"], to: .assign(1, to: .B))
        decodes(["kind": "assign", "playerId": 1, "to": "bench"], to: .assign(1, to: .bench))
        decodes(["kind": "assign", "playerId": 1, "to": "out"], to: .assign(1, to: .out))
        decodes(["kind": "renameTeam", "team": "B", "name": "Blues"], to: .renameTeam(.B, name: "Blues"))
        decodes(["kind": "startGather"], to: .startGather)
        decodes(["kind": "score", "team": "A", "delta": 1], to: .score(.A, delta: 1))
        decodes(["kind": "score", "team": "B", "delta": -1], to: .score(.B, delta: -1))
        decodes(["kind": "setTimer", "minutes": 12, "seconds": 30], to: .setTimer(minutes: 12, seconds: 30))
        decodes(["kind": "startTimer"], to: .startTimer)
        decodes(["kind": "pauseTimer"], to: .pauseTimer)
        decodes(["kind": "resetTimer"], to: .resetTimer)
        decodes(["kind": "endGather"], to: .endGather)
        decodes(["kind": "cancelGather"], to: .cancelGather)
    }

    func testUnknownFieldsAreIgnored() {
        decodes(["kind": "startTimer", "colour": "red", "id": "x"], to: .startTimer)
    }

    func testTheKindNameRoundTrips() {
        let actions: [Action] = [.addPlayer(PlayerChanges(name: "A")), .editPlayer(1, PlayerChanges(name: "B")),
                                 .removePlayer(1), .addPitch(name: "P"), .renamePitch(2, name: "Q"), .removePitch(2)]
        let gatherActions: [GatherAction] = [
            .createGather(playerIDs: [1, 2]), .assign(1, to: .A), .renameTeam(.A, name: "R"), .startGather,
            .score(.A, delta: 1), .setScorer(seq: 1, scorer: 1, assist: nil), .cancelGoal(seq: 1), .balanceTeams,
            .setTimer(minutes: 1, seconds: 0), .startTimer, .pauseTimer, .resetTimer, .endGather, .cancelGather,
        ]
        let all = actions + gatherActions.map { Action.onPitch(2, $0) }
        XCTAssertEqual(Set(all.map(\.kind)).count, 20)
        for action in actions {
            XCTAssertEqual(action.kind.rawValue, String(describing: action).prefix { $0 != "(" }.description)
        }
        for action in gatherActions {
            XCTAssertEqual(Action.onPitch(2, action).kind.rawValue, String(describing: action).prefix { $0 != "(" }.description)
        }
    }

    // MARK: - The action itself

    func testAnActionMustBeAnObjectWithAKnownKind() {
        refuses("startTimer", mentioning: "object")
        refuses([["kind": "startTimer"]], mentioning: "object")
        refuses(nil, mentioning: "object")
        refuses([:], mentioning: "kind")
        refuses(["kind": 3], mentioning: "kind")
        refuses(["kind": "StartTimer"], mentioning: "Unknown action")
        refuses(["kind": "launchRocket"], mentioning: "\"launchRocket\"")
    }

    func testAnUnknownKindIsQuotedOnlyInPart() {
        let long = String(repeating: "k", count: 500)
        guard case .failure(let rejection) = ActionDecoder.decode(["kind": .string(long)]) else {
            return XCTFail("accepted a 500-character kind")
        }
        XCTAssertEqual(rejection.code, .invalid)
        XCTAssertLessThan(rejection.message.count, 100, "a message should not echo a whole attack payload")
    }

    // MARK: - Missing fields and wrong types

    func testMissingOrWronglyTypedPlayerIDs() {
        for kind: JSONValue in ["editPlayer", "removePlayer", "assign"] {
            refuses(["kind": kind, "to": "A", "name": "X"], mentioning: "playerId")
            refuses(["kind": kind, "playerId": "1", "to": "A", "name": "X"], mentioning: "playerId")
            refuses(["kind": kind, "playerId": .double(1.5), "to": "A", "name": "X"], mentioning: "playerId")
            refuses(["kind": kind, "playerId": nil, "to": "A", "name": "X"], mentioning: "playerId")
        }
    }

    func testCreateGatherNeedsAnArrayOfWholeNumbers() {
        refuses(["kind": "createGather"], mentioning: "playerIds")
        refuses(["kind": "createGather", "playerIds": "1,2"], mentioning: "playerIds")
        refuses(["kind": "createGather", "playerIds": [1, "2"]], mentioning: "whole numbers")
        refuses(["kind": "createGather", "playerIds": [1, .double(2.5)]], mentioning: "whole numbers")
        refuses(["kind": "createGather", "playerIds": .array((1...1001).map { .int($0) })], mentioning: "at most")
        decodes(["kind": "createGather", "playerIds": .array((1...1000).map { .int($0) })],
                to: .createGather(playerIDs: Array(1...1000)))
    }

    func testAssignNeedsAKnownPlace() {
        refuses(["kind": "assign", "playerId": 1], mentioning: "\"to\"")
        refuses(["kind": "assign", "playerId": 1, "to": "C"], mentioning: "\"bench\"")
        refuses(["kind": "assign", "playerId": 1, "to": "Bench"])
        refuses(["kind": "assign", "playerId": 1, "to": 1])
    }

    func testRenameTeamNeedsATeamAndAName() {
        refuses(["kind": "renameTeam", "name": "Reds"], mentioning: "team")
        refuses(["kind": "renameTeam", "team": "A"])
        refuses(["kind": "renameTeam", "team": "A", "name": nil])
        refuses(["kind": "renameTeam", "team": "A", "name": "Red\nSox"], mentioning: "control")
    }

    func testEditPlayerWithOnlyAnIDIsInvalid() {
        refuses(["kind": "editPlayer", "playerId": 1], mentioning: "field")
    }

    func testAddPlayerTurnsNullsIntoUnsetFields() {
        decodes(["kind": "addPlayer", "name": "Ann", "age": nil, "favouriteTeam": ""],
                to: .addPlayer(PlayerChanges(name: "Ann")))
    }

    func testEditPlayerTreatsABlankFavouriteTeamAsClearing() {
        decodes(["kind": "editPlayer", "playerId": 1, "favouriteTeam": "  "],
                to: .editPlayer(1, PlayerChanges(favouriteTeam: .clear)))
    }

    func testSetTimerOutOfRangeOrZero() {
        refuses(["kind": "setTimer", "minutes": 60, "seconds": 0], mentioning: "0 to 59")
        refuses(["kind": "setTimer", "minutes": 0, "seconds": 60], mentioning: "0 to 59")
        refuses(["kind": "setTimer", "minutes": -1, "seconds": 0], mentioning: "0 to 59")
        refuses(["kind": "setTimer", "minutes": 0], mentioning: "0 to 59")
        refuses(["kind": "setTimer", "minutes": 0, "seconds": 0], mentioning: "at least one second")
        decodes(["kind": "setTimer", "minutes": 0, "seconds": 59], to: .setTimer(minutes: 0, seconds: 59))
        decodes(["kind": "setTimer", "minutes": 59, "seconds": 0], to: .setTimer(minutes: 59, seconds: 0))
    }

    // MARK: - Subjects, for arbitration

    func testSubjectsNameWhatAnActionTouches() {
        let state = GatherTestStore.setUpGather().state
        XCTAssertEqual(GatherRules.subjects(of: .score(.A, delta: 1), in: state), [.score(1, .A)])
        XCTAssertEqual(GatherRules.subjects(of: .assign(3, to: .B), in: state), [.player(3)])
        XCTAssertEqual(GatherRules.subjects(of: .addPlayer(PlayerChanges(name: "Eve")), in: state), [.player(5)])
        XCTAssertEqual(GatherRules.subjects(of: .renameTeam(.B, name: "X"), in: state), [.teamName(1, .B)])
        XCTAssertEqual(GatherRules.subjects(of: .pauseTimer, in: state), [.timer(1)])
        XCTAssertEqual(GatherRules.subjects(of: .startGather, in: state),
                       [.gather(1), .timer(1), .score(1, .A), .score(1, .B), .teamName(1, .A), .teamName(1, .B),
                        .player(1), .player(2), .player(3), .player(4)])
    }

    func testSubjectsSurviveTheirTextForm() {
        let subjects: [Subject] = [.player(12), .score(1, .A), .score(1, .B), .teamName(1, .B), .timer(1), .gather(1)]
        XCTAssertEqual(subjects.map(\.description), ["player:12", "score:A", "score:B", "teamName:B", "timer", "gather"])
        XCTAssertEqual(subjects.map(\.description).compactMap(Subject.init(description:)), subjects)
        for bad in ["player:x", "score:C", "timer:1", "player", "", "Timer"] {
            XCTAssertNil(Subject(description: bad), bad)
        }
    }
}
