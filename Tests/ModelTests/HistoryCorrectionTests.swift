import Foundation
import GatherModel
import GatherModelTestSupport
import XCTest

/// docs/PROTOCOL.md "One result everywhere": a tournament match's history entry carries its
/// shoot-out and winner, and `correctResult` corrects the entry and the players' records with it.
final class HistoryCorrectionTests: XCTestCase {
    private let start = GatherTestStore.start

    /// Ann (1) plays for Reds, Cid (3) for Greens: group A's only match, match 1 on pitch 1.
    private func cup() throws -> GatherState {
        var state = GatherState.roster("Ann", "Bob", "Cid", "Dan")
        try apply(["kind": "createTournament", "name": "Cup", "teams": ["Reds", "Blues", "Greens", "Golds"],
                   "groups": 2, "advance": 1, "matchMinutes": 10, "breakMinutes": 5, "startsAt": .int(Int(start)),
                   "pitches": [1]], to: &state, id: "cup")
        try apply(["kind": "setTournamentTeam", "team": 1, "players": [1]], to: &state)
        try apply(["kind": "setTournamentTeam", "team": 3, "players": [3]], to: &state)
        return state
    }

    /// Match 1 started, `home`–`away` scored (unnamed scorers) and ended.
    private func play(_ state: inout GatherState, _ home: Int, _ away: Int) throws {
        try apply(["kind": "startMatch", "match": 1], to: &state, id: "match-1")
        for (side, goals) in [("A", home), ("B", away)] {
            for _ in 0..<goals { try apply(["kind": "score", "team": .string(side), "delta": 1], to: &state) }
        }
        try apply(["kind": "endGather"], to: &state, at: start + 600_000)
    }

    private func apply(_ json: JSONValue, to state: inout GatherState, id: String = "", at now: Int64? = nil,
                       file: StaticString = #filePath, line: UInt = #line) throws {
        let action = try ActionDecoder.decode(json).get()
        let context = ActionContext(now: now ?? start, by: "ann", newGatherID: id)
        try GatherRules.apply(action, to: &state, context: context).get()
    }

    func testACorrectedResultIsTheHistorysAndThePlayersRecordsAsIfItHadBeenPlayed() throws {
        var corrected = try cup()
        try play(&corrected, 1, 0)
        let played = try XCTUnwrap(corrected.history.first)
        XCTAssertEqual(played.winner, .A)
        XCTAssertEqual(corrected.player(1)?.stats.wins, 1)
        try apply(["kind": "correctResult", "match": 1, "score": ["home": 1, "away": 1]], to: &corrected,
                  at: start + 900_000)

        let entry = try XCTUnwrap(corrected.history.first)
        XCTAssertEqual(entry.id, played.id)
        XCTAssertEqual(entry.score, Score(A: 1, B: 1))
        XCTAssertEqual(entry.winner, .draw)
        XCTAssertNil(entry.penalties)
        XCTAssertEqual(entry.correctedAt, start + 900_000)
        XCTAssertEqual(entry.correctedBy, "ann")
        XCTAssertEqual(entry.goals, played.goals, "the goals that were scored stay")
        XCTAssertEqual(corrected.pitches[0].lastResult, entry, "the pitch's full time follows")

        var drawn = try cup()
        try play(&drawn, 1, 1)
        XCTAssertEqual(corrected.players, drawn.players, "records (and ratings) as if 1–1 had been played")
    }

