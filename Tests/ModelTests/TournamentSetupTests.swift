import GatherModel
import XCTest

/// `createTournament`'s fields: defaults, and every rule broken named in a sentence of its own.
final class TournamentSetupTests: XCTestCase {
    static let now: Int64 = 1_790_000_000_000

    private func draft(_ members: [String: JSONValue], pitches: [Int] = [1, 2, 3]) -> Result<TournamentSetup.Draft, Rejection> {
        TournamentSetup.draft(from: .object(members), pitches: pitches, now: Self.now)
    }

    private static let eight: JSONValue = .array(["Reds", "Blues", "Greens", "Whites", "Blacks", "Golds", "Pinks", "Greys"])

    private func problems(_ members: [String: JSONValue], pitches: [Int] = [1, 2, 3]) -> String {
        guard case .failure(let rejection) = draft(members, pitches: pitches) else {
            XCTFail("accepted \(members)")
            return ""
        }
        XCTAssertEqual(rejection.code, .invalid)
        return rejection.message
    }

    func testTheDefaults() throws {
        let result = try draft(["name": " Riverside Cup ", "teams": Self.eight, "groups": 2, "advance": 2]).get()
        XCTAssertEqual(result.name, "Riverside Cup")
        XCTAssertEqual(result.teamNames.count, 8)
        XCTAssertEqual(result.groupCount, 2)
        XCTAssertEqual(result.settings, TournamentSettings(matchMinutes: 12, breakMinutes: 3, startsAt: Self.now, pitches: [1, 2, 3],
                                                           pointsForWin: 3, pointsForDraw: 1, tieBreak: .goalDifference,
                                                           advance: 2, thirdPlace: false))
        let tournament = Tournament(id: "t1", draft: result)
        XCTAssertEqual(tournament.teams.map(\.id), Array(1...8))
        XCTAssertEqual(tournament.matches.first?.plannedAt, Self.now)
    }

    func testEveryFieldGiven() throws {
        let result = try draft(["name": "Cup", "teams": Self.eight, "groups": 1, "advance": 4, "matchMinutes": 90,
                                "breakMinutes": 0, "startsAt": 1_800_000_000_000, "pitches": [3, 1], "pointsForWin": 2,
                                "pointsForDraw": 0, "tieBreak": "headToHead", "thirdPlace": true]).get()
        XCTAssertEqual(result.settings, TournamentSettings(matchMinutes: 90, breakMinutes: 0, startsAt: 1_800_000_000_000,
                                                           pitches: [3, 1], pointsForWin: 2, pointsForDraw: 0,
                                                           tieBreak: .headToHead, advance: 4, thirdPlace: true))
    }

    func testEveryRuleBrokenIsNamedInOneRejection() {
        let message = problems(["name": "", "teams": ["Reds", "reds"], "groups": 3, "advance": 0, "matchMinutes": 91,
                                "breakMinutes": -1, "startsAt": "soon", "pointsForWin": 101, "pointsForDraw": -1,
                                "tieBreak": "coin", "thirdPlace": "yes", "pitches": [1, 9]])
        for sentence in [
            "The tournament's name must be 1–60 characters long.",
            "Teams 1 and 2 have the same name (reds).",
            "Choose 1, 2, 4, 8 or 16 groups (\"groups\").",
            "Say how many teams of each group go through (\"advance\", at least 1).",
            "A match lasts 1 to 90 minutes (\"matchMinutes\").",
            "The break between matches is 0 to 60 minutes (\"breakMinutes\").",
            "The start is a time in epoch milliseconds (\"startsAt\").",
            "Points for a win are 0 to 100 (\"pointsForWin\").",
        ] {
            XCTAssertTrue(message.contains(sentence), "\(sentence) in \(message)")
        }
        XCTAssertTrue(message.hasSuffix("(and 4 more)"), message)
        let rest = problems(["name": "Cup", "teams": Self.eight, "groups": 2, "advance": 2, "pointsForDraw": -1,
                             "tieBreak": "coin", "thirdPlace": "yes", "pitches": [1, 9]])
        XCTAssertEqual(rest, "Points for a draw are 0 to 100 (\"pointsForDraw\"). The tie-break is \"goalDifference\" or "
            + "\"headToHead\". \"thirdPlace\" is true or false. There is no pitch 9.")
    }

