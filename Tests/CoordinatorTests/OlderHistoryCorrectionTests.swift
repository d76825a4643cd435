import GatherCoordinator
import GatherModel
import GatherStore
import XCTest

/// docs/PROTOCOL.md "One result everywhere": a `correctResult` reaches the match's history entry
/// whatever its age — by the end of a long day the group stage's entries have left the state's
/// recent list, and the Store's row and the exports must still follow the correction.
final class OlderHistoryCorrectionTests: TournamentCoordinatorTestCase {
    /// Match 1 (Reds 1–0 Greens on pitch 1) and match 2 played, then `later` ordinary gathers on pitch 1.
    private func playMatchesThenGathers(_ later: Int) throws -> String {
        createCup()
        for (match, pitch, side) in [(1, 1, "A"), (2, 2, "B")] {
            harness.prepare(ann, id: "start \(match)", ["kind": "startMatch", "match": .int(match)])
            harness.prepare(ann, id: "goal \(match)", ["kind": "score", "team": .string(side), "delta": 1, "pitch": .int(pitch)])
            harness.prepare(ann, id: "ft \(match)", ["kind": "endGather", "pitch": .int(pitch)])
        }
        let historyID = try XCTUnwrap(harness.state.tournament?.match(1)?.historyId)
        harness.prepare(ann, id: "ann", ["kind": "addPlayer", "name": "Ann"])
        harness.prepare(ann, id: "bob", ["kind": "addPlayer", "name": "Bob"])
        for game in 0..<later {
            harness.clock.advance(byMs: 10_000)  // a gather at a time, under the commands' rate limit
            harness.prepare(ann, id: "create \(game)", ["kind": "createGather", "pitch": 1, "playerIds": [1, 2]])
            harness.prepare(ann, id: "a \(game)", ["kind": "assign", "pitch": 1, "playerId": 1, "to": "A"])
            harness.prepare(ann, id: "b \(game)", ["kind": "assign", "pitch": 1, "playerId": 2, "to": "B"])
            harness.prepare(ann, id: "kick \(game)", ["kind": "startGather", "pitch": 1])
            harness.prepare(ann, id: "end \(game)", ["kind": "endGather", "pitch": 1])
        }
        return historyID
    }

    func testACorrectionReachesTheStoredEntryOfAMatchPlayedTwentyGathersAgo() throws {
        let historyID = try playMatchesThenGathers(GatherState.recentHistoryLimit)
        XCTAssertFalse(harness.state.history.contains { $0.id == historyID }, "out of the recent list")
        let stored = try XCTUnwrap(try harness.store.historyEntry(id: historyID))
        XCTAssertEqual(stored.score, Score(A: 1, B: 0))

        let before = harness.state
        let version = harness.version + 1
        let now = harness.clock.now
        let effects = harness.message(bob, ["type": "command", "id": "fix 1", "base": .int(harness.version),
                                            "action": ["kind": "correctResult", "match": 1, "score": ["home": 0, "away": 2]]],
                                      exhaustivity: .off)
        var amended = stored
        amended.settle(score: Score(A: 0, B: 2), penalties: nil)
        amended.correctedAt = now
        amended.correctedBy = "bob"
        XCTAssertEqual(amended.winner, .B)
        var expected = before
        try expected.tournament!.correctResult(1, score: HomeAway(home: 0, away: 2), penalties: nil, at: now)
        XCTAssertEqual(harness.state, expected, "the tournament follows; the recent list is as it was")
        XCTAssertEqual(effects, [.publishSnapshot(version: version, state: expected), .exportAmendedHistory([amended]),
                                 .send(bob, .ack(id: "fix 1", version: version))])
        XCTAssertEqual(try harness.store.historyEntry(id: historyID), amended, "the row, in the same commit")
        XCTAssertEqual(try harness.store.allHistory().last, amended, "in its place: the oldest")

        // Said again: the same result changes no entry, so nothing is rewritten or exported.
        let again = harness.message(bob, ["type": "command", "id": "fix 1 again", "base": .int(harness.version),
                                          "action": ["kind": "correctResult", "match": 1, "score": ["home": 0, "away": 2]]],
                                    exhaustivity: .off)
        XCTAssertFalse(again.contains { if case .exportAmendedHistory = $0 { true } else { false } }, "\(again)")

        _ = try harness.restart()
        XCTAssertEqual(try harness.store.historyEntry(id: historyID), amended, "kept across a restart")
    }

    func testAnEntryStillInTheRecentListIsCorrectedThereAndNotExportedTwice() throws {
        let historyID = try playMatchesThenGathers(GatherState.recentHistoryLimit - 2)
        XCTAssertTrue(harness.state.history.contains { $0.id == historyID })
        let effects = harness.message(bob, ["type": "command", "id": "fix 1", "base": .int(harness.version),
                                            "action": ["kind": "correctResult", "match": 1, "score": ["home": 0, "away": 2]]],
                                      exhaustivity: .off)
        XCTAssertFalse(effects.contains { if case .exportAmendedHistory = $0 { true } else { false } }, "\(effects)")
        XCTAssertEqual(harness.state.history.first { $0.id == historyID }?.score, Score(A: 0, B: 2))
        XCTAssertEqual(try harness.store.historyEntry(id: historyID)?.score, Score(A: 0, B: 2))
    }
}
