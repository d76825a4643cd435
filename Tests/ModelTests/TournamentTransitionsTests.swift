import GatherModel
import XCTest

/// The transitions the Coordinator calls (start, finish, cancel, correct, a team's details) and
/// what follows from them: the bracket filling, phases, the champion, and every rejection
/// changing nothing.
final class TournamentTransitionsTests: XCTestCase {
    static let start: Int64 = 1_790_000_000_000
    static let minute: Int64 = 60_000

    /// Two groups of four, two through, a third place, two pitches, 10 + 5 minutes.
    static func eightTeams(tieBreak: TieBreak = .goalDifference) -> Tournament {
        Tournament(id: "t", name: "Cup", teamNames: ["Reds", "Blues", "Greens", "Whites", "Blacks", "Golds", "Pinks", "Greys"],
                   groupCount: 2, settings: TournamentSettings(matchMinutes: 10, breakMinutes: 5, startsAt: start,
                                                               pitches: [1, 2], tieBreak: tieBreak, advance: 2, thirdPlace: true))
    }

    /// Plays match `id` from its expected time: kickoff, then full time `minutes` later.
    static func play(_ tournament: inout Tournament, _ id: Int, _ home: Int, _ away: Int, penalties: HomeAway? = nil,
                     minutes: Int64 = 10) throws
    {
        let kickoff = tournament.match(id)!.expectedAt
        try tournament.startMatch(id, at: kickoff)
        try tournament.finishMatch(id, score: HomeAway(home: home, away: away), penalties: penalties,
                                   endedAt: kickoff + minutes * minute, historyID: "h\(id)")
    }

    /// The better seed in a group wins every group match 1–0: groups end A = 1, 3, 5, 7 and B = 2, 4, 6, 8.
    static func playGroups(_ tournament: inout Tournament) throws {
        for match in tournament.matches where match.stage == .group {
            try play(&tournament, match.id, 1, 0)
        }
    }

    private func assertRejected(_ tournament: Tournament, _ code: RejectionCode, _ contains: String,
                                file: StaticString = #filePath, line: UInt = #line,
                                _ change: (inout Tournament) throws -> Void)
    {
        var copy = tournament
        XCTAssertThrowsError(try change(&copy), file: file, line: line) { error in
            let rejection = error as? Rejection
            XCTAssertEqual(rejection?.code, code, file: file, line: line)
            XCTAssertTrue(rejection?.message.contains(contains) == true, "\(rejection?.message ?? "")", file: file, line: line)
        }
        XCTAssertEqual(copy, tournament, "a rejection changes nothing", file: file, line: line)
    }

    // MARK: - A whole tournament

    func testAWholeTournamentFromTheFirstMatchToTheChampion() throws {
        var tournament = Self.eightTeams()
        XCTAssertEqual(tournament.phase, .groups)
        try Self.playGroups(&tournament)
        XCTAssertEqual(tournament.phase, .knockout)
        XCTAssertEqual(tournament.groups.map { $0.table.map(\.team) }, [[1, 3, 5, 7], [2, 4, 6, 8]])
        XCTAssertEqual(tournament.groups[0].table[0], TableRow(team: 1, played: 3, won: 3, goalsFor: 3, goalsAgainst: 0, points: 9, qualified: true))
        // A1–B2 and B1–A2.
        XCTAssertEqual([13, 14].map { [tournament.match($0)!.home, tournament.match($0)!.away] }, [[1, 4], [2, 3]])
        XCTAssertNil(tournament.match(15)!.home)
        try Self.play(&tournament, 13, 0, 2)  // Whites beat Reds
        XCTAssertEqual(tournament.match(13)!.winner, 4)
        XCTAssertEqual(tournament.match(15)!.home, 1, "the loser fills its L place at once")
        XCTAssertEqual(tournament.match(16)!.home, 4, "the winner its W place")
        XCTAssertNil(tournament.match(16)!.away)
        try Self.play(&tournament, 14, 1, 1, penalties: HomeAway(home: 3, away: 4))  // Greens win on penalties
        XCTAssertEqual(tournament.match(14)!.winner, 3)
        XCTAssertEqual([tournament.match(15)!.home, tournament.match(15)!.away], [1, 2])
        XCTAssertEqual([tournament.match(16)!.home, tournament.match(16)!.away], [4, 3])
        try Self.play(&tournament, 15, 2, 0)
        XCTAssertEqual(tournament.phase, .knockout)
        XCTAssertNil(tournament.champion)
        try Self.play(&tournament, 16, 0, 0, penalties: HomeAway(home: 5, away: 4))
        XCTAssertEqual(tournament.phase, .finished)
        XCTAssertEqual(tournament.champion, 4)
        XCTAssertTrue(tournament.matches.allSatisfy { $0.status == .finished && $0.historyId == "h\($0.id)" })
    }

