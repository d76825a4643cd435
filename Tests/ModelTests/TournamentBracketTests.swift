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
        // order(16) over A1…H1 (seeds 1–8) and A2…H2 (seeds 9–16).
        XCTAssertEqual(first.map { "\($0.homeFrom!)-\($0.awayFrom!)" },
                       ["A1-H2", "H1-A2", "D1-E2", "E1-D2", "B1-G2", "G1-B2", "C1-F2", "F1-C2"])
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
}
