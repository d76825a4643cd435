import GatherModel
import XCTest

/// Tables with both tie-break rules (docs/PROTOCOL.md "Tables"), on crafted groups where the
/// rules disagree.
final class TournamentTableTests: XCTestCase {
    private func settings(_ tieBreak: TieBreak, win: Int = 3, draw: Int = 1) -> TournamentSettings {
        TournamentSettings(startsAt: 0, pitches: [1], pointsForWin: win, pointsForDraw: draw, tieBreak: tieBreak, advance: 1)
    }

    private var nextID = 0
    private func played(_ home: Int, _ away: Int, _ homeGoals: Int, _ awayGoals: Int) -> TournamentMatch {
        nextID += 1
        return TournamentMatch(id: nextID, stage: .group, group: "A", home: home, away: away, pitch: 1, slot: 0, plannedAt: 0,
                               status: .finished, score: HomeAway(home: homeGoals, away: awayGoals))
    }

    private func order(_ matches: [TournamentMatch], teams: [Int] = [1, 2, 3, 4], _ tieBreak: TieBreak) -> [Int] {
        TournamentTable.rank(teams: teams, matches: matches, settings: settings(tieBreak)).map(\.team)
    }

    func testBeforeAnyMatchTheTableIsCompleteInSeedingOrder() {
        let scheduled = TournamentMatch(id: 1, stage: .group, group: "A", home: 1, away: 2, pitch: 1, slot: 0, plannedAt: 0)
        let rows = TournamentTable.rank(teams: [3, 1, 4, 2], matches: [scheduled], settings: settings(.goalDifference))
        XCTAssertEqual(rows, [TableRow(team: 3), TableRow(team: 1), TableRow(team: 4), TableRow(team: 2)])
    }

    func testEveryColumnCountsAndThePointsAreTheOrganisersOwn() {
        let rows = TournamentTable.rank(teams: [1, 2, 3], matches: [played(1, 2, 3, 1), played(1, 3, 2, 2), played(2, 3, 0, 1)],
                                        settings: settings(.goalDifference, win: 2, draw: 1))
        XCTAssertEqual(rows, [
            TableRow(team: 1, played: 2, won: 1, drawn: 1, lost: 0, goalsFor: 5, goalsAgainst: 3, points: 3),
            TableRow(team: 3, played: 2, won: 1, drawn: 1, lost: 0, goalsFor: 3, goalsAgainst: 2, points: 3),
            TableRow(team: 2, played: 2, won: 0, drawn: 0, lost: 2, goalsFor: 1, goalsAgainst: 4, points: 0),
        ])
        XCTAssertEqual(rows[0].goalDifference, 2)
    }

    /// Teams 1 and 2 level on 4 points; 1 has the better goal difference (+4 against 0), but 2 beat 1.
    private var twoWayTie: [TournamentMatch] {
        [played(1, 2, 0, 1), played(1, 3, 5, 0), played(1, 4, 1, 1), played(2, 3, 1, 1), played(2, 4, 0, 1), played(3, 4, 0, 0)]
    }

    func testTwoTeamsLevelOnPointsGoalDifferenceFirstPutsTheBetterDifferenceAhead() {
        XCTAssertEqual(order(twoWayTie, .goalDifference), [4, 1, 2, 3])
    }

    func testTwoTeamsLevelOnPointsHeadToHeadPutsTheWinnerOfTheirMatchAhead() {
        XCTAssertEqual(order(twoWayTie, .headToHead), [4, 2, 1, 3])
    }

    /// 1, 2 and 3 beat each other in a circle (1–0, 3–0, 1–0 for 3 over 1) and all beat 4, by
    /// 5–0, 1–0 and 4–0: level on 6 points; overall differences +5, +3, +2; among the three, 2 has
    /// +2, 1 has 0 and 3 −2.
    private var threeWayTie: [TournamentMatch] {
        [played(1, 2, 1, 0), played(2, 3, 3, 0), played(1, 3, 0, 1), played(1, 4, 5, 0), played(2, 4, 1, 0), played(3, 4, 4, 0)]
    }

    func testThreeTeamsLevelOnPointsGoalDifferenceFollowsTheWholeGroup() {
        XCTAssertEqual(order(threeWayTie, .goalDifference), [1, 2, 3, 4])
    }

    func testThreeTeamsLevelOnPointsHeadToHeadFollowsTheMiniTableOfTheThree() {
        XCTAssertEqual(order(threeWayTie, .headToHead), [2, 1, 3, 4])
    }

    /// 2 beat 1, 1 beat 3, 3 beat 2: all three on 3 points; 1 and 2 are level on difference (0) and
    /// goals for (2), and the matches among ALL three teams level on points leave them level too,
    /// so seeding decides — not the one match between 1 and 2 alone, which 2 won.
    func testTheMatchesBetweenTheTeamsLevelOnPointsAreTakenAllTogetherNotPairByPair() {
        let matches = [played(1, 2, 1, 2), played(1, 3, 1, 0), played(2, 3, 0, 1)]
        XCTAssertEqual(order(matches, teams: [1, 2, 3], .goalDifference), [1, 2, 3])
        XCTAssertEqual(order(matches, teams: [1, 2, 3], .headToHead), [1, 2, 3])
    }

    /// Level on everything, overall and among themselves: seeding (the order in `teams`) decides.
    func testLevelOnEverythingTheEarlierSeedIsAhead() {
        let matches = [played(1, 2, 1, 1), played(3, 4, 0, 0), played(1, 3, 0, 0), played(2, 4, 1, 1)]
        // All on 2 points and level on difference; 2 scored 2, 1 and 4 one each, 3 none: 4 is seeded before 1.
        XCTAssertEqual(order(matches, teams: [4, 3, 2, 1], .goalDifference), [2, 4, 1, 3])
        XCTAssertEqual(order(matches, teams: [4, 3, 2, 1], .headToHead), [2, 4, 1, 3])
    }

    /// Goals for breaks a tie on points and difference under both rules when the head-to-head is level.
    func testGoalsForAfterDifference() {
        // 1 and 2 draw 2–2; 1 beats 3 3–1, 2 beats 3 2–0: both 4 points, +2; 1 scored 5, 2 scored 4.
        let matches = [played(1, 2, 2, 2), played(1, 3, 3, 1), played(2, 3, 2, 0)]
        XCTAssertEqual(order(matches, teams: [2, 1, 3], .goalDifference), [1, 2, 3])
        XCTAssertEqual(order(matches, teams: [2, 1, 3], .headToHead), [1, 2, 3])
    }

    /// Matches not finished, and matches of other groups, do not count.
    func testOnlyFinishedMatchesBetweenTheGroupsTeamsCount() {
        var live = played(1, 2, 0, 3)
        live.status = .live
        let other = played(5, 6, 9, 0)
        XCTAssertEqual(TournamentTable.rank(teams: [1, 2], matches: [live, other], settings: settings(.goalDifference)),
                       [TableRow(team: 1), TableRow(team: 2)])
    }
}