    func testADrawnGroupMatchHasNoWinner() throws {
        var tournament = Self.eightTeams()
        try Self.play(&tournament, 1, 2, 2)
        XCTAssertNil(tournament.match(1)!.winner)
        XCTAssertEqual(tournament.match(1)!.score, HomeAway(home: 2, away: 2))
        try Self.play(&tournament, 2, 0, 3)
        XCTAssertEqual(tournament.match(2)!.winner, tournament.match(2)!.away)
    }

    // MARK: - Starting, cancelling

    func testStartingNeedsAScheduledMatchWithBothTeamsKnown() throws {
        var tournament = Self.eightTeams()
        assertRejected(tournament, .wrongPhase, "A1 v B2") { try $0.startMatch(13, at: Self.start) }
        assertRejected(tournament, .notFound, "no match 99") { try $0.startMatch(99, at: Self.start) }
        try tournament.startMatch(1, at: Self.start)
        XCTAssertEqual(tournament.match(1)!.status, .live)
        assertRejected(tournament, .wrongPhase, "already being played") { try $0.startMatch(1, at: Self.start) }
        try tournament.finishMatch(1, score: HomeAway(home: 1, away: 0), penalties: nil, endedAt: Self.start, historyID: "h")
        assertRejected(tournament, .wrongPhase, "already finished") { try $0.startMatch(1, at: Self.start) }
        assertRejected(tournament, .wrongPhase, "not being played") {
            try $0.finishMatch(2, score: HomeAway(home: 1, away: 0), penalties: nil, endedAt: Self.start, historyID: "h")
        }
        assertRejected(tournament, .wrongPhase, "not being played") { try $0.cancelMatch(1) }
    }

    func testCancellingPutsTheMatchBackAndItsPitchBackOnTime() throws {
        let fresh = Self.eightTeams()
        var tournament = fresh
        try tournament.startMatch(1, at: Self.start + 7 * Self.minute)
        XCTAssertEqual(tournament.match(3)!.expectedAt, fresh.match(3)!.plannedAt + 7 * Self.minute)
        try tournament.cancelMatch(1)
        XCTAssertEqual(tournament.match(1)!.status, .scheduled)
        XCTAssertEqual(tournament.matches.map(\.expectedAt), fresh.matches.map(\.expectedAt))
        XCTAssertEqual(tournament.match(3)!.revision, 2, "moved late, then back: two changes the calendar must see")
    }

    // MARK: - Results and penalties

    func testPenaltiesOnlyForALevelKnockoutMatch() throws {
        var tournament = Self.eightTeams()
        try tournament.startMatch(1, at: Self.start)
        assertRejected(tournament, .invalid, "group match") {
            try $0.finishMatch(1, score: HomeAway(home: 1, away: 1), penalties: HomeAway(home: 4, away: 3), endedAt: 0, historyID: "h")
        }
        assertRejected(tournament, .invalid, "from 0 to 99") {
            try $0.finishMatch(1, score: HomeAway(home: 100, away: 1), penalties: nil, endedAt: 0, historyID: "h")
        }
        tournament = Self.eightTeams()
        try Self.playGroups(&tournament)
        try tournament.startMatch(13, at: Self.start)
        assertRejected(tournament, .invalid, "say how the penalties ended") {
            try $0.finishMatch(13, score: HomeAway(home: 1, away: 1), penalties: nil, endedAt: 0, historyID: "h")
        }
        assertRejected(tournament, .invalid, "was not level") {
            try $0.finishMatch(13, score: HomeAway(home: 2, away: 1), penalties: HomeAway(home: 4, away: 3), endedAt: 0, historyID: "h")
        }
        assertRejected(tournament, .invalid, "cannot be equal") {
            try $0.finishMatch(13, score: HomeAway(home: 1, away: 1), penalties: HomeAway(home: 4, away: 4), endedAt: 0, historyID: "h")
        }
        assertRejected(tournament, .invalid, "0 to 99") {
            try $0.finishMatch(13, score: HomeAway(home: 1, away: 1), penalties: HomeAway(home: 100, away: 4), endedAt: 0, historyID: "h")
        }
    }

    // MARK: - Correcting a result

