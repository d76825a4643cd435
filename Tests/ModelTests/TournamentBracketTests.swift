import GatherModel
import XCTest

/// The knockout's seeding and bracket (docs/PROTOCOL.md "The knockout").
final class TournamentBracketTests: XCTestCase {
    func testOrderByHand() {
        XCTAssertEqual(TournamentBracket.order(2), [1, 2])
        XCTAssertEqual(TournamentBracket.order(4), [1, 4, 2, 3])
        XCTAssertEqual(TournamentBracket.order(8), [1, 8, 4, 5, 2, 7, 3, 6])
        XCTAssertEqual(TournamentBracket.order(16), [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11])
    }

    /// For every bracket size: a permutation of the seeds; first-round pairs that add up to K + 1
    /// with the better seed first; and, when the better seed always wins, round after round the
    /// best seeds left meet the worst (1 and 2 only in the final).
    func testEveryOrderFromTwoToThirtyTwoPlacesKeepsTheBestSeedsApart() {
        for places in [2, 4, 8, 16, 32] {
            let order = TournamentBracket.order(places)
            XCTAssertEqual(order.sorted(), Array(1...places), "\(places)")
            var round = order
            while round.count > 1 {
                let pairs = stride(from: 0, to: round.count, by: 2).map { (round[$0], round[$0 + 1]) }
                XCTAssertTrue(pairs.allSatisfy { $0.0 + $0.1 == round.count + 1 }, "\(places): best left meets worst left")
                XCTAssertTrue(pairs.allSatisfy { $0.0 < $0.1 }, "\(places): the better seed is home")
                round = pairs.map { min($0.0, $0.1) }
            }
            XCTAssertEqual(round, [1])
        }
    }

    func testSeedsAreEveryGroupsWinnerThenEveryRunnerUp() {
        XCTAssertEqual(TournamentBracket.seeds(groupCount: 4, advance: 2).map(\.description),
                       ["A1", "B1", "C1", "D1", "A2", "B2", "C2", "D2"])
        XCTAssertEqual(TournamentBracket.seeds(groupCount: 1, advance: 4).map(\.description), ["A1", "A2", "A3", "A4"])
    }

    func testEightGroupsOfFourTwoThroughPairsAsTheContractSays() {
        let settings = TournamentSettings(startsAt: 0, pitches: Array(1...8), advance: 2)
        let tournament = Tournament(id: "t", name: "Cup", teamNames: (1...32).map { "T\($0)" }, groupCount: 8,
                                    settings: settings)
        let first = tournament.matches.filter { $0.stage == .roundOf16 }
        // Two through from an even number of groups: the contract's crossed pairing.
        XCTAssertEqual(first.map { "\($0.homeFrom!)-\($0.awayFrom!)" },
                       ["A1-B2", "C1-D2", "E1-F2", "G1-H2", "B1-A2", "D1-C2", "F1-E2", "H1-G2"])
        XCTAssertEqual(tournament.matches.count, 48 + 15)
        XCTAssertEqual(tournament.matches.filter { $0.stage == .quarterFinal }.map { "\($0.homeFrom!)-\($0.awayFrom!)" },
                       ["W49-W50", "W51-W52", "W53-W54", "W55-W56"])
    }

    func testPlaceLabelsReadBack() {
        for label in ["A1", "P4", "W5", "L9", "W63"] {
            XCTAssertEqual(PlaceSource(label: label)?.description, label)
        }
        for label in ["", "A", "Q1", "W0", "X3", "a1", "W-1"] {
            XCTAssertNil(PlaceSource(label: label), label)
        }
    }

    private func labels(_ pairs: [(PlaceSource, PlaceSource)]) -> [String] {
        pairs.map { "\($0.0)-\($0.1)" }
    }

