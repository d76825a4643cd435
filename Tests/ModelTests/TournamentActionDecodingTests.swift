import GatherModel
import XCTest

/// The tournament actions as the wire gives them, and their arbitration subjects as the journal
/// stores them (a subject that did not read back would make an old change invisible to the judge).
final class TournamentActionDecodingTests: XCTestCase {
    func testTheTournamentSubjectsReadBackFromTheJournalsSpelling() {
        for subject in [Subject.tournamentMatch(7), .tournamentTeam(12), .tournamentSettings] {
            XCTAssertEqual(Subject(description: subject.description), subject, subject.description)
        }
        XCTAssertEqual(Subject.tournamentSettings.description, "tournament")
        XCTAssertEqual(Subject.tournamentMatch(7).description, "tournamentMatch:7")
        XCTAssertNil(Subject(description: "tournamentMatch:x"))
    }

    func testEachActionDecodesToItsCaseAndABadFieldIsInvalid() {
        XCTAssertEqual(try ActionDecoder.decode(["kind": "startMatch", "match": 4]).get(), .tournament(.startMatch(4)))
        XCTAssertEqual(try ActionDecoder.decode(["kind": "cancelTournament"]).get(), .tournament(.cancel))
        XCTAssertEqual(try ActionDecoder.decode(["kind": "correctResult", "match": 2, "score": ["home": 1, "away": 1],
                                                 "penalties": ["home": 5, "away": 4]]).get(),
                       .tournament(.correctResult(2, score: HomeAway(home: 1, away: 1), penalties: HomeAway(home: 5, away: 4))))
        XCTAssertEqual(try ActionDecoder.decode(["kind": "setTournamentTeam", "team": 3, "name": "Reds"]).get(),
                       .tournament(.setTeam(3, TournamentTeamChanges(name: "Reds"))))
        for bad: JSONValue in [["kind": "startMatch"], ["kind": "startMatch", "match": "one"],
                               ["kind": "correctResult", "match": 1, "score": ["A": 1, "B": 0]],
                               ["kind": "setTournamentTeam", "team": 1]] {
            guard case .failure(let rejection) = ActionDecoder.decode(bad) else { return XCTFail("\(bad) was accepted") }
            XCTAssertEqual(rejection.code, .invalid, "\(bad)")
        }
    }

    func testATournamentActionDrawsAnIdOnlyWhenItMakesSomething() {
        XCTAssertTrue(Action.tournament(.create(["name": "Cup"])).createsGather)
        XCTAssertTrue(Action.tournament(.startMatch(1)).createsGather)
        XCTAssertFalse(Action.tournament(.cancel).createsGather)
        XCTAssertFalse(Action.tournament(.correctResult(1, score: HomeAway(home: 1, away: 0), penalties: nil)).createsGather)
    }
}