    func testTeamNamesAreVisibleUniqueAfterNormalisationAndCounted() {
        XCTAssertTrue(problems(["name": "Cup", "teams": ["ＲＥＤＳ", "Blues", "reds", "Greens"], "groups": 1, "advance": 2])
            .contains("Teams 1 and 3 have the same name (reds)."))
        XCTAssertTrue(problems(["name": "Cup", "teams": ["Reds", "Blu\u{034F}es", "Greens", "Whites"], "groups": 1, "advance": 2])
            .contains("Team 2's name cannot contain invisible characters"))
        XCTAssertTrue(problems(["name": "Cup", "teams": ["Reds", "\u{3164}", "Greens", "Whites"], "groups": 1, "advance": 2])
            .contains("Team 2's name cannot contain invisible characters"))
        XCTAssertTrue(problems(["name": "Cup", "teams": ["Reds", .string(String(repeating: "x", count: 31)), "Greens", "Whites"],
                                "groups": 1, "advance": 2])
            .contains("Team 2's name must be 1–30 characters long."))
        XCTAssertTrue(problems(["name": "Cup", "teams": ["Reds"], "groups": 1, "advance": 1])
            .contains("List 2 to 64 teams"))
        XCTAssertTrue(problems(["name": "Cup", "teams": .array((1...65).map { .string("T\($0)") }), "groups": 1, "advance": 2])
            .contains("List 2 to 64 teams"))
        XCTAssertTrue(problems(["name": "Cup", "teams": ["Reds", 7, "Greens", "Whites"], "groups": 1, "advance": 2])
            .contains("Team 2's name must be text"))
    }

    func testGroupsAdvanceAndTheBracket() {
        XCTAssertTrue(problems(["name": "Cup", "teams": Self.eight, "groups": 8, "advance": 1])
            .contains("8 groups need at least 16 teams (two in each)."))
        XCTAssertTrue(problems(["name": "Cup", "teams": Self.eight, "groups": 2, "advance": 4])
            .contains("At most 3 teams per group can go through: the smallest group has 4."))
        XCTAssertTrue(problems(["name": "Cup", "teams": Self.eight, "groups": 1, "advance": 3])
            .contains("Groups × teams going through must be 2, 4, 8, 16 or 32 (now 1 × 3 = 3)."))
        XCTAssertTrue(problems(["name": "Cup", "teams": Self.eight, "groups": 2, "advance": 1, "thirdPlace": true])
            .contains("A third-place match needs at least 4 teams going through."))
        // Nine teams in two groups: the smallest has four.
        XCTAssertNoThrow(try draft(["name": "Cup", "teams": .array((1...9).map { .string("T\($0)") }), "groups": 2, "advance": 2]).get())
        // Two teams: no valid split exists (one group of two lets one through, and 1 × 1 is no bracket).
        XCTAssertTrue(problems(["name": "Cup", "teams": ["Reds", "Blues"], "groups": 1, "advance": 1])
            .contains("(now 1 × 1 = 1)"))
    }

    func testPitches() {
        XCTAssertTrue(problems(["name": "Cup", "teams": Self.eight, "groups": 2, "advance": 2, "pitches": [1, 1]])
            .contains("Pitch 1 is listed twice."))
        XCTAssertTrue(problems(["name": "Cup", "teams": Self.eight, "groups": 2, "advance": 2, "pitches": []])
            .contains("List the pitches to play on"))
        XCTAssertTrue(problems(["name": "Cup", "teams": Self.eight, "groups": 2, "advance": 2, "pitches": ["1"]])
            .contains("Pitches are given by their numbers."))
    }
}