    func testCrossedPairingAsTheContractListsIt() {
        XCTAssertEqual(labels(TournamentBracket.firstRound(groupCount: 2, advance: 2)), ["A1-B2", "B1-A2"])
        XCTAssertEqual(labels(TournamentBracket.firstRound(groupCount: 4, advance: 2)), ["A1-B2", "C1-D2", "B1-A2", "D1-C2"])
        XCTAssertEqual(labels(TournamentBracket.firstRound(groupCount: 8, advance: 2)),
                       ["A1-B2", "C1-D2", "E1-F2", "G1-H2", "B1-A2", "D1-C2", "F1-E2", "H1-G2"])
    }

    /// Every set-up the contract allows (groups × advance a power of two, 2–32): the first round
    /// holds every place once; with two through from an even number of groups, a group's two
    /// teams start in opposite halves (so they meet again only in the final or the third-place
    /// match), every winner meets another group's runner-up, and each half holds one winner and
    /// one runner-up of every group pair; every other set-up keeps `order(K)`.
    func testEverySetUpHoldsEveryPlaceOnceAndKeepsAGroupsTwoTeamsApart() {
        for groups in [1, 2, 4, 8, 16] {
            for advance in 1...32 where [2, 4, 8, 16, 32].contains(groups * advance) {
                let pairs = TournamentBracket.firstRound(groupCount: groups, advance: advance)
                let places = pairs.flatMap { [$0.0.description, $0.1.description] }
                XCTAssertEqual(places.sorted(), TournamentBracket.seeds(groupCount: groups, advance: advance).map(\.description).sorted(),
                               "\(groups)×\(advance)")
                guard advance == 2, groups.isMultiple(of: 2) else {
                    let seeds = TournamentBracket.seeds(groupCount: groups, advance: advance)
                    let order = TournamentBracket.order(seeds.count)
                    XCTAssertEqual(places, order.map { seeds[$0 - 1].description }, "\(groups)×\(advance) keeps order(K)")
                    continue
                }
                let half = pairs.count / 2
                for index in 0..<groups {
                    let name = TournamentGroup.name(index: index)
                    let winner = pairs.firstIndex { $0.0.description == "\(name)1" }!
                    let runnerUp = pairs.firstIndex { $0.1.description == "\(name)2" }!
                    XCTAssertNotEqual(winner < half, runnerUp < half, "\(groups) groups: \(name)'s two teams in one half")
                }
                for pair in pairs {
                    guard case .group(let home, rank: 1) = pair.0, case .group(let away, rank: 2) = pair.1 else {
                        return XCTFail("\(groups) groups: \(pair) is not a winner against a runner-up")
                    }
                    XCTAssertNotEqual(home, away)
                }
            }
        }
    }

    /// Played through to the end with every group's order as seeded and the better place always
    /// winning: no two teams of a group meet before the final (or the third-place match).
    func testTeamsOfOneGroupMeetOnlyInTheFinalOrThirdPlace() throws {
        for groups in [2, 4, 8, 16] {
            let settings = TournamentSettings(startsAt: 0, pitches: [1, 2, 3, 4], advance: 2, thirdPlace: true)
            var cup = Tournament(id: "t", name: "Cup", teamNames: (1...(groups * 4)).map { "T\($0)" }, groupCount: groups,
                                 settings: settings)
            var now: Int64 = 0
            while let next = cup.matches.first(where: { $0.status == .scheduled }) {
                now += 1
                try cup.startMatch(next.id, at: now)
                let homeWins = next.stage == .group ? HomeAway(home: 1, away: 0) : HomeAway(home: next.id % 3, away: (next.id + 1) % 3)
                try cup.finishMatch(next.id, score: homeWins, penalties: homeWins.home == homeWins.away ? HomeAway(home: 5, away: 4) : nil,
                                    endedAt: now, historyID: "h\(next.id)")
                let match = cup.match(next.id)!
                if match.stage.isKnockout, match.stage != .final, match.stage != .thirdPlace {
                    XCTAssertNotEqual(cup.group(of: match.home!)?.name, cup.group(of: match.away!)?.name,
                                      "\(groups) groups: match \(match.id) (\(match.stage)) pairs one group's teams")
                }
            }
            XCTAssertEqual(cup.phase, .finished)
        }
    }
}
