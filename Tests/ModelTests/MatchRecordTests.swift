import Foundation
import GatherModel
import GatherModelTestSupport
import XCTest

/// What one finished gather adds to its players' records (docs/PROTOCOL.md "Players' records").
final class MatchRecordTests: XCTestCase {
    func testAWonGatherCreditsResultsGoalsAndAssistsToTheTwoTeams() {
        // Team A (1, 2) 1200 and 1400, mean 1300; Team B (3, 4) both 1300: E = 0.5 for both.
        // A wins 2–1: A +16 each, B −16 each.
        let ratings = [1: 1200, 2: 1400, 3: 1300, 4: 1300]
        let goals = [
            GoalCredit(team: .A, playerId: 1, assistId: 2),
            GoalCredit(team: .B, playerId: 3, assistId: nil),
            GoalCredit(team: .A, playerId: 1, assistId: nil),
        ]
        let result = MatchRecord.result(teamA: [1, 2], teamB: [3, 4], winner: .A, ratings: ratings, goals: goals)
        XCTAssertEqual(result, [
            1: PlayerMatchResult(ratingDelta: 16, stats: PlayerStats(games: 1, wins: 1, goals: 2)),
            2: PlayerMatchResult(ratingDelta: 16, stats: PlayerStats(games: 1, wins: 1, assists: 1)),
            3: PlayerMatchResult(ratingDelta: -16, stats: PlayerStats(games: 1, losses: 1, goals: 1)),
            4: PlayerMatchResult(ratingDelta: -16, stats: PlayerStats(games: 1, losses: 1)),
        ])
    }

    func testTheWeakerTeamWinningGainsMoreThanTheFavouritesWouldHave() {
        // Team B (1200) beats Team A (1400): B gets +24 each, A −24 each (see EloTests).
        let ratings = [1: 1400, 2: 1400, 3: 1200, 4: 1200]
        let result = MatchRecord.result(teamA: [1, 2], teamB: [3, 4], winner: .B, ratings: ratings, goals: [])
        XCTAssertEqual(result.mapValues(\.ratingDelta), [1: -24, 2: -24, 3: 24, 4: 24])
        XCTAssertEqual(result[3]?.stats, PlayerStats(games: 1, wins: 1))
        XCTAssertEqual(result[1]?.stats, PlayerStats(games: 1, losses: 1))
    }

    func testADrawCountsAsADrawForEveryone() {
        // 1200 against 1400 drawn: the weaker side +8, the stronger −8.
        let result = MatchRecord.result(teamA: [1], teamB: [2], winner: .draw, ratings: [1: 1200, 2: 1400],
                                        goals: [GoalCredit(team: .A, playerId: 1), GoalCredit(team: .B, playerId: 2)])
        XCTAssertEqual(result, [
            1: PlayerMatchResult(ratingDelta: 8, stats: PlayerStats(games: 1, draws: 1, goals: 1)),
            2: PlayerMatchResult(ratingDelta: -8, stats: PlayerStats(games: 1, draws: 1, goals: 1)),
        ])
    }

    func testWithAnEmptyTeamNoRatingMovesButTheGameStillCounts() {
        let result = MatchRecord.result(teamA: [1, 2], teamB: [], winner: .A, ratings: [1: 1000, 2: 1400],
                                        goals: [GoalCredit(team: .A, playerId: 2, assistId: 1)])
        XCTAssertEqual(result, [
            1: PlayerMatchResult(ratingDelta: 0, stats: PlayerStats(games: 1, wins: 1, assists: 1)),
            2: PlayerMatchResult(ratingDelta: 0, stats: PlayerStats(games: 1, wins: 1, goals: 1)),
        ])
    }

    func testGoalsWithoutANamedScorerCreditNobody() {
        let goals = [GoalCredit(team: .A), GoalCredit(team: .A, playerId: nil, assistId: 1)]
        let result = MatchRecord.result(teamA: [1], teamB: [2], winner: .A, ratings: [1: 1200, 2: 1200], goals: goals)
        XCTAssertEqual(result[1]?.stats, PlayerStats(games: 1, wins: 1, assists: 1))
        XCTAssertEqual(result[2]?.stats, PlayerStats(games: 1, losses: 1))
    }

    func testTheBenchAndPlayersNoLongerOnATeamGetNothing() {
        // Player 9 scored, then went to the bench: the gather does not count for them at all.
        let goals = [GoalCredit(team: .A, playerId: 9, assistId: 1)]
        let result = MatchRecord.result(teamA: [1], teamB: [2], winner: .A, ratings: [1: 1200, 2: 1200, 9: 1200],
                                        goals: goals)
        XCTAssertEqual(Set(result.keys), [1, 2])
        XCTAssertEqual(result[1]?.stats.assists, 1)
    }

    func testAPlayerWhoChangedTeamKeepsWhatTheyScoredForTheOldOne() {
        // Player 1 scored for B, then was moved to A, which won.
        let result = MatchRecord.result(teamA: [1], teamB: [2], winner: .A, ratings: [1: 1200, 2: 1200],
                                        goals: [GoalCredit(team: .B, playerId: 1)])
        XCTAssertEqual(result[1]?.stats, PlayerStats(games: 1, wins: 1, goals: 1))
    }

    func testAPlayerWithoutAKnownRatingCountsAtTheStartRating() {
        // Player 2 unknown counts as 1200: equal teams, so A's win is +16 / −16.
        let result = MatchRecord.result(teamA: [1], teamB: [2], winner: .A, ratings: [1: 1200], goals: [])
        XCTAssertEqual(result.mapValues(\.ratingDelta), [1: 16, 2: -16])
    }

    func testStatsAddUpOverGathers() {
        var record = PlayerStats.zero
        record += PlayerStats(games: 1, wins: 1, goals: 2)
        record += PlayerStats(games: 1, draws: 1, assists: 1)
        record = record + PlayerStats(games: 1, losses: 1, goals: 1)
        XCTAssertEqual(record, PlayerStats(games: 3, wins: 1, draws: 1, losses: 1, goals: 3, assists: 1))
    }

    func testStatsHaveTheProtocolsFieldNames() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(PlayerStats(games: 3, wins: 1, draws: 1, losses: 1, goals: 4,
                                                                   assists: 2)), as: UTF8.self)
        XCTAssertEqual(json, #"{"assists":2,"draws":1,"games":3,"goals":4,"losses":1,"wins":1}"#)
    }
}