    func testCorrectingAGroupResultReordersTheTable() throws {
        var tournament = Self.eightTeams()
        try Self.play(&tournament, 1, 1, 0)
        let home = tournament.match(1)!.home!
        XCTAssertEqual(tournament.group(of: home)!.table[0].team, home)
        assertRejected(tournament, .wrongPhase, "no result") { try $0.correctResult(2, score: HomeAway(home: 0, away: 1), penalties: nil) }
        assertRejected(tournament, .invalid, "group match") {
            try $0.correctResult(1, score: HomeAway(home: 0, away: 0), penalties: HomeAway(home: 1, away: 0))
        }
        try tournament.correctResult(1, score: HomeAway(home: 0, away: 3), penalties: nil)
        XCTAssertEqual(tournament.group(of: home)!.table[0].team, tournament.match(1)!.away)
        XCTAssertEqual(tournament.match(1)!.winner, tournament.match(1)!.away)
        XCTAssertEqual(tournament.match(1)!.historyId, "h1", "the history entry stays linked")
    }

    /// After the group stage, a corrected group result that swaps A1 and A2 changes who plays the
    /// first knockout round: allowed while those matches are scheduled, refused once one started.
    func testACorrectionThatWouldChangeAStartedMatchsTeamsIsRefused() throws {
        var tournament = Self.eightTeams()
        try Self.playGroups(&tournament)
        let reds = tournament.matches.first { $0.stage == .group && $0.home == 1 && $0.away == 3 }!.id
        var swapped = tournament
        try swapped.correctResult(reds, score: HomeAway(home: 0, away: 5), penalties: nil)
        XCTAssertEqual(swapped.groups[0].table.prefix(2).map(\.team), [3, 1])
        XCTAssertEqual([swapped.match(13)!.home, swapped.match(14)!.away], [3, 1])
        XCTAssertEqual(swapped.match(13)!.revision, tournament.match(13)!.revision + 1, "the calendar sees new teams")
        try tournament.startMatch(14, at: Self.start + 100 * Self.minute)
        assertRejected(tournament, .inUse, "already started") {
            try $0.correctResult(reds, score: HomeAway(home: 0, away: 5), penalties: nil)
        }
        // A correction that leaves the places as they were is fine.
        try tournament.correctResult(reds, score: HomeAway(home: 4, away: 0), penalties: nil)
        XCTAssertEqual(tournament.groups[0].table[0], TableRow(team: 1, played: 3, won: 3, goalsFor: 6, goalsAgainst: 0, points: 9, qualified: true))
    }

    func testCorrectingAKnockoutResultMovesTheWinnerOnUnlessTheNextMatchStarted() throws {
        var tournament = Self.eightTeams()
        try Self.playGroups(&tournament)
        try Self.play(&tournament, 13, 2, 0)
        try Self.play(&tournament, 14, 2, 0)
        XCTAssertEqual([tournament.match(16)!.home, tournament.match(15)!.home], [1, 4])
        var corrected = tournament
        try corrected.correctResult(13, score: HomeAway(home: 1, away: 1), penalties: HomeAway(home: 2, away: 4))
        XCTAssertEqual([corrected.match(16)!.home, corrected.match(15)!.home], [4, 1])
        assertRejected(tournament, .invalid, "penalties") { try $0.correctResult(13, score: HomeAway(home: 1, away: 1), penalties: nil) }
        try tournament.startMatch(15, at: Self.start + 200 * Self.minute)
        assertRejected(tournament, .inUse, "match 15") {
            try $0.correctResult(13, score: HomeAway(home: 0, away: 1), penalties: nil)
        }
        try tournament.finishMatch(15, score: HomeAway(home: 1, away: 0), penalties: nil, endedAt: Self.start + 210 * Self.minute,
                                   historyID: "h15")
        try Self.play(&tournament, 16, 3, 0)
        assertRejected(tournament, .inUse, "already been played") {
            try $0.correctResult(14, score: HomeAway(home: 0, away: 1), penalties: nil)
        }
    }

    // MARK: - expectedAt

