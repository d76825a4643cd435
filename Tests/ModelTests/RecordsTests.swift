import GatherModel
import GatherModelTestSupport
import XCTest

/// docs/PROTOCOL.md "Players' records", "Fair teams" and "Limits against abuse": what ending a
/// gather does to every player, how balanceTeams splits a squad, and the caps on the roster, a
/// gather and names.
final class RecordsTests: XCTestCase {
    private let start = GatherTestStore.start

    /// Ann (professional, 1400), Bob (amateur, 1200), Cid (beginner, 1000), Dan (no skill, 1200),
    /// Eve (beginner, 1000), Fay (professional, 1400).
    private let squad: [Player] = [
        Player(id: 1, name: "Ann", skill: .professional), Player(id: 2, name: "Bob", skill: .amateur),
        Player(id: 3, name: "Cid", skill: .beginner), Player(id: 4, name: "Dan"),
        Player(id: 5, name: "Eve", skill: .beginner), Player(id: 6, name: "Fay", skill: .professional),
    ]

    private func lineup(_ name: String, _ ids: [Player.ID]) -> HistoryEntry.Lineup {
        HistoryEntry.Lineup(name: name, players: ids.map { HistoryEntry.PlayerName(id: $0, name: squad[$0 - 1].name) })
    }

    // MARK: - Ending a gather

