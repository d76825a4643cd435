import GatherDelivery
import GatherModel
import GatherPresenters
import XCTest

/// A small tournament for the presenters' tests: eight teams in two groups of four, two through, a third place, on pitches 1 and 2 (10 + 5 minutes from 2026-09-21 14:13:20 UTC).
enum TournamentSample {
    static let start: Int64 = 1_790_000_000_000
    static let minute: Int64 = 60_000

    static func eightTeams(names: [String] = ["Reds", "Blues", "Greens", "Whites", "Blacks", "Golds", "Pinks", "Greys"])
        -> Tournament
    {
        Tournament(id: "cup-1", name: "Riverside Cup", teamNames: names, groupCount: 2,
                   settings: TournamentSettings(matchMinutes: 10, breakMinutes: 5, startsAt: start, pitches: [1, 2],
                                                advance: 2, thirdPlace: true))
    }

    static func play(_ tournament: inout Tournament, _ id: Int, _ home: Int, _ away: Int, penalties: HomeAway? = nil) throws {
        let kickoff = tournament.match(id)!.expectedAt
        try tournament.startMatch(id, at: kickoff)
        try tournament.finishMatch(id, score: HomeAway(home: home, away: away), penalties: penalties,
                                   endedAt: kickoff + 10 * minute, historyID: "h\(id)")
    }
}

/// `tournament` in gather.v1 and gather.v2 state: the contract's field names, `null` with none.
final class TournamentPresenterTests: XCTestCase {
    private func keys(_ value: JSONValue?) -> Set<String> {
        guard case .object(let members)? = value else { return [] }
        return Set(members.keys)
    }

    func testNoTournamentIsNullOnBothProtocols() {
        XCTAssertEqual(StatePresenter.json(GatherState(), now: 0, protocol: .v1)["tournament"], .null)
        XCTAssertEqual(StatePresenter.json(GatherState(), now: 0, protocol: .v2)["tournament"], .null)
        XCTAssertEqual(String(decoding: TournamentPresenter.document(nil), as: UTF8.self), "null")
    }

    func testTheStateCarriesTheTournamentWithTheContractsFields() throws {
        var tournament = TournamentSample.eightTeams()
        try tournament.setTeam(1, TournamentTeamChanges(colour: .red, players: [4, 7]), roster: [4, 7])
        try TournamentSample.play(&tournament, 1, 2, 0)
        let state = GatherState(tournament: tournament)
        for wire in [WireProtocol.v1, .v2] {
            let json = StatePresenter.json(state, now: 0, protocol: wire)["tournament"]
            XCTAssertEqual(keys(json), ["id", "name", "phase", "rules", "teams", "groups", "matches", "champion"])
            let rules: JSONValue = [
                "matchMinutes": 10, "breakMinutes": 5, "startsAt": .int(Int(TournamentSample.start)), "pitches": [1, 2],
                "pointsForWin": 3, "pointsForDraw": 1, "tieBreak": "goalDifference", "advance": 2, "thirdPlace": true,
            ]
            XCTAssertEqual(json?["rules"], rules)
            guard case .array(let teams)? = json?["teams"], case .array(let groups)? = json?["groups"],
                  case .array(let matches)? = json?["matches"] else { return XCTFail("arrays") }
            let reds: JSONValue = ["id": 1, "name": "Reds", "colour": "red", "players": [4, 7]]
            let blues: JSONValue = ["id": 2, "name": "Blues", "players": []]
            XCTAssertEqual(teams[0], reds)
            XCTAssertEqual(teams[1], blues, "no colour when none is set")
            XCTAssertEqual(groups[0]["name"], "A")
            XCTAssertEqual(groups[0]["teams"], .array([1, 3, 5, 7]))
            guard case .array(let table)? = groups[0]["table"] else { return XCTFail("table") }
            XCTAssertEqual(table.count, 4)
            let first: JSONValue = ["team": 1, "played": 1, "won": 1, "drawn": 0, "lost": 0, "goalsFor": 2,
                                    "goalsAgainst": 0, "goalDifference": 2, "points": 3, "qualified": false,
                                    "eliminated": false]
            XCTAssertEqual(table[0], first, "after one match of three nothing is certain")
            XCTAssertEqual(matches.count, 16)
            let start = JSONValue.int(Int(TournamentSample.start))
            let semiTime = JSONValue.int(Int(TournamentSample.start + 7 * 15 * TournamentSample.minute))
            let one: JSONValue = [
                "id": 1, "stage": "group", "group": "A", "home": 1, "away": 7, "homeFrom": nil, "awayFrom": nil, "pitch": 1,
                "plannedAt": start, "expectedAt": start,
                "status": "finished", "score": ["home": 2, "away": 0], "penalties": nil, "winner": 1, "historyId": "h1",
            ]
            XCTAssertEqual(matches[0], one)
            let fifteen: JSONValue = [
                "id": 15, "stage": "thirdPlace", "group": nil, "home": nil, "away": nil, "homeFrom": "L13", "awayFrom": "L14",
                "pitch": 1, "plannedAt": semiTime, "expectedAt": semiTime,
                "status": "scheduled", "score": nil, "penalties": nil, "winner": nil, "historyId": nil,
            ]
            XCTAssertEqual(matches[14], fifteen)
            XCTAssertEqual(json?["phase"], .string("groups"))
            XCTAssertEqual(json?["champion"], JSONValue.null)
        }
    }

