import GatherModel
import GatherPresenters
import XCTest

/// `/api/tournament.csv`: one row per match, place labels while a team is unknown, the formula guard.
final class TournamentExportTests: XCTestCase {
    private let header = "id,stage,group,pitch,planned_at,expected_at,home,away,score_home,score_away,penalties_home,"
        + "penalties_away,status\r\n"

    func testNoTournamentIsTheHeaderAlone() {
        XCTAssertEqual(TournamentExport.csv(nil, pitchNames: [:]), header)
    }

    func testOneRowPerMatchWithResultsAndPlaceLabels() throws {
        var tournament = TournamentSample.eightTeams()
        try TournamentSample.play(&tournament, 1, 2, 0)
        try tournament.startMatch(2, at: TournamentSample.start + 7 * TournamentSample.minute)
        let csv = TournamentExport.csv(tournament, pitchNames: [1: "Main pitch"])
        let rows = csv.components(separatedBy: "\r\n")
        XCTAssertEqual(rows.count, 1 + 16 + 1, "header, 16 matches, and the final CRLF")
        XCTAssertEqual(rows[0] + "\r\n", header)
        XCTAssertEqual(rows[1], "1,group,A,Main pitch,2026-09-21T14:13:20Z,2026-09-21T14:13:20Z,Reds,Pinks,2,0,,,finished")
        XCTAssertEqual(rows[2], "2,group,B,Pitch 2,2026-09-21T14:13:20Z,2026-09-21T14:20:20Z,Blues,Greys,,,,,live",
                       "a pitch no longer in the venue is named by its number; expected is the kickoff")
        XCTAssertEqual(rows[13], "13,semiFinal,,Main pitch,2026-09-21T15:43:20Z,2026-09-21T15:43:20Z,A1,B2,,,,,scheduled")
        XCTAssertEqual(rows[15], "15,thirdPlace,,Main pitch,2026-09-21T15:58:20Z,2026-09-21T15:58:20Z,L13,L14,,,,,scheduled")
        XCTAssertTrue(csv.hasSuffix("\r\n"))
    }

    func testPenaltiesHaveTheirColumns() throws {
        var tournament = TournamentSample.eightTeams()
        for match in tournament.matches where match.stage == .group { try TournamentSample.play(&tournament, match.id, 1, 0) }
        try TournamentSample.play(&tournament, 13, 1, 1, penalties: HomeAway(home: 3, away: 5))
        let row = TournamentExport.csv(tournament, pitchNames: [:]).components(separatedBy: "\r\n")[13]
        // The sample plays one match at a time, so each starts once the one before has ended
        // (a match not started by now is expected now): the semi-final kicks off 30 minutes late.
        XCTAssertEqual(row, "13,semiFinal,,Pitch 1,2026-09-21T15:43:20Z,2026-09-21T16:13:20Z,Reds,Whites,1,1,3,5,finished")
    }

    func testTeamNamesThatLookLikeFormulasAreNeutralisedAndCommasQuoted() {
        let tournament = TournamentSample.eightTeams(names: ["=SUM(A1)", "+Blues", "-Greens", "@Whites", "Smith, Jones",
                                                             "Golds \"G\"", "Pinks", "Greys"])
        let rows = TournamentExport.csv(tournament, pitchNames: [1: "=cmd|' /C calc'!A0", 2: "Back, pitch"])
            .components(separatedBy: "\r\n")
        XCTAssertEqual(rows[1], "1,group,A,'=cmd|' /C calc'!A0,2026-09-21T14:13:20Z,2026-09-21T14:13:20Z,'=SUM(A1),Pinks,,,,,scheduled")
        XCTAssertEqual(rows[2], "2,group,B,\"Back, pitch\",2026-09-21T14:13:20Z,2026-09-21T14:13:20Z,'+Blues,Greys,,,,,scheduled")
        XCTAssertTrue(rows.contains { $0.contains(",\"Smith, Jones\",") }, "a comma is quoted")
        XCTAssertTrue(rows.contains { $0.contains(",'@Whites,") })
        XCTAssertTrue(rows.contains { $0.contains(",'-Greens,") })
        XCTAssertFalse(rows.contains { $0.contains(",@Whites") || $0.contains(",-Greens") || $0.contains(",+Blues") })
        XCTAssertTrue(rows.contains { $0.contains("\"Golds \"\"G\"\"\"") }, "quotes doubled")
    }
}
