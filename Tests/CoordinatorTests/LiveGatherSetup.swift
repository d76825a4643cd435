import GatherCoordinator
import GatherDelivery
import GatherModel
import XCTest

/// The set-up the arbitration and "Sunday" tests share: three players and a live gather on the
/// one pitch, so each test starts from the same game.
extension CoordinatorHarness {
    /// Ann, Bob and Cid added by `organiser`.
    func addThreePlayers(by organiser: ConnectionID) {
        for name in ["Ann", "Bob", "Cid"] {
            prepare(organiser, id: "add-\(name)", ["kind": "addPlayer", "name": .string(name)])
        }
    }

    /// A gather of players 1–3 (1 on A, 2 on B), `beforeStart` steps, then started.
    func startLiveGather(by organiser: ConnectionID, beforeStart: [(String, JSONValue)] = []) {
        let steps: [(String, JSONValue)] = [("g", ["kind": "createGather", "playerIds": [1, 2, 3]]),
                                            ("a", ["kind": "assign", "playerId": 1, "to": "A"]),
                                            ("b", ["kind": "assign", "playerId": 2, "to": "B"])]
        for (id, action) in steps + beforeStart + [("k", ["kind": "startGather"])] {
            prepare(organiser, id: id, action)
        }
    }
}
