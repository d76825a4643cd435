import GatherModel
import XCTest

/// A pitch with unplayed matches (docs/PROTOCOL.md, release 5): `removePitch` is refused `in_use`
/// naming them; `moveMatches` moves them all to another of the tournament's pitches, in order.
final class TournamentPitchMovesTests: XCTestCase {
    private typealias T = TournamentTransitionsTests

    /// Three pitches, two groups of four: ids follow slots, pitch 3 gets the third match of a slot.
    private func threePitches() -> Tournament {
        Tournament(id: "t", name: "Cup", teamNames: ["Reds", "Blues", "Greens", "Whites", "Blacks", "Golds", "Pinks", "Greys"],
                   groupCount: 2, settings: TournamentSettings(matchMinutes: 10, breakMinutes: 5, startsAt: T.start,
                                                               pitches: [1, 2, 3], advance: 2, thirdPlace: true))
    }

    func testTheUnplayedMatchesOfAPitchInTheOrderItPlaysThem() throws {
        var cup = threePitches()
        let onThree = cup.matches.filter { $0.pitch == 3 }.map(\.id)
        XCTAssertEqual(cup.unplayedMatches(on: 3), onThree)
        try cup.startMatch(onThree[0], at: T.start)
        XCTAssertEqual(cup.unplayedMatches(on: 3), Array(onThree.dropFirst()), "a live match is not unplayed")
        XCTAssertEqual(cup.unplayedMatches(on: 9), [])
    }

    func testMovingEveryUnplayedMatchKeepsTheirOrderAndRecomputesTimes() throws {
        var cup = threePitches()
        let onThree = cup.unplayedMatches(on: 3)
        let onOne = cup.unplayedMatches(on: 1)
        let before = cup
        try cup.moveMatches(from: 3, to: 1, venuePitches: [1, 2, 3], now: T.start)
        XCTAssertEqual(cup.unplayedMatches(on: 3), [])
        XCTAssertEqual(cup.unplayedMatches(on: 1), (onOne + onThree).sorted { (cup.match($0)!.plannedAt, $0) < (cup.match($1)!.plannedAt, $1) })
        // Pitch 1 now plays one after another, each a match and a break after the one before.
        var previous: TournamentMatch?
        for id in cup.unplayedMatches(on: 1) {
            let match = cup.match(id)!
            XCTAssertGreaterThanOrEqual(match.expectedAt, match.plannedAt)
            if let previous { XCTAssertGreaterThanOrEqual(match.expectedAt, previous.expectedAt + cup.rules.slotMs, "match \(id)") }
            previous = match
        }
        for id in onThree {
            XCTAssertEqual(cup.match(id)!.pitch, 1)
            XCTAssertEqual(cup.match(id)!.revision, before.match(id)!.revision + 1, "a moved match's calendar entry moves")
            XCTAssertEqual(cup.match(id)!.plannedAt, before.match(id)!.plannedAt, "plannedAt never changes")
        }
        XCTAssertEqual(cup.matches.filter { $0.pitch == 2 }, before.matches.filter { $0.pitch == 2 }, "pitch 2 untouched")
    }

    func testEveryRefusalChangesNothing() throws {
        var cup = threePitches()
        func refused(_ code: RejectionCode, _ key: SentenceKey, from: Int, to: Int, venue: Set<Int> = [1, 2, 3],
                     line: UInt = #line) {
            var copy = cup
            XCTAssertThrowsError(try copy.moveMatches(from: from, to: to, venuePitches: venue, now: T.start), line: line) {
                XCTAssertEqual(($0 as? Rejection)?.code, code, line: line)
                XCTAssertEqual(($0 as? Rejection)?.reason.key, key, line: line)
            }
            XCTAssertEqual(copy, cup, line: line)
        }
        refused(.invalid, .moveToTournamentPitch, from: 3, to: 4)
        refused(.invalid, .moveToTournamentPitch, from: 3, to: 3)
        refused(.invalid, .moveToTournamentPitch, from: 3, to: 2, venue: [1, 3], line: #line)
        refused(.notFound, .noMatchesToMove, from: 4, to: 1)
        try cup.moveMatches(from: 3, to: 2, venuePitches: [1, 2, 3], now: T.start)
        refused(.notFound, .noMatchesToMove, from: 3, to: 1)
        while let next = cup.matches.first(where: { $0.status == .scheduled }) {
            try T.play(&cup, next.id, 1, 0)
        }
        XCTAssertEqual(cup.phase, .finished)
        refused(.wrongPhase, .tournamentFinished, from: 1, to: 2)
    }

    func testRemovingAPitchIsRefusedNamingItsUnplayedMatches() throws {
        var cup = threePitches()
        let onThree = cup.unplayedMatches(on: 3)
        let refusal = try XCTUnwrap(cup.refusalToRemove(pitch: 3, named: "Back pitch"))
        XCTAssertEqual(refusal.code, .inUse)
        XCTAssertEqual(refusal.matches, onThree)
        XCTAssertTrue(refusal.message.contains(onThree.map(String.init).joined(separator: ", ")), refusal.message)
        XCTAssertEqual(refusal.reason.key, .pitchHasMatches)
        try cup.moveMatches(from: 3, to: 1, venuePitches: [1, 2, 3], now: T.start)
        XCTAssertNil(cup.refusalToRemove(pitch: 3, named: "Back pitch"))
    }
}
