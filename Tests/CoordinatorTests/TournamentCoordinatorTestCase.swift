import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherPresenters
import GatherStore
import XCTest

/// What the tournament scope's tests share: two organisers signed in, a small cup to create, and a
/// step that asserts the whole next state of a command that draws a new id.
class TournamentCoordinatorTestCase: XCTestCase {
    var harness: CoordinatorHarness!
    var ann: ConnectionID!
    var bob: ConnectionID!

    override func setUpWithError() throws {
        harness = try CoordinatorHarness()
        ann = harness.organiser(1, "ann")
        bob = harness.organiser(2, "bob")
        harness.clock.advance(byMs: 1000)
        harness.send(.presenceWoke, expect: [.publishPresence(organisers: ["ann", "bob"], spectators: 0)])
    }

    /// Four teams in two groups of two, one through each, on `pitches`: group matches 1 (A: Reds v
    /// Greens) and 2 (B: Blues v Golds), then the final (match 3, A1 v B1).
    static func cup(pitches: [Int] = [1, 2], groups: Int = 2) -> JSONValue {
        ["kind": "createTournament", "name": "Riverside Cup", "teams": ["Reds", "Blues", "Greens", "Golds"],
         "groups": .int(groups), "advance": 1, "matchMinutes": 10, "breakMinutes": 5, "startsAt": .int(Int(CoordinatorHarness.start)),
         "pitches": .array(pitches.map { .int($0) })]
    }

    /// Sends a command that draws a new id (a tournament or a match's gather), then asserts the
    /// whole next state — `update` gets the drawn id — and exactly a snapshot and the ack.
    func commandDrawingID(_ client: ConnectionID, id: String, base: Int? = nil, _ action: JSONValue,
                                  update: (inout GatherState, String) -> Void, file: StaticString = #filePath,
                                  line: UInt = #line) {
        let before = harness.state
        let version = harness.version + 1
        let effects = harness.message(client, ["type": "command", "id": .string(id), "base": .int(base ?? harness.version),
                                               "action": action], exhaustivity: .off, file: file, line: line)
        let known = Set(before.pitches.compactMap(\.gather?.id))
        let drawn = harness.state.pitches.compactMap(\.gather?.id).first { !known.contains($0) }
            ?? harness.state.tournament?.id ?? ""
        var expected = before
        update(&expected, drawn)
        XCTAssertEqual(harness.state, expected, "whole state", file: file, line: line)
        XCTAssertEqual(effects, [.publishSnapshot(version: version, state: expected), .send(client, .ack(id: id, version: version))],
                       file: file, line: line)
    }

    func createCup(pitches: [Int] = [1, 2]) {
        if pitches.contains(2), harness.state.pitch(2) == nil {
            harness.prepare(ann, id: "pitch-2", ["kind": "addPitch", "name": "Back pitch"])
        }
        harness.prepare(ann, id: "cup", Self.cup(pitches: pitches))
    }
}
