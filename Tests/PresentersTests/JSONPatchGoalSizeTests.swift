import GatherModel
import GatherModelTestSupport
import GatherPresenters
import XCTest

/// docs/PROTOCOL.md: "A `score` change in a gather of 22 players is a patch of at most 512 bytes",
/// on a state shaped like the gather.v2 snapshot a phone holds mid-match.
final class JSONPatchGoalSizeTests: XCTestCase {
    private static let names = ["Ann", "Bea", "Cal", "Dev", "Eli", "Fin", "Gus", "Hal", "Ivo", "Jon", "Kai",
                                "Lou", "Max", "Ned", "Oli", "Pat", "Quin", "Rex", "Sam", "Tom", "Uma", "Vic"]
    private static let kickOff = 1_763_800_000_000

    private static func player(_ index: Int) -> JSONValue {
        [
            "id": .int(index + 1), "name": .string(names[index] + " Surname"), "age": .int(20 + index),
            "skill": .string(["beginner", "amateur", "professional"][index % 3]),
            "position": .string(index % 11 == 0 ? "goalkeeper" : ["defender", "midfielder", "striker"][index % 3]),
            "favouriteTeam": .string("Club \(index % 5)"), "rating": .int(1180 + 7 * index),
            "stats": ["games": .int(index), "wins": .int(index / 2), "draws": 1, "losses": .int(index / 3),
                      "goals": .int(index % 4), "assists": .int(index % 3)],
        ]
    }

    private static func goal(seq: Int, team: String, scorer: Int, assist: Int?, matchMs: Int) -> JSONValue {
        [
            "seq": .int(seq), "kind": "goal", "team": .string(team), "at": .int(kickOff + matchMs),
            "matchMs": .int(matchMs), "by": "organiser1", "playerId": .int(scorer),
            "assistId": assist.map(JSONValue.int) ?? nil, "cancelled": false,
        ]
    }

    /// 30 events: the set-up, the kick-off, goals of both teams and timer presses.
    private static func events() -> [JSONValue] {
        var events: [JSONValue] = [["seq": 1, "kind": "created", "at": .int(kickOff - 600_000), "by": "organiser1"]]
        for seq in 2...30 {
            let matchMs = seq * 60_000
            switch seq % 3 {
            case 0: events.append(goal(seq: seq, team: "A", scorer: 1 + seq % 11, assist: 2 + seq % 10, matchMs: matchMs))
            case 1: events.append(goal(seq: seq, team: "B", scorer: 12 + seq % 11, assist: nil, matchMs: matchMs))
            default: events.append(["seq": .int(seq), "kind": "timerPaused", "at": .int(kickOff + matchMs),
                                    "matchMs": .int(matchMs), "by": "organiser2"])
            }
        }
        return events
    }

    private static func state(scoreA: Int, remainingMs: Int, events: [JSONValue]) -> JSONValue {
        let gather: JSONValue = [
            "id": "g-2025-11-22-1", "phase": "live",
            "teams": ["A": ["name": "Bibs", "players": .array((1...11).map { .int($0) })],
                      "B": ["name": "Shirts", "players": .array((12...22).map { .int($0) })]],
            "bench": [],
            "score": ["A": .int(scoreA), "B": 10],
            "timer": ["status": "running", "durationSeconds": 3600, "remainingMs": .int(remainingMs),
                      "endsAt": .int(kickOff + 3_600_000)],
            "events": .array(events),
        ]
        return [
            "players": .array((0..<22).map(player)),
            "pitches": [["id": 1, "name": "Pitch 1", "gather": gather], ["id": 2, "name": "Pitch 2", "gather": nil]],
            "history": [],
        ]
    }

    func testAGoalInAGatherOf22PlayersIsAPatchOfAtMost512Bytes() throws {
        let before = Self.state(scoreA: 10, remainingMs: 1_800_000, events: Self.events())
        let goal = Self.goal(seq: 31, team: "A", scorer: 9, assist: 10, matchMs: 1_801_500)
        let after = Self.state(scoreA: 11, remainingMs: 1_798_500, events: Self.events() + [goal])

        let operations = JSONPatch.diff(from: before, to: after)
        XCTAssertEqual(operations, [
            .add(path: "/pitches/0/gather/events/-", value: goal),
            .replace(path: "/pitches/0/gather/score/A", value: 11),
            .replace(path: "/pitches/0/gather/timer/remainingMs", value: 1_798_500),
        ])
        XCTAssertEqual(try JSONPatch.apply(operations, to: before), after)

        let patchBytes = CompactJSON.encode(.array(operations.map(\.json))).utf8.count
        let snapshotBytes = CompactJSON.encode(after).utf8.count
        print("gather.v2 goal patch: \(patchBytes) bytes of ops; the snapshot: \(snapshotBytes) bytes")
        XCTAssertLessThanOrEqual(patchBytes, 512)
        XCTAssertGreaterThan(snapshotBytes, 8 * patchBytes, "the state must be big enough for the comparison to mean something")
    }
}
