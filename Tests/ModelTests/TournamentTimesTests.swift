import GatherModel
import XCTest

/// "Times follow the day both ways" (docs/PROTOCOL.md, release 5): a scheduled match is expected
/// at the latest of its planned start, the moment its pitch is free and now; below its planned
/// start only after a match its pitch started with `startEarly`.
final class TournamentTimesTests: XCTestCase {
    private typealias T = TournamentTransitionsTests
    private let minute = T.minute

    func testAMatchNotStartedByNowIsExpectedNowNotAtItsPlannedTime() throws {
        var cup = T.eightTeams()
        // Match 1 (pitch 1) kicks off 4 minutes late; match 2 (pitch 2) has not started then.
        try cup.startMatch(1, at: T.start + 4 * minute)
        XCTAssertEqual(cup.match(2)!.expectedAt, T.start + 4 * minute)
        XCTAssertEqual(cup.match(2)!.revision, 1, "the calendar follows")
        XCTAssertEqual(cup.match(4)!.expectedAt, T.start + 19 * minute, "pitch 2 follows its first match")
    }

    func testADayRunningEarlyMovesNextMatchesDownToTheirPlannedTimesOnly() throws {
        var cup = T.eightTeams()
        // Pitch 1 runs 8 minutes late, then its match ends at once: the next comes back to plan.
        try cup.startMatch(1, at: T.start + 8 * minute)
        XCTAssertEqual(cup.match(3)!.expectedAt, T.start + 23 * minute)
        try cup.finishMatch(1, score: HomeAway(home: 1, away: 0), penalties: nil, endedAt: T.start + 9 * minute, historyID: "h1")
        XCTAssertEqual(cup.match(3)!.expectedAt, cup.match(3)!.plannedAt, "earlier again, down to its planned time")
        XCTAssertEqual(cup.match(3)!.revision, 2)
    }

    func testStartEarlyLetsThePitchsNextMatchesComeBeforeTheirPlannedTimes() throws {
        var plain = T.eightTeams()
        var early = T.eightTeams()
        // Pitch 2 starts on time in both; both start match 1 three minutes early and end it after 6 minutes.
        try plain.startMatch(2, at: T.start)
        try early.startMatch(2, at: T.start)
        try plain.startMatch(1, at: T.start - 3 * minute)
        try early.startMatch(1, at: T.start - 3 * minute, startEarly: true)
        try plain.finishMatch(1, score: HomeAway(home: 1, away: 0), penalties: nil, endedAt: T.start + 3 * minute, historyID: "h")
        try early.finishMatch(1, score: HomeAway(home: 1, away: 0), penalties: nil, endedAt: T.start + 3 * minute, historyID: "h")
        XCTAssertEqual(plain.match(3)!.expectedAt, plain.match(3)!.plannedAt)
        XCTAssertEqual(plain.match(3)!.revision, 0)
        XCTAssertEqual(early.match(3)!.expectedAt, T.start + 8 * minute, "free at 3 + the 5-minute break")
        XCTAssertLessThan(early.match(3)!.expectedAt, early.match(3)!.plannedAt)
        XCTAssertEqual(early.match(3)!.revision, 2, "SEQUENCE goes up at the early kickoff and again at its full time")
        XCTAssertEqual(early.match(5)!.expectedAt, T.start + 23 * minute, "and the one after it")
        // Pitch 2 is not running early: its matches keep their planned floor.
        XCTAssertEqual(early.match(4)!.expectedAt, early.match(4)!.plannedAt)
        // The next match started without startEarly puts the floor back.
        try early.startMatch(3, at: T.start + 8 * minute)
        try early.finishMatch(3, score: HomeAway(home: 1, away: 0), penalties: nil, endedAt: T.start + 10 * minute, historyID: "h3")
        XCTAssertEqual(early.match(5)!.expectedAt, early.match(5)!.plannedAt)
    }

    /// Random days (seeded): matches started on time, late or early (some with `startEarly`),
    /// ended after 1–20 minutes, sometimes cancelled. After every transition at `now`, each
    /// scheduled match is expected no earlier than now, than its pitch's previous match's end plus
    /// the break, and (unless its pitch runs early) than its planned start, and at exactly one of
    /// these; live and finished matches keep their kickoff.
    func testEveryScheduledMatchIsExpectedAtTheLatestOfPlanPitchAndNow() throws {
        var generator = SplitMix64(seed: 0x5EED_0042)
        for _ in 0..<60 {
            var cup = T.eightTeams()
            var now = T.start - 5 * minute
            var transitions = 0
            while cup.phase != .finished, transitions < 200 {
                transitions += 1
                now += Int64(generator.next() % 9) * minute
                let live = cup.matches.filter { $0.status == .live }
                if let match = live.first, generator.next() % 3 != 0 {
                    let score = HomeAway(home: Int(generator.next() % 3), away: Int(generator.next() % 3))
                    let penalties = match.stage.isKnockout && score.home == score.away ? HomeAway(home: 4, away: 2) : nil
                    if generator.next() % 10 == 0 {
                        try cup.cancelMatch(match.id, at: now)
                    } else {
                        try cup.finishMatch(match.id, score: score, penalties: penalties, endedAt: now, historyID: "h\(match.id)")
                    }
                } else if let next = cup.matches.first(where: { candidate in
                    candidate.status == .scheduled && candidate.home != nil && candidate.away != nil
                        && !cup.matches.contains { $0.status == .live && $0.pitch == candidate.pitch }
                        && cup.unplayedMatches(on: candidate.pitch).first == candidate.id
                }) {
                    try cup.startMatch(next.id, at: now, startEarly: generator.next() % 4 == 0)
                    XCTAssertEqual(cup.match(next.id)!.expectedAt, now, "a live match's expectedAt is its kickoff")
                } else {
                    continue
                }
                check(cup, now: now)
            }
            XCTAssertEqual(cup.phase, .finished)
        }
    }

    private func check(_ cup: Tournament, now: Int64, file: StaticString = #filePath, line: UInt = #line) {
        for pitch in cup.rules.pitches {
            var free: Int64?
            var early = false
            for match in cup.matches where match.pitch == pitch {
                switch match.status {
                case .live:
                    free = match.expectedAt + cup.rules.matchMs
                    early = match.startedEarly == true
                case .finished:
                    free = match.endedAt!
                    early = match.startedEarly == true
                case .scheduled:
                    let pitchFree = free.map { $0 + cup.rules.breakMs }
                    let bounds = [now, pitchFree, early ? nil : match.plannedAt].compactMap { $0 }
                    XCTAssertEqual(match.expectedAt, bounds.max()!, "match \(match.id)", file: file, line: line)
                    XCTAssertGreaterThanOrEqual(match.expectedAt, now, file: file, line: line)
                    if !early { XCTAssertGreaterThanOrEqual(match.expectedAt, match.plannedAt, file: file, line: line) }
                    free = match.expectedAt + cup.rules.matchMs
                }
            }
        }
    }
}
