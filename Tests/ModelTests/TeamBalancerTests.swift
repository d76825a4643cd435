import GatherModel
import GatherModelTestSupport
import XCTest

/// Fair teams (docs/PROTOCOL.md "Fair teams"): sizes and goalkeepers within one, the closest rating
/// sums, and always the same teams for the same players.
final class TeamBalancerTests: XCTestCase {
    // MARK: - Against every split

    func testSmallSquadsGetExactlyTheSplitTheDefinitionNames() {
        var random = SplitMix64(seed: 0x5EED_0001)
        for squadNumber in 0..<400 {
            let players = SquadFactory.squad(count: 2 + squadNumber % 13, maxKeepers: 4, using: &random)
            let message = "squad \(squadNumber): \(players)"
            let teams = TeamBalancer.balance(players)
            assertKeepsTheRules(teams, of: players, message)
            XCTAssertEqual(teams, BruteForceBalancer.balance(players), message)
            XCTAssertEqual(TeamBalancer.balance(players.shuffled(using: &random)), teams, message)
        }
    }

    func testSquadsUpTo18GetTheSplitTheDefinitionNames() {
        var random = SplitMix64(seed: 0x5EED_0002)
        for count in 15...18 {
            let players = SquadFactory.squad(count: count, maxKeepers: 4, using: &random)
            XCTAssertEqual(TeamBalancer.balance(players), BruteForceBalancer.balance(players), "\(players)")
        }
    }

    func testTheLocalSearchKeepsTheRulesAndComesCloseOnSmallSquads() {
        var random = SplitMix64(seed: 0x5EED_0003)
        var optimal = 0
        let squads = 300
        for squadNumber in 0..<squads {
            let players = SquadFactory.squad(count: 4 + squadNumber % 11, maxKeepers: 4, using: &random)
            let message = "squad \(squadNumber): \(players)"
            let teams = TeamBalancer.balance(players, exactUpTo: 0)
            assertKeepsTheRules(teams, of: players, message)
            XCTAssertEqual(TeamBalancer.balance(players.shuffled(using: &random), exactUpTo: 0), teams, message)
            let best = BruteForceBalancer.balance(players).difference
            XCTAssertGreaterThanOrEqual(teams?.difference ?? -1, best, message)
            if teams?.difference == best { optimal += 1 }
        }
        XCTAssertGreaterThanOrEqual(optimal, squads * 95 / 100, "optimal on \(optimal) of \(squads) squads")
    }

    // MARK: - By hand

    func testFewerThanTwoPlayersCannotMakeTwoTeams() {
        XCTAssertNil(TeamBalancer.balance([]))
        XCTAssertNil(TeamBalancer.balance([BalanceCandidate(id: 1, rating: 1200)]))
    }

    func testTwoPlayersFaceEachOtherWithTheLowerIdOnTeamA() {
        let players = [BalanceCandidate(id: 5, rating: 1000), BalanceCandidate(id: 3, rating: 1400)]
        XCTAssertEqual(TeamBalancer.balance(players), BalancedTeams(teamA: [3], teamB: [5], difference: 400))
    }

    func testThreePlayersPutTheStrongestAlone() {
        // Team A holds 1: {1} 1000 against 2400 → 1400; {1, 2} 2100 against 1300 → 800;
        // {1, 3} 2300 against 1100 → 1200.
        let players = [BalanceCandidate(id: 3, rating: 1300), BalanceCandidate(id: 1, rating: 1000),
                       BalanceCandidate(id: 2, rating: 1100)]
        XCTAssertEqual(TeamBalancer.balance(players), BalancedTeams(teamA: [1, 2], teamB: [3], difference: 800))
    }

    func testAllGoalkeepersAreSplitLikeAnyoneElse() {
        // 1000 + 1300 = 1100 + 1200.
        let players = [1000, 1100, 1200, 1300].enumerated().map {
            BalanceCandidate(id: $0.offset + 1, rating: $0.element, isGoalkeeper: true)
        }
        XCTAssertEqual(TeamBalancer.balance(players), BalancedTeams(teamA: [1, 4], teamB: [2, 3], difference: 0))
    }