    func testEndingAGatherMovesEveryPlayersRatingAndStatsAndFilesItsPitchAndGoals() {
        // On pitch 2 "Cage": Ann, Bob, Cid (Team A) against Dan and Fay (Team B), Eve on the bench;
        // live since `start` with the timer running for 10:00.
        var gather = ActiveGather(id: "g-cage", phase: .live, bench: [5])
        gather.teamA.players = [1, 2, 3]
        gather.teamB.players = [4, 6]
        gather.timer = MatchTimer(status: .running, durationSeconds: 600, endsAt: start + 600_000)
        gather.events = [GatherEvent(seq: 1, kind: .kickoff, at: start, by: "ann"),
                         GatherEvent(seq: 2, kind: .timerStarted, at: start, matchMs: 0, by: "ann")]
        let store = GatherTestStore(GatherState(players: squad, pitches: [Pitch(id: 1, name: "Pitch 1"),
                                                                          Pitch(id: 2, name: "Cage", gather: gather)],
                                                nextPlayerID: 7, nextPitchID: 3))

        store.advance(byMs: 60_000)
        store.send(json: ["kind": "score", "team": "B", "delta": 1, "playerId": 6, "assistId": 4, "pitch": 2]) { state in
            state.pitches[1].gather!.score.B = 1
            state.pitches[1].gather!.events.append(.goal(seq: 3, team: .B, at: self.start + 60_000, matchMs: 60_000,
                                                         by: "ann", playerId: 6, assistId: 4))
        }
        store.advance(byMs: 60_000)
        store.send(json: ["kind": "score", "team": "A", "delta": 1, "playerId": 2, "pitch": 2]) { state in
            state.pitches[1].gather!.score.A = 1
            state.pitches[1].gather!.events.append(.goal(seq: 4, team: .A, at: self.start + 120_000, matchMs: 120_000,
                                                         by: "ann", playerId: 2))
        }
        store.advance(byMs: 5000)
        store.send(json: ["kind": "score", "team": "A", "delta": -1, "pitch": 2]) { state in
            state.pitches[1].gather!.score.A = 0
            state.pitches[1].gather!.events[3].cancelled = true
            state.pitches[1].gather!.events.append(GatherEvent(seq: 5, kind: .goalCancelled, team: .A,
                                                               at: self.start + 125_000, matchMs: 125_000, by: "ann",
                                                               cancels: 4))
        }
        store.advance(byMs: 55_000)
        store.send(json: ["kind": "score", "team": "A", "delta": 1, "playerId": 1, "assistId": 3, "pitch": 2]) { state in
            state.pitches[1].gather!.score.A = 1
            state.pitches[1].gather!.events.append(.goal(seq: 6, team: .A, at: self.start + 180_000, matchMs: 180_000,
                                                         by: "ann", playerId: 1, assistId: 3))
        }
        store.advance(byMs: 120_000)
        store.send(json: ["kind": "score", "team": "A", "delta": 1, "pitch": 2]) { state in
            state.pitches[1].gather!.score.A = 2
            state.pitches[1].gather!.events.append(.goal(seq: 7, team: .A, at: self.start + 300_000, matchMs: 300_000,
                                                         by: "ann"))
        }
        store.send(json: ["kind": "setScorer", "seq": 7, "playerId": 3, "assistId": 2, "pitch": 2]) { state in
            state.pitches[1].gather!.events[6].playerId = 3
            state.pitches[1].gather!.events[6].assistId = 2
        }
        store.advance(byMs: 290_000)
        store.send(json: ["kind": "endGather", "pitch": 2]) { state in
            state.pitches[1].gather = nil
            state.history = [HistoryEntry(
                id: "g-cage", endedAt: self.start + 590_000, pitch: PitchReference(id: 2, name: "Cage"),
                teamA: self.lineup("Team A", [1, 2, 3]), teamB: self.lineup("Team B", [4, 6]),
                score: Score(A: 2, B: 1),
                // Bob's goal #4 was taken back: only the three that stand, with their names.
                goals: [.init(team: .B, playerId: 6, assistId: 4, matchMs: 60_000),
                        .init(team: .A, playerId: 1, assistId: 3, matchMs: 180_000),
                        .init(team: .A, playerId: 3, assistId: 2, matchMs: 300_000)])]
            // Team A's mean (1400 + 1200 + 1000) / 3 = 1200, Team B's (1200 + 1400) / 2 = 1300.
            // E_A = 1 / (1 + 10^((1300 − 1200) / 400)) = 1 / (1 + 1.778279) = 0.359935; A won (S = 1):
            // Δ_A = round(32 × 0.640065) = round(20.482) = +20. E_B = 0.640065, S = 0:
            // Δ_B = round(−20.482) = −20. Eve, on the bench, did not play.
            state.players[0].rating = 1420
            state.players[0].stats = PlayerStats(games: 1, wins: 1, goals: 1)
            state.players[1].rating = 1220
            state.players[1].stats = PlayerStats(games: 1, wins: 1, assists: 1)
            state.players[2].rating = 1020
            state.players[2].stats = PlayerStats(games: 1, wins: 1, goals: 1, assists: 1)
            state.players[3].rating = 1180
            state.players[3].stats = PlayerStats(games: 1, losses: 1, assists: 1)
            state.players[5].rating = 1380
            state.players[5].stats = PlayerStats(games: 1, losses: 1, goals: 1)
            state.pitches[1].lastResult = state.history[0]
        }
        XCTAssertEqual(store.state.players[4], Player(id: 5, name: "Eve", skill: .beginner), "the bench is unchanged")
        XCTAssertEqual(store.state.history[0].winner, .A)
    }

    func testACancelledGatherCountsForNobody() {
        var gather = ActiveGather(id: "g", phase: .live, bench: [])
        gather.teamA.players = [1]
        gather.teamB.players = [2]
        gather.score = Score(A: 3, B: 0)
        let store = GatherTestStore(GatherState(players: squad, gather: gather, nextPlayerID: 7))
        store.send(.cancelGather) { state in
            state.gather = nil
        }
    }

    func testEditingTheSkillMovesTheRatingOnlyUntilThePlayerHasPlayed() {
        var players = squad
        players[0].rating = 1420
        players[0].stats = PlayerStats(games: 1, wins: 1)
        let store = GatherTestStore(GatherState(players: players, nextPlayerID: 7))
        store.send(json: ["kind": "editPlayer", "playerId": 1, "skill": "beginner"]) { state in
            state.players[0].skill = .beginner  // one game played: the rating is the results' now
        }
        store.send(json: ["kind": "editPlayer", "playerId": 5, "skill": "professional"]) { state in
            state.players[4].skill = .professional
            state.players[4].rating = 1400
        }
        store.send(json: ["kind": "editPlayer", "playerId": 5, "skill": nil]) { state in
            state.players[4].skill = nil
            state.players[4].rating = 1200
        }
        store.send(json: ["kind": "editPlayer", "playerId": 5, "age": 30]) { state in
            state.players[4].age = 30
        }
        store.send(json: ["kind": "addPlayer", "name": "Gus", "skill": "beginner"]) { state in
            state.players.append(Player(id: 7, name: "Gus", skill: .beginner, rating: 1000))
            state.nextPlayerID = 8
        }
    }

