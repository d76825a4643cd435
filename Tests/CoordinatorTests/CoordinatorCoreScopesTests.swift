@testable import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherPresenters
import XCTest

/// The parent: routes to the scopes and sums what they decided.
final class CoordinatorCoreScopesTests: XCTestCase {
    func testTheTallyIsTheScopesTalliesSummed() throws {
        let h = try CoordinatorHarness()
        let ann = h.organiser(1, "ann")
        h.message(ann, ["type": "nonsense"], exhaustivity: .off)
        h.rejected(ann, id: "c1", ["kind": "removePlayer", "playerId": 9], code: .notFound)
        h.prepare(ann, id: "c2", ["kind": "addPlayer", "name": "Ann"])
        let core = h.coreForAdmin
        XCTAssertEqual(h.tally, DecisionTally.combined([core.ownTally, core.accounts.tally, core.match.tally]))
        XCTAssertEqual(h.tally.commandsApplied, 1)
        XCTAssertEqual(h.tally.rejectionsByCode, [RejectionCode.notFound.rawValue: 1])
        XCTAssertEqual(core.match.tally.commandsApplied, 1)
        XCTAssertEqual(core.ownTally.errorsByCode.values.reduce(0, +), 1, "the unreadable message is the parent's")
    }
}

/// The Coordinator's own bucket (docs/PROTOCOL.md §2.5): taken when a message is handled, so it
/// never runs dry first while the queue keeps up, and refuses what a stall piled up beyond 100.
final class CoordinatorBucketTests: XCTestCase {
    private func add(_ h: CoordinatorHarness, _ client: ConnectionID, _ index: Int) -> [Effect] {
        h.message(client, ["type": "command", "id": .string("c\(index)"), "base": .int(h.version),
                           "action": ["kind": "addPlayer", "name": .string("Player \(index)")]], exhaustivity: .off)
    }

    func testWhileTheQueueKeepsUpAtTheTransportsRateNothingIsRefused() throws {
        let h = try CoordinatorHarness()
        let ann = h.organiser(1, "ann")
        // The Transport lets through at most 20 a second once its burst is spent; handled as they
        // come, 180 of them (9 s, nearly twice the burst) are all applied.
        for index in 1...180 {
            h.clock.advance(byMs: 50)
            XCTAssertTrue(add(h, ann, index).contains(.send(ann, .ack(id: "c\(index)", version: h.version))), "c\(index)")
        }
        XCTAssertEqual(h.tally.rejectionsByCode, [:])
    }

    func testABacklogHandledInOneGoAfterAStallIsRefusedBeyondTheBurstAndNotRemembered() throws {
        let h = try CoordinatorHarness()
        let ann = h.organiser(1, "ann")  // the register took one token
        // The most one TLS connection may have waiting (128), handled in the same instant.
        var refused: [Int] = []
        for index in 1...128 {
            let effects = add(h, ann, index)
            if effects == [.send(ann, .rejected(id: "c\(index)", rejection: Rejection(
                .rateLimited, .tooManyCommands, "Too many commands at once; wait a moment and try again."), version: h.version))] {
                refused.append(index)
            } else {
                XCTAssertTrue(effects.contains(.send(ann, .ack(id: "c\(index)", version: h.version))), "c\(index)")
            }
        }
        XCTAssertEqual(refused, Array(100...128), "99 applied, the last 29 refused")
        XCTAssertEqual(h.state.players.count, 99)
        h.clock.advance(byMs: 50)
        let effects = add(h, ann, 100)
        XCTAssertTrue(effects.contains(.send(ann, .ack(id: "c100", version: h.version))), "resent with the same id: \(effects)")
    }
}