    func testAMatchsGatherAndItsHistoryEntryCarryTheirMatch() throws {
        var tournament = TournamentSample.eightTeams()
        try tournament.setTeam(1, TournamentTeamChanges(colour: .yellow, players: [4, 7]), roster: [4, 7, 9])
        try tournament.setTeam(7, TournamentTeamChanges(players: [9]), roster: [4, 7, 9])
        try tournament.startMatch(1, at: TournamentSample.start)
        let gather = try XCTUnwrap(tournament.gather(for: 1, id: "g-1", at: TournamentSample.start, by: "ann"))
        XCTAssertEqual(gather.phase, .live)
        XCTAssertEqual(gather.teamA, Team(name: "Reds", players: [4, 7], colour: .yellow))
        XCTAssertEqual(gather.teamB, Team(name: "Pinks", players: [9]))
        XCTAssertEqual(gather.timer, MatchTimer(status: .stopped, durationSeconds: 600))
        XCTAssertEqual(tournament.players(of: 1), [4, 7, 9])
        XCTAssertNil(tournament.gather(for: 13, id: "g-13", at: 0, by: nil), "no gather while a team is unknown")
        let state = GatherState(pitches: [Pitch(id: 1, name: "Pitch 1", gather: gather)])
        let rendered = StatePresenter.json(state, now: TournamentSample.start, protocol: .v2)
        guard case .array(let pitches)? = rendered["pitches"] else { return XCTFail("pitches") }
        let link: JSONValue = ["tournament": "cup-1", "match": 1]
        XCTAssertEqual(pitches[0]["gather"]?["match"], link)
        var entry = HistoryEntry(id: "g-1", endedAt: 0, teamA: .init(name: "Reds", players: []),
                                 teamB: .init(name: "Pinks", players: []), score: Score(A: 1, B: 0))
        XCTAssertNil(StatePresenter.json(entry)["match"], "an ordinary gather has none")
        entry.match = gather.match
        XCTAssertEqual(StatePresenter.json(entry)["match"], link)
        let decoded = try JSONDecoder().decode(HistoryEntry.self, from: JSONEncoder().encode(entry))
        XCTAssertEqual(decoded.match, entry.match)
    }

    func testTheListSaysWhichWereCancelledNewestFirstAsGiven() throws {
        let finished = TournamentSample.eightTeams()
        var cancelled = TournamentSample.eightTeams()
        cancelled.id = "cup-2"
        let list = try JSONValue.parse(TournamentPresenter.list([(cancelled, true), (finished, false)])).get()
        guard case .array(let tournaments)? = list["tournaments"] else { return XCTFail("list") }
        XCTAssertEqual(tournaments.map { $0["id"] }, [.string("cup-2"), .string("cup-1")])
        XCTAssertEqual(tournaments.map { $0["cancelled"] }, [.bool(true), .bool(false)])
        XCTAssertEqual(tournaments[1]["matches"], TournamentPresenter.json(finished)["matches"])
    }

    /// What the tournament adds to every snapshot: a real day (32 teams, 8 groups, 8 pitches, 63
    /// matches) and the largest the contract allows (64 teams in one group: 2,016 group matches).
    func testTheTournamentsShareOfASnapshot() {
        func bytes(teams: Int, groups: Int, pitches: Int, advance: Int) -> Int {
            let tournament = Tournament(id: "0f6d5d6e-8a5b-4bb0-9d0b-3c1a2b4c5d6e", name: "Riverside Cup",
                                        teamNames: (1...teams).map { "Team number \($0)" }, groupCount: groups,
                                        settings: TournamentSettings(startsAt: TournamentSample.start, pitches: Array(1...pitches),
                                                                     advance: advance, thirdPlace: true))
            return TournamentPresenter.document(tournament).count
        }
        let day = bytes(teams: 32, groups: 8, pitches: 8, advance: 2)
        let largest = bytes(teams: 64, groups: 1, pitches: 16, advance: 32)
        print("tournament JSON: 32 teams / 8 groups / 8 pitches \(day) bytes; 64 teams in one group \(largest) bytes")
        XCTAssertLessThan(day, 40_000)
        XCTAssertLessThan(largest, 800_000)
    }
}
