import GatherModel
import GatherModelTestSupport
import XCTest

/// The ratings of docs/PROTOCOL.md "Players' records", against values worked out by hand:
/// E = 1 / (1 + 10^((R_them − R_us) / 400)), delta = round(32 × (S − E)).
final class EloTests: XCTestCase {
    func testPlayersStartFromTheirSkillAndNoSkillCountsAsAmateur() {
        XCTAssertEqual(Elo.initialRating(for: .beginner), 1000)
        XCTAssertEqual(Elo.initialRating(for: .amateur), 1200)
        XCTAssertEqual(Elo.initialRating(for: .professional), 1400)
        XCTAssertEqual(Elo.initialRating(for: nil), 1200)
    }

    func testEqualTeamsMoveByHalfTheFactor() {
        // E = 1 / (1 + 10^0) = 0.5: win 32 × 0.5 = 16, draw 32 × 0 = 0, loss 32 × −0.5 = −16.
        let team = [1200, 1300], other = [1250, 1250]
        XCTAssertEqual(Elo.teamDelta(us: team, them: other, outcome: .win), 16)
        XCTAssertEqual(Elo.teamDelta(us: team, them: other, outcome: .draw), 0)
        XCTAssertEqual(Elo.teamDelta(us: team, them: other, outcome: .loss), -16)
    }

    func testTheWeakerTeamGainsMoreForAWinAndLosesLessForALoss() {
        // Weaker 1200 against 1400: E = 1 / (1 + 10^(200/400)) = 1 / (1 + 3.16228) = 0.24025.
        // win  32 × 0.75975 = 24.31 → 24; draw 32 × 0.25975 = 8.31 → 8; loss 32 × −0.24025 = −7.69 → −8.
        XCTAssertEqual(Elo.teamDelta(us: [1200], them: [1400], outcome: .win), 24)
        XCTAssertEqual(Elo.teamDelta(us: [1200], them: [1400], outcome: .draw), 8)
        XCTAssertEqual(Elo.teamDelta(us: [1200], them: [1400], outcome: .loss), -8)
        // Stronger 1400 against 1200: E = 0.75975.
        // win  32 × 0.24025 = 7.69 → 8; draw 32 × −0.25975 = −8.31 → −8; loss 32 × −0.75975 = −24.31 → −24.
        XCTAssertEqual(Elo.teamDelta(us: [1400], them: [1200], outcome: .win), 8)
        XCTAssertEqual(Elo.teamDelta(us: [1400], them: [1200], outcome: .draw), -8)
        XCTAssertEqual(Elo.teamDelta(us: [1400], them: [1200], outcome: .loss), -24)
    }

    func testDeltasRoundToTheNearestNotTowardsZero() {
        // 1200 against 1300: E = 1 / (1 + 10^(100/400)) = 1 / (1 + 1.77828) = 0.35994.
        // win 32 × 0.64006 = 20.48 → 20; loss 32 × −0.35994 = −11.52 → −12 (truncating would say −11).
        XCTAssertEqual(Elo.teamDelta(us: [1200], them: [1300], outcome: .win), 20)
        XCTAssertEqual(Elo.teamDelta(us: [1200], them: [1300], outcome: .loss), -12)
        // And the other side: win 32 × 0.35994 = 11.52 → 12; loss 32 × −0.64006 = −20.48 → −20.
        XCTAssertEqual(Elo.teamDelta(us: [1300], them: [1200], outcome: .win), 12)
        XCTAssertEqual(Elo.teamDelta(us: [1300], them: [1200], outcome: .loss), -20)
    }

    func testHalvesRoundAwayFromZero() {
        // No pair of mean ratings makes 32 × (S − E) exactly x.5 (E would have to be a multiple
        // of 1/64, but 10^(d/400) is rational only for whole multiples of 400), so the rounding
        // the protocol names is checked on its own.
        XCTAssertEqual(Elo.roundedHalfAwayFromZero(0.5), 1)
        XCTAssertEqual(Elo.roundedHalfAwayFromZero(-0.5), -1)
        XCTAssertEqual(Elo.roundedHalfAwayFromZero(1.5), 2)
        XCTAssertEqual(Elo.roundedHalfAwayFromZero(-1.5), -2)
        XCTAssertEqual(Elo.roundedHalfAwayFromZero(2.5), 3)
        XCTAssertEqual(Elo.roundedHalfAwayFromZero(-2.5), -3)
        XCTAssertEqual(Elo.roundedHalfAwayFromZero(2.49), 2)
        XCTAssertEqual(Elo.roundedHalfAwayFromZero(-2.49), -2)
        XCTAssertEqual(Elo.roundedHalfAwayFromZero(0), 0)
    }

    func testTeamsOfDifferentSizesAreComparedByTheirMeans() {
        // Means 1100 (1000, 1200) and 1500: E = 1 / (1 + 10^(400/400)) = 1/11 = 0.09091.
        // win 32 × 10/11 = 29.09 → 29; draw 32 × 9/22 = 13.09 → 13; loss 32 × −1/11 = −2.91 → −3.
        XCTAssertEqual(Elo.teamDelta(us: [1000, 1200], them: [1500], outcome: .win), 29)
        XCTAssertEqual(Elo.teamDelta(us: [1000, 1200], them: [1500], outcome: .draw), 13)
        XCTAssertEqual(Elo.teamDelta(us: [1000, 1200], them: [1500], outcome: .loss), -3)
        // Two 1200s against one 1400: by sums (2400 against 1400) the pair would be favourites,
        // by means (1200 against 1400) they are the weaker side and gain 24 for a win.
        XCTAssertEqual(Elo.teamDelta(us: [1200, 1200], them: [1400], outcome: .win), 24)
        // A mean that is not a whole number: 1000.5 against 1200, E = 1 / (1 + 10^(199.5/400)) = 0.24078;
        // win 32 × 0.75922 = 24.30 → 24; loss 32 × −0.24078 = −7.70 → −8.
        XCTAssertEqual(Elo.teamDelta(us: [1000, 1001], them: [1200], outcome: .win), 24)
        XCTAssertEqual(Elo.teamDelta(us: [1000, 1001], them: [1200], outcome: .loss), -8)
    }

    func testAnEmptyTeamMovesNobody() {
        for outcome in MatchOutcome.allCases {
            XCTAssertEqual(Elo.teamDelta(us: [1200], them: [], outcome: outcome), 0)
            XCTAssertEqual(Elo.teamDelta(us: [], them: [1200], outcome: outcome), 0)
            XCTAssertEqual(Elo.teamDelta(us: [], them: [], outcome: outcome), 0)
        }
    }

    func testWhatOneTeamGainsTheOtherLoses() {
        // The protocol's symmetric rounding keeps the total of ratings where it was for
        // equal-sized teams, over a spread of rating gaps.
        for gap in stride(from: -600, through: 600, by: 37) {
            let us = [1200 + gap], them = [1200]
            XCTAssertEqual(Elo.teamDelta(us: us, them: them, outcome: .win),
                           -Elo.teamDelta(us: them, them: us, outcome: .loss), "gap \(gap)")
            XCTAssertEqual(Elo.teamDelta(us: us, them: them, outcome: .draw),
                           -Elo.teamDelta(us: them, them: us, outcome: .draw), "gap \(gap)")
        }
    }
}