    // MARK: - Fair teams

    func testBalancingSplitsGoalkeepersThenRatingsAndEmptiesTheBench() {
        var players = Array(squad.prefix(4))
        players[1].position = .goalkeeper
        players[3].position = .goalkeeper
        let store = GatherTestStore(GatherState(players: players, nextPlayerID: 5))
        store.send(.createGather(playerIDs: [4, 3, 2, 1])) { state in
            state.gather = ActiveGather(id: "gather-1", bench: [4, 3, 2, 1])
        }
        store.send(.assign(3, to: .A)) { state in
            state.gather!.bench = [4, 2, 1]
            state.gather!.teamA.players = [3]
        }
        // Ann 1400, Bob 1200 (keeper), Cid 1000, Dan 1200 (keeper), 4800 in all. {Ann, Cid} against
        // {Bob, Dan} would be 2400–2400, but puts both keepers on one side. With one keeper each,
        // {Ann, Bob}–{Cid, Dan} and {Ann, Dan}–{Bob, Cid} are both 2600–2200: 400 apart; reading ids
        // 1…4, AABB comes before ABBA, so Ann and Bob are Team A.
        store.send(json: ["kind": "balanceTeams"]) { state in
            state.gather!.teamA.players = [1, 2]
            state.gather!.teamB.players = [3, 4]
            state.gather!.bench = []
            state.gather!.events = [GatherEvent(seq: 1, kind: .teamsBalanced, at: self.start, by: "ann", difference: 400)]
        }
        let candidates = players.map { BalanceCandidate(id: $0.id, rating: $0.rating, isGoalkeeper: $0.position == .goalkeeper) }
        XCTAssertEqual(TeamBalancer.balance(candidates), BalancedTeams(teamA: [1, 2], teamB: [3, 4], difference: 400))
        store.send(.startGather) { state in
            state.gather!.phase = .live
            state.gather!.events.append(GatherEvent(seq: 2, kind: .kickoff, at: self.start, by: "ann"))
        }
        store.reject(json: ["kind": "balanceTeams"], code: .wrongPhase, messageContains: "before kick-off")
    }

    func testBalancingUsesRatingsNotSkillsAndMatchesTheBalancerOnAnyPitch() {
        // Nine players whose results moved them away from their skill's starting rating.
        let ratings = [1510, 1180, 990, 1240, 1105, 1330, 1275, 1010, 1420]
        let players = ratings.enumerated().map { index, rating in
            Player(id: index + 1, name: "P\(index + 1)", skill: .amateur, position: index % 4 == 0 ? .goalkeeper : .winger,
                   rating: rating, stats: PlayerStats(games: 3, wins: 1, draws: 1, losses: 1))
        }
        var state = GatherState(players: players, nextPlayerID: 10)
        state.pitches.append(Pitch(id: 2, name: "Cage", gather: ActiveGather(id: "g", bench: [9, 7, 5, 3, 1, 2, 4, 6, 8])))
        state.nextPitchID = 3
        let store = GatherTestStore(state)
        let expected = TeamBalancer.balance(players.map {
            BalanceCandidate(id: $0.id, rating: $0.rating, isGoalkeeper: $0.position == .goalkeeper)
        })!
        XCTAssertEqual(expected.teamA.count + expected.teamB.count, 9)
        store.send(json: ["kind": "balanceTeams", "pitch": 2]) { state in
            state.pitches[1].gather!.teamA.players = expected.teamA
            state.pitches[1].gather!.teamB.players = expected.teamB
            state.pitches[1].gather!.bench = []
            state.pitches[1].gather!.events = [GatherEvent(seq: 1, kind: .teamsBalanced, at: self.start, by: "ann",
                                                           difference: expected.difference)]
        }
        let sums = [expected.teamA, expected.teamB].map { $0.map { ratings[$0 - 1] }.reduce(0, +) }
        XCTAssertEqual(abs(sums[0] - sums[1]), expected.difference)
    }

