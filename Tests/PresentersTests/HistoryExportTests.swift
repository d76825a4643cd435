import GatherModel
import GatherModelTestSupport
import GatherPresenters
import XCTest

final class HistoryExportTests: XCTestCase {
    private let header = "id,ended_at,team_a,team_a_players,team_b,team_b_players,score_a,score_b,winner,pitch,goals,penalties_a,penalties_b,corrected_at,corrected_by\r\n"

    private func entry(id: String = "g1", endedAt: Int64 = 1_763_800_000_000, teamA: String = "Team A",
                       playersA: [String] = ["Ann"], teamB: String = "Team B", playersB: [String] = ["Bob"],
                       score: Score = Score(A: 2, B: 1)) -> HistoryEntry {
        func lineup(_ name: String, _ players: [String], from firstID: Int) -> HistoryEntry.Lineup {
            HistoryEntry.Lineup(name: name, players: players.enumerated().map {
                HistoryEntry.PlayerName(id: firstID + $0.offset, name: $0.element)
            })
        }
        return HistoryEntry(id: id, endedAt: endedAt, teamA: lineup(teamA, playersA, from: 1),
                            teamB: lineup(teamB, playersB, from: 100), score: score)
    }

    func testAnEmptyHistoryIsJustTheHeader() {
        XCTAssertEqual(HistoryExport.csv([]), header)
    }

    func testPlainRowsKeepTheirOrderWithUTCDatesAndPlayerLists() {
        let csv = HistoryExport.csv([
            entry(id: "g2", endedAt: 1_763_800_000_000, playersA: ["Ann", "Cat"], playersB: ["Bob", "Dan", "Eve"],
                  score: Score(A: 3, B: 3)),
            entry(id: "g1", endedAt: 951_782_400_999, score: Score(A: 0, B: 1)),
        ])
        XCTAssertEqual(csv, header
            + "g2,2025-11-22T08:26:40Z,Team A,Ann; Cat,Team B,Bob; Dan; Eve,3,3,draw,Pitch 1,,,,,\r\n"
            + "g1,2000-02-29T00:00:00Z,Team A,Ann,Team B,Bob,0,1,B,Pitch 1,,,,,\r\n")
    }

    func testFieldsWithCommasQuotesAndLineBreaksAreQuotedWithQuotesDoubled() {
        let csv = HistoryExport.csv([
            entry(teamA: "Reds, United", playersA: ["Ann \"The Rocket\" Smith"], teamB: "Line\nBreak",
                  playersB: ["Carriage\rReturn", "Win\r\nDows"]),
        ])
        XCTAssertEqual(csv, header
            + "g1,2025-11-22T08:26:40Z,\"Reds, United\",\"Ann \"\"The Rocket\"\" Smith\",\"Line\nBreak\","
            + "\"Carriage\rReturn; Win\r\nDows\",2,1,A,Pitch 1,,,,,\r\n")
    }

    func testWouldBeFormulasAreNeutralisedAsText() {
        let csv = HistoryExport.csv([
            entry(teamA: "=HYPERLINK(\"http://x\",\"y\")", playersA: ["+1 Ann", "Bob"], teamB: "-2+3",
                  playersB: ["@SUM(A1)"]),
            entry(id: "g2", teamA: "\tTabbed", playersA: ["Safe=Name"], teamB: "Team B", playersB: ["Bo-b"]),
        ])
        XCTAssertEqual(csv, header
            + "g1,2025-11-22T08:26:40Z,\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",'+1 Ann; Bob,'-2+3,'@SUM(A1),2,1,A,Pitch 1,,,,,\r\n"
            + "g2,2025-11-22T08:26:40Z,'\tTabbed,Safe=Name,Team B,Bo-b,2,1,A,Pitch 1,,,,,\r\n")
    }

    func testDatesAcrossLeapDaysAndTheEpochAreUTC() {
        func date(_ ms: Int64) -> Substring {
            HistoryExport.csv([entry(endedAt: ms)]).split(separator: "\r\n")[1].split(separator: ",")[1]
        }
        XCTAssertEqual(date(0), "1970-01-01T00:00:00Z")
        XCTAssertEqual(date(-1), "1969-12-31T23:59:59Z")
        XCTAssertEqual(date(1_709_208_000_123), "2024-02-29T12:00:00Z")
        XCTAssertEqual(date(253_402_300_799_999), "9999-12-31T23:59:59Z")
    }

    func testAShootOutAndACorrectionHaveTheirColumnsAndTheShootOutsWinner() {
        var decided = entry(id: "final", score: Score(A: 2, B: 2))
        decided.settle(score: Score(A: 2, B: 2), penalties: Score(A: 3, B: 4))
        decided.correctedAt = 1_763_800_060_000
        decided.correctedBy = "=ann"
        XCTAssertEqual(HistoryExport.csv([decided]), header
            + "final,2025-11-22T08:26:40Z,Team A,Ann,Team B,Bob,2,2,B,Pitch 1,,3,4,2025-11-22T08:27:40Z,'=ann\r\n")
    }

    func testGoalsListTheirTeamTimeScorerAndAssist() {
        var goalful = entry(playersA: ["Ann", "Cat"], playersB: ["Bob"], score: Score(A: 2, B: 1))
        goalful.goals = [.init(team: .A, playerId: 1, assistId: 2, matchMs: 754_000),
                         .init(team: .B, playerId: nil, assistId: nil, matchMs: 61_000),
                         .init(team: .A, playerId: 77, assistId: nil, matchMs: 599_001)]
        let row = HistoryExport.csv([goalful], roster: [77: "Zed (moved to the bench)"]).split(separator: "\r\n")[1]
        XCTAssertTrue(row.hasSuffix(",Pitch 1,A 12:34 Ann (Cat); B 01:01 ?; A 10:00 Zed (moved to the bench),,,,"), String(row))
    }
}