    func testFourGoalkeepersInSixGoTwoAndTwoEvenWhenThreeAndOneWouldBeCloser() {
        // Goalkeepers 1: 1400, 2: 1000, 3: 1200, 4: 1400; outfield 5: 900, 6: 1300.
        // {1, 2, 3} against {4, 5, 6} would be 3600 each, but with three goalkeepers to one.
        // Two goalkeepers and one outfielder each: {1, 2, 6} 3700 / 3500, {1, 3, 5} 3500 / 3700,
        // {1, 4, 5} 3700 / 3500 are the closest (200); AABBBA comes before ABABAB and ABBAAB.
        let players = [
            BalanceCandidate(id: 1, rating: 1400, isGoalkeeper: true),
            BalanceCandidate(id: 2, rating: 1000, isGoalkeeper: true),
            BalanceCandidate(id: 3, rating: 1200, isGoalkeeper: true),
            BalanceCandidate(id: 4, rating: 1400, isGoalkeeper: true),
            BalanceCandidate(id: 5, rating: 900),
            BalanceCandidate(id: 6, rating: 1300),
        ]
        XCTAssertEqual(TeamBalancer.balance(players), BalancedTeams(teamA: [1, 2, 6], teamB: [3, 4, 5], difference: 200))
    }

    func testEqualRatingsGatherTheLowestIdsOnTeamAWithOneGoalkeeperEach() {
        // Every split of sizes 3 and 3 is level; one goalkeeper each: AABABB is the first.
        let players = (1...6).map { BalanceCandidate(id: $0, rating: 1200, isGoalkeeper: $0 == 4 || $0 == 6) }
        XCTAssertEqual(TeamBalancer.balance(players), BalancedTeams(teamA: [1, 2, 4], teamB: [3, 5, 6], difference: 0))
    }

    func testAnOddSquadOfEqualRatingsIsOnePlayerApart() {
        // AAABB before AABBB: Team A takes the extra player.
        let players = (1...5).map { BalanceCandidate(id: $0 * 10, rating: 1200) }
        XCTAssertEqual(TeamBalancer.balance(players), BalancedTeams(teamA: [10, 20, 30], teamB: [40, 50], difference: 1200))
    }

    func testTheOrderPlayersArriveInDoesNotChangeTheTeams() {
        var random = SplitMix64(seed: 0x5EED_0004)
        let players = SquadFactory.squad(count: 12, maxKeepers: 3, using: &random)
        let teams = TeamBalancer.balance(players)
        for _ in 0..<20 {
            XCTAssertEqual(TeamBalancer.balance(players.shuffled(using: &random)), teams)
        }
        XCTAssertEqual(TeamBalancer.balance(players.reversed()), teams)
    }

    // MARK: - Large squads

    func testTwentyTwoPlayersAreSplitExactlyAndNoWorseThanTheLocalSearch() {
        var random = SplitMix64(seed: 0x5EED_0005)
        for keepers in [0, 2, 5] {
            let players = SquadFactory.squad(count: TeamBalancer.exactLimit, maxKeepers: keepers, using: &random)
            let exact = TeamBalancer.balance(players)
            assertKeepsTheRules(exact, of: players)
            let local = TeamBalancer.balance(players, exactUpTo: 0)
            assertKeepsTheRules(local, of: players)
            XCTAssertLessThanOrEqual(exact?.difference ?? .max, local?.difference ?? -1)
            XCTAssertEqual(TeamBalancer.balance(players.shuffled(using: &random)), exact)
        }
    }

    func testSixtyPlayersAreSplitWithinOnePointAndAlwaysTheSameWay() {
        var random = SplitMix64(seed: 0x5EED_0006)
        for keepers in [0, 4, 11] {
            let players = SquadFactory.squad(count: 60, maxKeepers: keepers, using: &random)
            let teams = TeamBalancer.balance(players)
            assertKeepsTheRules(teams, of: players)
            // With sixty ratings spread over 800–1600 a level split (or one point off, for an
            // odd total) exists; the local search should find one.
            XCTAssertLessThanOrEqual(teams?.difference ?? .max, 1)
            XCTAssertEqual(TeamBalancer.balance(players.shuffled(using: &random)), teams)
        }
    }

    func testEverySquadSizeBeyondTheExactLimitKeepsTheRules() {
        var random = SplitMix64(seed: 0x5EED_0007)
        for count in (TeamBalancer.exactLimit + 1)...60 {
            let players = SquadFactory.squad(count: count, maxKeepers: 8, using: &random)
            assertKeepsTheRules(TeamBalancer.balance(players), of: players, "\(count) players")
        }
    }

    func testLopsidedRatingsBeyondTheExactLimitStillKeepTheRules() {
        // One star far above everyone: the best possible is the star against the rest's surplus.
        var players = (1...29).map { BalanceCandidate(id: $0, rating: 1000, isGoalkeeper: $0 <= 3) }
        players.append(BalanceCandidate(id: 30, rating: 9000))
        let teams = TeamBalancer.balance(players)
        assertKeepsTheRules(teams, of: players)
        // 15 against 15: the star's team has 14 others at 1000: 23000 against 15000.
        XCTAssertEqual(teams?.difference, 8000)
    }
}