    /// The entry has left the state's recent list (here: dropped from it, as 20 later gathers
    /// would); handed in as the Store keeps it, it comes back corrected, and the records follow.
    func testACorrectionReachesAnEntryTheStateNoLongerCarries() throws {
        var state = try cup()
        try play(&state, 1, 0)
        let stored = state.history.removeFirst()
        let correction = try ActionDecoder.decode(["kind": "correctResult", "match": 1, "score": ["home": 1, "away": 1]]).get()
        XCTAssertEqual(GatherRules.storedHistoryNeeded(by: correction, in: state), stored.id)
        let context = ActionContext(now: start + 900_000, by: "bob")

        var without = state
        XCTAssertNil(try GatherRules.apply(correction, to: &without, context: context, stored: nil).get())
        XCTAssertEqual(without.players, state.players, "without the entry the records cannot move")

        let amended = try XCTUnwrap(try GatherRules.apply(correction, to: &state, context: context, stored: stored).get())
        XCTAssertEqual(amended.id, stored.id)
        XCTAssertEqual(amended.score, Score(A: 1, B: 1))
        XCTAssertEqual(amended.winner, .draw)
        XCTAssertEqual(amended.correctedAt, start + 900_000)
        XCTAssertEqual(amended.correctedBy, "bob")
        XCTAssertEqual(amended.goals, stored.goals)
        XCTAssertTrue(state.history.isEmpty, "the state's recent list does not take it back")
        XCTAssertEqual(state.pitches[0].lastResult, amended, "pitch 1 still shows it at full time")
        XCTAssertEqual(state.tournament?.match(1)?.score, HomeAway(home: 1, away: 1))
        var drawn = try cup()
        try play(&drawn, 1, 1)
        XCTAssertEqual(state.players, drawn.players, "records (and ratings) as if 1–1 had been played")

        // The same result again: nothing to rewrite.
        let again = try ActionDecoder.decode(["kind": "correctResult", "match": 1, "score": ["home": 1, "away": 1]]).get()
        var unchanged = state
        XCTAssertNil(try GatherRules.apply(again, to: &unchanged, context: context, stored: amended).get())
        XCTAssertEqual(unchanged.players, state.players)
        XCTAssertEqual(unchanged.pitches, state.pitches)
        // An entry the state carries is never asked for.
        XCTAssertNil(GatherRules.storedHistoryNeeded(by: again, in: drawn))
    }

    func testCorrectingToTheSameResultChangesNothing() throws {
        var state = try cup()
        try play(&state, 2, 0)
        let before = state.history
        try apply(["kind": "correctResult", "match": 1, "score": ["home": 2, "away": 0]], to: &state)
        XCTAssertEqual(state.history, before)
        XCTAssertNil(state.history[0].correctedAt)
    }

    func testAShootOutDecidesTheWinnerAndALevelScoreWithoutOneIsADraw() {
        var entry = HistoryEntry(id: "h", endedAt: 0, teamA: .init(name: "Olympique", players: []),
                                 teamB: .init(name: "Atlético", players: []), score: Score(A: 2, B: 2))
        XCTAssertEqual(entry.winner, .draw)
        entry.settle(score: Score(A: 2, B: 2), penalties: Score(A: 4, B: 3))
        XCTAssertEqual(entry.winner, .A)
        XCTAssertEqual(entry.penalties, Score(A: 4, B: 3))
        entry.settle(score: Score(A: 2, B: 2), penalties: Score(A: 4, B: 5))
        XCTAssertEqual(entry.winner, .B)
        entry.settle(score: Score(A: 3, B: 2), penalties: Score(A: 4, B: 5))
        XCTAssertEqual(entry.winner, .A, "a score that is not level is decided by the score")
        XCTAssertNil(entry.penalties, "and keeps no shoot-out")
    }

    func testAnEntryStoredBeforePenaltiesReadsWithoutThem() throws {
        let json = #"{"id":"h","endedAt":1,"teamA":{"name":"A","players":[]},"teamB":{"name":"B","players":[]},"#
            + #""score":{"A":1,"B":1},"winner":"draw","goals":[]}"#
        let entry = try JSONDecoder().decode(HistoryEntry.self, from: Data(json.utf8))
        XCTAssertNil(entry.penalties)
        XCTAssertNil(entry.correctedAt)
        XCTAssertNil(entry.correctedBy)
        XCTAssertEqual(entry.winner, .draw)
    }
}
