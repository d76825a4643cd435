import GatherModel
import GatherPresenters
import XCTest

/// The largest tournament the contract allows is one group of 64 teams (2,016 group matches): the
/// contract caps the teams at 64 and nothing else, and that day travels whole in every gather.v1
/// state and every stream snapshot. Its size is pinned here, so it stays well inside one stream
/// message (`StreamMessageLimit`, 1 MiB) with room for the rest of the state.
final class TournamentSizeTests: XCTestCase {
    /// `StreamMessageLimit.bytes` (GatherStream): the stream's largest message.
    static let streamMessageBytes = 1 << 20

    func testSixtyFourTeamsOfThirtyCharactersInOneGroupStayUnderHalfAStreamMessage() throws {
        // 30 characters, 52 bytes each: the longest names the contract's rules let through here.
        let names = (1...64).map { String(format: "Team %02d ", $0) + String(repeating: "ж", count: 22) }
        let action: JSONValue = .object([
            "name": .string(String(repeating: "Cup ", count: 15)), "teams": .array(names.map(JSONValue.string)),
            "groups": .int(1), "advance": .int(32), "thirdPlace": .bool(true), "pitches": .array((1...16).map(JSONValue.int)),
            "startsAt": .int(1_790_000_000_000),
        ])
        let draft = try TournamentSetup.draft(from: action, pitches: Array(1...16), now: 0).get()
        let tournament = Tournament(id: "00000000-0000-0000-0000-000000000000", draft: draft)
        XCTAssertEqual(tournament.matches.filter { $0.stage == .group }.count, 2_016)
        let bytes = TournamentPresenter.document(tournament).count
        XCTAssertLessThan(bytes, Self.streamMessageBytes / 2, "the largest day is \(bytes) bytes")
        XCTAssertGreaterThan(bytes, 400_000, "2,080 matches are not free: \(bytes) bytes")
    }

    func testSixtyFiveTeamsAreRefusedWithTheRuleInASentence() {
        let action: JSONValue = .object([
            "name": .string("Cup"), "teams": .array((1...65).map { .string("Team \($0)") }), "groups": .int(1), "advance": .int(2),
        ])
        guard case .failure(let rejection) = TournamentSetup.draft(from: action, pitches: [1], now: 0) else {
            return XCTFail("65 teams were accepted")
        }
        XCTAssertEqual(rejection.code, .invalid)
        XCTAssertEqual(rejection.reason, Sentence(.teamCount, ["lowest": .number(2), "highest": .number(64)]))
        XCTAssertTrue(rejection.message.contains("List 2 to 64 teams"), rejection.message)
    }
}