    func testBalancingNeedsAGatherOfAtLeastTwo() {
        let store = GatherTestStore(GatherState(players: squad, nextPlayerID: 7))
        store.reject(json: ["kind": "balanceTeams"], code: .wrongPhase)
        store.send(.createGather(playerIDs: [1, 2])) { state in
            state.gather = ActiveGather(id: "gather-1", bench: [1, 2])
        }
        store.send(.assign(2, to: .out)) { state in
            state.gather!.bench = [1]
        }
        store.reject(json: ["kind": "balanceTeams"], code: .invalid, messageContains: "at least two")
    }

    // MARK: - Caps

    func testTheRosterHoldsAtMostTwoHundredPlayers() {
        let full = GatherState(players: (1...200).map { Player(id: $0, name: "P\($0)") }, nextPlayerID: 201)
        let store = GatherTestStore(full)
        store.reject(json: ["kind": "addPlayer", "name": "One too many"], code: .outOfRange, messageContains: "200")
        store.send(.removePlayer(17)) { state in
            state.players.remove(at: 16)
        }
        store.send(json: ["kind": "addPlayer", "name": "Newcomer"]) { state in
            state.players.append(Player(id: 201, name: "Newcomer"))
            state.nextPlayerID = 202
        }
    }

    func testAGatherHoldsAtMostSixtyPlayers() {
        let store = GatherTestStore(GatherState(players: (1...61).map { Player(id: $0, name: "P\($0)") },
                                                nextPlayerID: 62))
        store.reject(json: ["kind": "createGather", "playerIds": .array((1...61).map { .int($0) })],
                     code: .outOfRange, messageContains: "60")
        store.send(json: ["kind": "createGather", "playerIds": .array((1...60).map { .int($0) })]) { state in
            state.gather = ActiveGather(id: "gather-1", bench: Array(1...60))
        }
        for placement in [Placement.A, .B, .bench] {
            store.reject(.assign(61, to: placement), code: .outOfRange, messageContains: "60")
        }
        // Moving someone already in the full gather adds nobody.
        store.send(.assign(60, to: .A)) { state in
            state.gather!.bench = Array(1...59)
            state.gather!.teamA.players = [60]
        }
        store.send(.assign(1, to: .out)) { state in
            state.gather!.bench = Array(2...59)
        }
        store.send(.assign(61, to: .B)) { state in
            state.gather!.teamB.players = [61]
        }
    }

    // MARK: - Names

    func testANameIsLimitedInBytesAsWellAsCharacters() {
        let store = GatherTestStore()
        // 50 characters, each an "e" under 200 combining acute accents: 50 × (1 + 200 × 2) bytes.
        let heavy = String(repeating: "e" + String(repeating: "\u{301}", count: 200), count: 50)
        XCTAssertEqual(heavy.count, 50)
        store.reject(json: ["kind": "addPlayer", "name": .string(heavy)], code: .invalid, messageContains: "too long")
        store.reject(json: ["kind": "addPitch", "name": .string("e" + String(repeating: "\u{301}", count: 200))],
                     code: .invalid)
        // 50 emoji of 4 bytes each are 200 bytes: exactly the limit.
        let emoji = String(repeating: "\u{1F600}", count: 50)
        store.send(json: ["kind": "addPlayer", "name": .string(emoji)]) { state in
            state.players = [Player(id: 1, name: emoji)]
            state.nextPlayerID = 2
        }
        store.reject(json: ["kind": "addPlayer", "name": .string(emoji + "\u{1F600}")], code: .invalid)
    }

