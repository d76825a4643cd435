import GatherModel
import XCTest

/// The tournament actions' fields read from the wire: what is accepted, and a sentence for the rest.
final class TournamentActionFieldsTests: XCTestCase {
    private func message<Value>(_ result: Result<Value, Rejection>) -> String? {
        guard case .failure(let rejection) = result else { return nil }
        XCTAssertEqual(rejection.code, .invalid)
        return rejection.message
    }

    func testTeamChanges() throws {
        let (team, changes) = try TournamentActionFields.teamChanges(["team": 3, "name": " Red Star ", "colour": "red",
                                                                      "players": [4, 7]]).get()
        XCTAssertEqual(team, 3)
        XCTAssertEqual(changes, TournamentTeamChanges(name: "Red Star", colour: .red, players: [4, 7]))
        XCTAssertEqual(try TournamentActionFields.teamChanges(["team": 1, "players": []]).get().1.players, [])
        XCTAssertEqual(message(TournamentActionFields.teamChanges(["name": "X"])), "Say which team (\"team\", a number).")
        XCTAssertEqual(message(TournamentActionFields.teamChanges(["team": 1])),
                       "Say what to change: \"name\", \"colour\" or \"players\".")
        XCTAssertEqual(message(TournamentActionFields.teamChanges(["team": 1, "colour": "pink"])),
                       "\"colour\" must be one of blue, red, white, black, yellow, green, orange, purple.")
        XCTAssertEqual(message(TournamentActionFields.teamChanges(["team": 1, "players": [4, 4]])),
                       "Each player can be on the team only once.")
        XCTAssertEqual(message(TournamentActionFields.teamChanges(["team": 1, "players": .array((1...31).map { .int($0) })])),
                       "\"players\" is a list of at most 30 player ids.")
        XCTAssertEqual(message(TournamentActionFields.teamChanges(["team": 1, "name": "Red\u{200B}Star"])),
                       "The team's name cannot contain invisible formatting characters.")
    }

    func testCorrection() throws {
        let (match, score, penalties) = try TournamentActionFields.correction(
            ["match": 13, "score": ["home": 1, "away": 1], "penalties": ["home": 4, "away": 5]]).get()
        XCTAssertEqual(match, 13)
        XCTAssertEqual(score, HomeAway(home: 1, away: 1))
        XCTAssertEqual(penalties, HomeAway(home: 4, away: 5))
        XCTAssertNil(try TournamentActionFields.correction(["match": 2, "score": ["home": 0, "away": 3]]).get().2)
        XCTAssertEqual(message(TournamentActionFields.correction(["match": 2, "score": ["home": 100, "away": 3]])),
                       "\"score\" is {\"home\", \"away\"}, each a whole number from 0 to 99.")
        XCTAssertEqual(message(TournamentActionFields.correction(["match": 2, "score": ["A": 1, "B": 3]])),
                       "\"score\" is {\"home\", \"away\"}, each a whole number from 0 to 99.")
        XCTAssertEqual(message(TournamentActionFields.correction(["score": ["home": 1, "away": 3]])),
                       "Say which match (\"match\", a number).")
        XCTAssertEqual(message(TournamentActionFields.correction(["match": 2, "score": ["home": 1, "away": 1],
                                                                 "penalties": ["home": -1, "away": 3]])),
                       "\"penalties\" is {\"home\", \"away\"}, each a whole number from 0 to 99.")
    }

    func testEndGatherPenaltiesAreTeamAAndB() throws {
        XCTAssertEqual(try TournamentActionFields.endGatherPenalties(["kind": "endGather", "penalties": ["A": 5, "B": 4]]).get(),
                       HomeAway(home: 5, away: 4))
        XCTAssertNil(try TournamentActionFields.endGatherPenalties(["kind": "endGather"]).get())
        XCTAssertEqual(message(TournamentActionFields.endGatherPenalties(["penalties": ["A": 5]])),
                       "\"penalties\" is {\"A\", \"B\"}, each a whole number from 0 to 99.")
        XCTAssertEqual(try TournamentActionFields.match(["match": 7]).get(), 7)
    }
}
