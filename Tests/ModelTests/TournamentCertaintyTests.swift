import GatherModel
import XCTest

/// "Through" only when certain (docs/PROTOCOL.md, release 5): a row is `qualified` only once no
/// results still to come can take the place away, `eliminated` likewise.
final class TournamentCertaintyTests: XCTestCase {
    private static let scores = [(1, 0), (0, 0), (0, 2), (3, 0)]

    func testNothingIsMarkedBeforeAnyMatch() {
        let cup = TournamentTransitionsTests.eightTeams()
        for row in cup.groups.flatMap(\.table) {
            XCTAssertFalse(row.qualified, "team \(row.team)")
            XCTAssertFalse(row.eliminated, "team \(row.team)")
        }
    }

    /// A group of four, every order of its six matches' results over four scores (4,096 days), two
    /// tie-breaks, two ways of counting points, one to three through: after every match, a team
    /// marked `qualified` is in the first places in every way the group can still end, one marked
    /// `eliminated` in none; at the end the marks are the table's; and the marks do come before the
    /// end (a team that has won everything after four of six matches is through).
    func testEveryMarkHoldsInEveryWayTheGroupCanStillEnd() {
        let teams = [1, 2, 3, 4]
        let pairings = TournamentSchedule.roundRobin(teams).flatMap { $0 }
        for tieBreak in TieBreak.allCases {
            for (win, draw) in [(3, 1), (2, 1)] {
                for advance in 1...3 {
                    let settings = TournamentSettings(startsAt: 0, pitches: [1], pointsForWin: win, pointsForDraw: draw,
                                                      tieBreak: tieBreak, advance: advance)
                    var earlyMarks = 0
                    // For each prefix of results (as score indexes), whether each team always / ever ends through.
                    var always: [[Int]: [Int: Bool]] = [:]
                    var ever: [[Int]: [Int: Bool]] = [:]
                    var marks: [[Int]: [TableRow]] = [:]
                    let count = Self.scores.count
                    let total = Int(pow(Double(count), Double(pairings.count)))
                    for code in 0..<total {
                        var indexes: [Int] = []
                        var rest = code
                        for _ in pairings { indexes.append(rest % count); rest /= count }
                        let final = table(pairings, indexes, played: pairings.count, settings: settings)
                        let through = Set(final.prefix(advance).map(\.team))
                        for played in 0...pairings.count {
                            let prefix = Array(indexes.prefix(played))
                            if marks[prefix] == nil {
                                marks[prefix] = table(pairings, indexes, played: played, settings: settings)
                            }
                            for team in teams {
                                always[prefix, default: [:]][team] = (always[prefix]?[team] ?? true) && through.contains(team)
                                ever[prefix, default: [:]][team] = (ever[prefix]?[team] ?? false) || through.contains(team)
                            }
                        }
                        let end = marks[indexes]!
                        XCTAssertEqual(end.map(\.qualified), end.indices.map { $0 < advance })
                        XCTAssertEqual(end.map(\.eliminated), end.indices.map { $0 >= advance })
                    }
                    for (prefix, rows) in marks {
                        for row in rows {
                            if row.qualified {
                                XCTAssertTrue(always[prefix]![row.team]!, "\(tieBreak) \(win)/\(draw) \(advance) through: \(prefix) team \(row.team) marked too early")
                                if prefix.count < pairings.count { earlyMarks += 1 }
                            }
                            if row.eliminated {
                                XCTAssertFalse(ever[prefix]![row.team]!, "\(tieBreak) \(win)/\(draw) \(advance) through: \(prefix) team \(row.team) out too early")
                                if prefix.count < pairings.count { earlyMarks += 1 }
                            }
                        }
                        XCTAssertFalse(prefix.isEmpty && rows.contains { $0.qualified || $0.eliminated }, "marked before any match")
                    }
                    XCTAssertGreaterThan(earlyMarks, 0, "\(tieBreak) \(win)/\(draw) \(advance): marks only at the end")
                }
            }
        }
    }

    /// The group's table after the first `played` results, marked as `settle` marks it.
    private func table(_ pairings: [TournamentSchedule.Pairing], _ indexes: [Int], played: Int,
                       settings: TournamentSettings) -> [TableRow] {
        var remaining: [Int: Int] = [:]
        let matches = pairings.enumerated().map { index, pairing -> TournamentMatch in
            let finished = index < played
            if !finished {
                remaining[pairing.home, default: 0] += 1
                remaining[pairing.away, default: 0] += 1
            }
            let score = Self.scores[indexes[index]]
            return TournamentMatch(id: index + 1, stage: .group, group: "A", home: pairing.home, away: pairing.away, pitch: 1,
                                   slot: index, plannedAt: 0, status: finished ? .finished : .scheduled,
                                   score: finished ? HomeAway(home: score.0, away: score.1) : nil)
        }
        let ranked = TournamentTable.rank(teams: [1, 2, 3, 4], matches: matches, settings: settings)
        return TournamentTable.certainty(ranked, remaining: remaining, advance: settings.advance, settings: settings)
    }
}
