import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherModelTestSupport
import GatherPresenters
import GatherStore
import XCTest

/// The journal and the stored replies are pruned to what exactly-once and arbitration need:
/// the last `journalKept` changes and each organiser's last `repliesKeptPerOrganiser` answers.
/// Small limits here, so the rule shows in a few commands; real SQLite, restarts included.
final class PruningTests: XCTestCase {
    private var harness: CoordinatorHarness!
    private var ann: ConnectionID!
    private var bob: ConnectionID!

    override func setUpWithError() throws {
        var limits = CoordinatorEnvironment.Limits()
        limits.journalKept = 6
        limits.repliesKeptPerOrganiser = 4
        limits.pruneEvery = 3
        harness = try CoordinatorHarness(limits: limits)
        ann = harness.organiser(1, "ann")
        bob = harness.organiser(2, "bob")
    }

    private func edit(_ client: ConnectionID, id: String, base: Int? = nil, age: Int) -> [Effect] {
        harness.message(client, ["type": "command", "id": .string(id), "base": .int(base ?? harness.version),
                                 "action": ["kind": "editPlayer", "playerId": 1, "age": .int(age)]],
                        exhaustivity: .off)
    }

    /// After a restart the core knows no connection: the organiser logs in again on a new one.
    private func rejoin(_ number: UInt64, _ username: String) -> ConnectionID {
        let client = harness.connect(number)
        _ = harness.message(client, ["type": "login", "username": .string(username), "password": "correct horse"],
                            exhaustivity: .off)
        _ = harness.send(.passwordChecked(PasswordJob(client: client, purpose: .login, username: username,
                                                      password: "correct horse", requestID: nil), matches: true),
                         exhaustivity: .off)
        return client
    }

    private func answer(_ effects: [Effect]) -> ServerMessage? {
        for effect in effects { if case .send(_, let message) = effect { return message } }
        return nil
    }

    func testARecentIdIsStillAnsweredOnceAfterPruningAndARestart() throws {
        harness.prepare(ann, id: "add", ["kind": "addPlayer", "name": "Ann"])
        for round in 1...9 { _ = edit(ann, id: "e\(round)", age: 20 + round) }
        let version = harness.version
        _ = try harness.restart()  // start() prunes too
        let again = rejoin(9, "ann")
        // e9 is among ann's last four answers: resent, it is answered with its original version.
        XCTAssertEqual(answer(edit(again, id: "e9", age: 99)), .ack(id: "e9", version: version))
        XCTAssertEqual(harness.version, version, "a remembered id is not applied again")
        XCTAssertEqual(harness.state.player(1)?.age, 29)
    }

    func testAConflictFromAKeptBaseIsStillFoundAfterARestart() throws {
        harness.prepare(ann, id: "add", ["kind": "addPlayer", "name": "Ann"])
        for round in 1...4 { _ = edit(ann, id: "a\(round)", age: 30 + round) }
        let base = harness.version - 1
        _ = try harness.restart()
        let rejected = answer(edit(rejoin(8, "bob"), id: "late", base: base, age: 50))
        guard case .rejected(_, let rejection, _)? = rejected else { return XCTFail("\(String(describing: rejected))") }
        XCTAssertEqual(rejection.code, .conflict)
        XCTAssertTrue(rejection.message.contains("ann changed"), rejection.message)
    }

    func testABaseOlderThanTheJournalIsAConflictNotAGuess() throws {
        harness.prepare(ann, id: "add", ["kind": "addPlayer", "name": "Ann"])
        let ancient = harness.version
        for round in 1...12 { _ = edit(ann, id: "b\(round)", age: 40 + round) }
        _ = try harness.restart()
        let bob = rejoin(8, "bob")
        let before = harness.state
        // Bob's change touches a different subject, but nobody can tell any more: refused.
        let rejected = answer(harness.message(bob, ["type": "command", "id": "old", "base": .int(ancient),
                                                    "action": ["kind": "addPlayer", "name": "Zed"]],
                                              exhaustivity: .off))
        guard case .rejected(_, let rejection, _)? = rejected else { return XCTFail("\(String(describing: rejected))") }
        XCTAssertEqual(rejection.code, .conflict)
        XCTAssertTrue(rejection.message.contains("too far behind"), rejection.message)
        XCTAssertEqual(harness.state, before)
    }

    func testTheStoreKeepsTheNewestJournalAndEachOrganisersNewestReplies() throws {
        let store = harness.store
        harness.prepare(ann, id: "add", ["kind": "addPlayer", "name": "Ann"])
        for round in 1...7 { _ = edit(ann, id: "c\(round)", age: 20 + round) }
        for round in 1...2 { _ = edit(bob, id: "d\(round)", age: 60 + round) }
        try store.prune(journalKept: 6, repliesPerOrganiser: 4)
        let journal = try store.journal(after: 0)
        XCTAssertEqual(journal.map(\.version), Array((harness.version - 5)...harness.version))
        XCTAssertNil(try store.reply(organiser: "ann", commandID: "c3"), "ann's fifth-newest answer is gone")
        XCTAssertNotNil(try store.reply(organiser: "ann", commandID: "c4"))
        XCTAssertNotNil(try store.reply(organiser: "bob", commandID: "d1"), "bob keeps his own four")
    }
}