    func testInvisibleFormattingCharactersAreRefusedInEveryName() {
        let store = GatherTestStore.setUpGather()
        // U+202E turns the rest of the line around; U+200B is nothing at all, so "Ann" and "A​nn" differ.
        for name in ["Ann\u{202E}nimda", "A\u{200B}nn", "\u{200B}", "Bob\u{2066}"] {
            store.reject(json: ["kind": "addPlayer", "name": .string(name)], code: .invalid, messageContains: "invisible")
            store.reject(json: ["kind": "editPlayer", "playerId": 1, "name": .string(name)], code: .invalid)
            store.reject(json: ["kind": "addPitch", "name": .string(name)], code: .invalid, messageContains: "invisible")
            store.reject(json: ["kind": "renameTeam", "team": "A", "name": .string(name)], code: .invalid)
            store.reject(json: ["kind": "editPlayer", "playerId": 1, "favouriteTeam": .string(name)], code: .invalid)
        }
        store.reject(json: ["kind": "addPlayer", "name": "Ann\u{0}"], code: .invalid, messageContains: "control")
        store.reject(json: ["kind": "addPitch", "name": "Cage\u{1B}[2J"], code: .invalid, messageContains: "control")
    }

    /// Issue 20: code points a phone draws as nothing that are not format characters: the
    /// combining grapheme joiner, the Hangul fillers, the blank Braille pattern, variation
    /// selectors (the basic one and a supplementary one).
    func testInvisibleFillersJoinersAndVariationSelectorsAreRefusedInEveryName() {
        let store = GatherTestStore.setUpGather()
        let invisible: [Unicode.Scalar] = ["\u{034F}", "\u{115F}", "\u{1160}", "\u{3164}", "\u{FFA0}", "\u{2800}",
                                           "\u{FE0F}", "\u{E0100}"]
        for scalar in invisible {
            XCTAssertTrue(VisibleText.isInvisible(scalar), "U+\(String(scalar.value, radix: 16))")
            for name in ["Pitch\(scalar) 1", "\(scalar)", "Ann\(scalar)"] {
                store.reject(json: ["kind": "addPlayer", "name": .string(name)], code: .invalid, messageContains: "invisible")
                store.reject(json: ["kind": "editPlayer", "playerId": 1, "name": .string(name)], code: .invalid,
                             messageContains: "invisible")
                store.reject(json: ["kind": "addPitch", "name": .string(name)], code: .invalid, messageContains: "invisible")
                store.reject(json: ["kind": "renameTeam", "team": "A", "name": .string(name)], code: .invalid)
                store.reject(json: ["kind": "editPlayer", "playerId": 1, "favouriteTeam": .string(name)], code: .invalid)
            }
        }
        // Visible letters of other scripts, and emoji without a variation selector, stay welcome.
        for scalar in ["\u{AC00}", "\u{1100}", "\u{2801}", "\u{263A}"] as [Unicode.Scalar] {
            XCTAssertFalse(VisibleText.isInvisible(scalar), "U+\(String(scalar.value, radix: 16))")
        }
    }

    /// Uniqueness is judged on NFKC, case-folded text: full-width letters and ligatures are the
    /// names they look like.
    func testPitchNamesAreComparedInTheirNormalisedForm() {
        XCTAssertEqual(VisibleText.comparisonKey("ＰＩＴＣＨ 1"), VisibleText.comparisonKey("pitch 1"))
        XCTAssertEqual(VisibleText.comparisonKey("\u{FB01}eld"), VisibleText.comparisonKey("FIELD"))
        XCTAssertEqual(VisibleText.comparisonKey("Pitch\u{034F} 1"), VisibleText.comparisonKey("pitch 1"))
        XCTAssertNotEqual(VisibleText.comparisonKey("Pitch 1"), VisibleText.comparisonKey("Pitch 2"))
        let store = GatherTestStore()
        for name in ["ＰＩＴＣＨ 1", "PITCH 1", "Pitch\u{00A0}1"] {
            store.reject(json: ["kind": "addPitch", "name": .string(name)], code: .invalid, messageContains: "already a pitch")
        }
        store.send(json: ["kind": "addPitch", "name": "\u{FB01}eld"]) { state in
            state.pitches.append(Pitch(id: 2, name: "\u{FB01}eld"))
            state.nextPitchID = 3
        }
        store.reject(json: ["kind": "renamePitch", "pitch": 1, "name": "FIELD"], code: .invalid,
                     messageContains: "already a pitch")
    }
}