    func testAMatchStartedLateMovesEveryLaterMatchOnItsPitchOnly() throws {
        let fresh = Self.eightTeams()
        var tournament = fresh
        let pitchOne = fresh.matches.filter { $0.pitch == 1 }.map(\.id)
        let pitchTwo = fresh.matches.filter { $0.pitch == 2 }.map(\.id)
        // Pitch 2 on time (a match not started by now would be expected now, not at its planned time).
        try tournament.startMatch(pitchTwo[0], at: Self.start)
        try tournament.startMatch(pitchOne[0], at: Self.start + 7 * Self.minute)
        XCTAssertEqual(tournament.match(pitchOne[0])!.expectedAt, Self.start + 7 * Self.minute, "its kickoff")
        for id in pitchOne.dropFirst() {
            XCTAssertEqual(tournament.match(id)!.expectedAt, fresh.match(id)!.plannedAt + 7 * Self.minute, "match \(id)")
            XCTAssertEqual(tournament.match(id)!.revision, 1)
        }
        for id in pitchTwo { XCTAssertEqual(tournament.match(id)!.expectedAt, fresh.match(id)!.plannedAt, "match \(id)") }
        XCTAssertEqual(pitchTwo.map { tournament.match($0)!.revision }, pitchTwo.map { _ in 0 })
        XCTAssertEqual(tournament.match(pitchOne[0])!.plannedAt, fresh.match(pitchOne[0])!.plannedAt, "plannedAt never changes")

        // It ends after 20 minutes instead of 10: the next match waits the break after its real end.
        try tournament.finishMatch(pitchOne[0], score: HomeAway(home: 0, away: 0), penalties: nil,
                                   endedAt: Self.start + 27 * Self.minute, historyID: "h")
        XCTAssertEqual(tournament.match(pitchOne[1])!.expectedAt, Self.start + 32 * Self.minute)
        XCTAssertEqual(tournament.match(pitchOne[2])!.expectedAt, Self.start + 47 * Self.minute)
    }

    func testAMatchThatEndsEarlyNeverPullsTheNextBeforeItsPlannedTime() throws {
        let fresh = Self.eightTeams()
        var tournament = fresh
        try tournament.startMatch(1, at: Self.start)
        try tournament.finishMatch(1, score: HomeAway(home: 1, away: 0), penalties: nil, endedAt: Self.start + Self.minute,
                                   historyID: "h")
        XCTAssertEqual(tournament.match(3)!.expectedAt, fresh.match(3)!.plannedAt)
        XCTAssertEqual(tournament.match(3)!.revision, 0)
        // A later match started early (its pitch was free) is live at its kickoff; the next one follows it.
        try tournament.startMatch(3, at: Self.start + 2 * Self.minute)
        XCTAssertEqual(tournament.match(5)!.expectedAt, fresh.match(5)!.plannedAt)
    }

    // MARK: - Teams

    func testATeamsNameColourAndPlayers() throws {
        var tournament = Self.eightTeams()
        try tournament.setTeam(1, TournamentTeamChanges(name: "Red Star", colour: .red, players: [4, 7]), roster: [4, 7, 9])
        XCTAssertEqual(tournament.team(1), TournamentTeam(id: 1, name: "Red Star", colour: .red, players: [4, 7]))
        assertRejected(tournament, .inUse, "Red Star") { try $0.setTeam(2, TournamentTeamChanges(players: [9, 7]), roster: [4, 7, 9]) }
        assertRejected(tournament, .notFound, "no player with id 8") { try $0.setTeam(2, TournamentTeamChanges(players: [8]), roster: [4, 7, 9]) }
        assertRejected(tournament, .invalid, "already called Red Star") { try $0.setTeam(2, TournamentTeamChanges(name: "ＲＥＤ ＳＴＡＲ"), roster: []) }
        assertRejected(tournament, .notFound, "no team 9") { try $0.setTeam(9, TournamentTeamChanges(name: "X"), roster: []) }
        try tournament.setTeam(1, TournamentTeamChanges(name: "RED STAR"), roster: [])
        XCTAssertEqual(tournament.team(1)?.name, "RED STAR", "a team may change the case of its own name")
        XCTAssertEqual(tournament.team(1)?.players, [4, 7])
    }

    func testPlaceLabelsWhileUnknown() throws {
        var tournament = Self.eightTeams()
        XCTAssertEqual(tournament.placeLabel(tournament.match(13)!, home: true), "A1")
        XCTAssertEqual(tournament.placeLabel(tournament.match(15)!, home: false), "L14")
        try Self.playGroups(&tournament)
        XCTAssertEqual(tournament.placeLabel(tournament.match(13)!, home: true), "Reds")
    }

    func testCodableRoundTrip() throws {
        var tournament = Self.eightTeams()
        try Self.playGroups(&tournament)
        try tournament.startMatch(13, at: Self.start + 500 * Self.minute)
        let data = try JSONEncoder().encode(tournament)
        XCTAssertEqual(try JSONDecoder().decode(Tournament.self, from: data), tournament)
    }
}
