import GatherDelivery
import GatherModel
import GatherPresenters
import XCTest

/// docs/PROTOCOL.md: "A `score` change in a gather of 22 players is a patch of at most 512 bytes",
/// measured on the server's own rendering (`StatePresenter`, `JSONWriter`) of a state mid-match,
/// the goal itself made by the rules, so a change to any of them shows here.
final class JSONPatchGoalSizeTests: XCTestCase {
    private static let names = ["Ann", "Bea", "Cal", "Dev", "Eli", "Fin", "Gus", "Hal", "Ivo", "Jon", "Kai",
                                "Lou", "Max", "Ned", "Oli", "Pat", "Quin", "Rex", "Sam", "Tom", "Uma", "Vic"]
    private static let kickOff: Int64 = 1_763_800_000_000

    private static func player(_ index: Int) -> Player {
        Player(id: index + 1, name: names[index] + " Surname", age: 20 + index,
               skill: [.beginner, .amateur, .professional][index % 3],
               position: index % 11 == 0 ? .goalkeeper : [.defender, .midfielder, .striker][index % 3],
               favouriteTeam: "Club \(index % 5)", rating: 1180 + 7 * index,
               stats: PlayerStats(games: index, wins: index / 2, draws: 1, losses: index / 3, goals: index % 4,
                                  assists: index % 3))
    }

    /// 30 events: the kick-off, goals of both teams and timer presses; 10–10.
    private static func events() -> [GatherEvent] {
        var events = [GatherEvent(seq: 1, kind: .kickoff, at: kickOff, by: "organiser1")]
        for seq in 2...30 {
            let matchMs = seq * 60_000
            let at = kickOff + Int64(matchMs)
            switch seq % 3 {
            case 0: events.append(GatherEvent(seq: seq, kind: .goal, team: .A, at: at, matchMs: matchMs, by: "organiser1",
                                              playerId: 1 + seq % 11, assistId: 2 + seq % 10, cancelled: false))
            case 1: events.append(GatherEvent(seq: seq, kind: .goal, team: .B, at: at, matchMs: matchMs, by: "organiser1",
                                              playerId: 12 + seq % 11, cancelled: false))
            default: events.append(GatherEvent(seq: seq, kind: .timerPaused, at: at, matchMs: matchMs, by: "organiser2"))
            }
        }
        return events
    }

    private static func midMatch() -> GatherState {
        let gather = ActiveGather(id: "g-2025-11-22-1", phase: .live,
                                  teamA: Team(name: "Bibs", players: Array(1...11)),
                                  teamB: Team(name: "Shirts", players: Array(12...22)), bench: [],
                                  score: Score(A: 10, B: 10),
                                  timer: MatchTimer(status: .running, durationSeconds: 3600, endsAt: kickOff + 3_600_000),
                                  events: events())
        return GatherState(players: (0..<22).map(player),
                           pitches: [Pitch(id: 1, name: "Pitch 1", gather: gather), Pitch(id: 2, name: "Pitch 2")],
                           nextPlayerID: 23, nextPitchID: 3)
    }

    private struct Refused: Error { let outcome: String }

    /// A goal made by the rules at `madeAt`, and the gather.v2 patch to it from the state rendered
    /// at `renderedAt` (checked to apply).
    private func goal(_ action: Action, on before: GatherState, renderedAt: Int64, madeAt: Int64) throws
        -> (after: GatherState, afterJSON: JSONValue, operations: [PatchOperation])
    {
        var after = before
        let applied = GatherRules.apply(action, to: &after, context: ActionContext(now: madeAt, by: "organiser1"))
        guard case .success = applied else { throw Refused(outcome: "\(applied)") }
        let beforeJSON = StatePresenter.json(before, now: renderedAt, protocol: .v2)
        let afterJSON = StatePresenter.json(after, now: madeAt, protocol: .v2)
        let operations = JSONPatch.diff(from: beforeJSON, to: afterJSON)
        XCTAssertEqual(try JSONPatch.apply(operations, to: beforeJSON), afterJSON)
        return (after, afterJSON, operations)
    }

    func testAGoalInAGatherOf22PlayersIsAPatchOfAtMost512Bytes() throws {
        let beforeAt = Self.kickOff + 1_800_000
        let goalAt = beforeAt + 1_500
        let (after, _, operations) = try goal(.onPitch(1, .score(.A, delta: 1, scorer: 9, assist: 10)),
                                              on: Self.midMatch(), renderedAt: beforeAt, madeAt: goalAt)
        XCTAssertEqual(operations.map(\.path), ["/pitches/0/gather/events/-", "/pitches/0/gather/score/A"])

        let patchBytes = JSONWriter.bytes(.array(operations.map(\.json))).count
        let message = MessagePresenter.bytes(.patch(from: 41, version: 42, operations: operations), protocol: .v2).count
        let snapshotBytes = MessagePresenter.bytes(.snapshot(version: 42, state: after, now: goalAt), protocol: .v2).count
        print("gather.v2 goal patch: \(patchBytes) bytes of ops (\(message) as a message); the snapshot: \(snapshotBytes) bytes")
        XCTAssertLessThanOrEqual(patchBytes, 512)
        XCTAssertGreaterThan(snapshotBytes, 8 * patchBytes, "the state must be big enough for the comparison to mean something")
    }

    /// A tournament day runs a clock on every pitch: a goal on one of eight is that pitch's event and
    /// score, not also the `remainingMs` of seven other clocks (≈ 70 B each, to every spectator), and a
    /// version's gather.v2 state is the same whenever it is rendered (a snapshot made on demand later
    /// equals the one made at the publication), while gather.v1 still says the time left now.
    func testAGoalOnOneOfEightRunningPitchesPatchesOnlyThatPitch() throws {
        var before = Self.midMatch()
        let running = before.pitches[0].gather!
        before.pitches = (1...8).map { id in
            var gather = running
            gather.id = "g-2025-11-22-\(id)"
            gather.timer = MatchTimer(status: .running, durationSeconds: 600, remainingMs: 600_000 - id * 1_000,
                                      endsAt: Self.kickOff + 600_000 + Int64(id) * 7_000)
            return Pitch(id: id, name: "Pitch \(id)", gather: gather)
        }
        before.nextPitchID = 9
        let beforeAt = Self.kickOff + 120_000
        let goalAt = beforeAt + 2_345
        let (after, afterJSON, operations) = try goal(.onPitch(5, .score(.B, delta: 1, scorer: 14, assist: nil)),
                                                      on: before, renderedAt: beforeAt, madeAt: goalAt)
        XCTAssertEqual(operations.map(\.path), ["/pitches/4/gather/events/-", "/pitches/4/gather/score/B"])
        XCTAssertEqual(StatePresenter.json(after, now: goalAt + 61_000, protocol: .v2), afterJSON,
                       "a version's gather.v2 state does not change with the time it is rendered at")

        guard case .array(let pitches) = afterJSON["pitches"], pitches.count == 8 else { return XCTFail("eight pitches") }
        let timer = try XCTUnwrap(pitches[4]["gather"]?["timer"])
        XCTAssertEqual(timer, ["status": "running", "durationSeconds": 600, "remainingMs": 595_000,
                               "endsAt": .int(Int(Self.kickOff) + 600_000 + 35_000)],
                       "the time left when the clock last started, and the end it counts down to")
        let v1Timer = StatePresenter.json(after, now: goalAt, protocol: .v1)["gather"]?["timer"]?["remainingMs"]
        XCTAssertEqual(v1Timer, .int(600_000 + 7_000 - 120_000 - 2_345), "gather.v1: pitch 1's time left now")
    }
}
