import Foundation
import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherPresenters
@testable import GatherStore
import GRDB
import XCTest

/// What a failing Store does to the match: a commit that throws is never acknowledged and changes
/// nothing anyone sees; the same id resent once the fault clears is applied exactly once; a full
/// disk (SQLite's own `SQLITE_FULL`, provoked with `max_page_count` on a real file) is answered in
/// a sentence that says so while the match keeps its last good state.
final class StoreFaultTests: XCTestCase {
    private var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "gather-store-faults-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    func testACommitThatThrowsIsNeverAckedAndChangesNothing() throws {
        let faults = FaultInjectingStore(try SQLiteStore.inMemory())
        let h = try CoordinatorHarness(faults: faults)
        let ann = h.organiser(1, "ann")
        h.prepare(ann, id: "c1", ["kind": "addPlayer", "name": "Ann"])
        let (state, version) = (h.state, h.version)

        faults.failWrites(with: StoreError("the disk went away"))
        h.message(ann, ["type": "command", "id": "c2", "base": .int(version), "action": ["kind": "addPlayer", "name": "Bob"]],
                  expect: [.send(ann, .error(code: .internalError,
                                             message: "The server could not save this change; nothing was applied. Try again.",
                                             id: "c2", reason: Sentence(.saveFailed)))])
        XCTAssertEqual(h.state, state, "nothing adopted")
        XCTAssertEqual(h.version, version)
        XCTAssertEqual(try h.store.load().version, version, "nothing stored")
        XCTAssertNil(try h.store.reply(organiser: "ann", commandID: "c2"), "no answer kept: a resend is judged afresh")
        XCTAssertEqual(h.tally.commandsApplied, 1)
    }

    func testTheSameIDResentAfterTheFaultClearsIsAppliedExactlyOnce() throws {
        let faults = FaultInjectingStore(try SQLiteStore.inMemory())
        let h = try CoordinatorHarness(faults: faults)
        let ann = h.organiser(1, "ann")
        faults.failWrites(with: StoreError("the disk went away"))
        h.message(ann, ["type": "command", "id": "bob", "base": 0, "action": ["kind": "addPlayer", "name": "Bob"]],
                  exhaustivity: .off)
        faults.failWrites(with: nil)

        h.command(ann, id: "bob", base: 0, ["kind": "addPlayer", "name": "Bob"]) { state in
            state.players = [Player(id: 1, name: "Bob")]
            state.nextPlayerID = 2
        }
        h.message(ann, ["type": "command", "id": "bob", "base": 0, "action": ["kind": "addPlayer", "name": "Bob"]],
                  expect: [.send(ann, .ack(id: "bob", version: 1))])
        XCTAssertEqual(h.state.players.map(\.name), ["Bob"], "applied once")
        XCTAssertEqual(faults.committed, 1)
    }

    func testAFullDiskIsAnsweredClearlyAndTheMatchKeepsItsLastGoodState() throws {
        let store = try SQLiteStore(directory: folder)
        let h = try CoordinatorHarness(store: store)
        let ann = h.organiser(1, "ann")
        h.prepare(ann, id: "first", ["kind": "addPlayer", "name": "Ann"])
        try limitPages(of: store, to: nil)

        // Fill what is left; each added player needs room, so within a bounded number one fails.
        var failure: (id: String, name: String, effects: [Effect])?
        var lastGood = (state: h.state, version: h.version)
        for index in 0..<400 where failure == nil {
            let id = "fill-\(index)"
            let name = "Player \(index) " + String(repeating: "x", count: 20)
            let effects = h.message(ann, ["type": "command", "id": .string(id), "base": .int(h.version),
                                          "action": ["kind": "addPlayer", "name": .string(name)]], exhaustivity: .off)
            if effects.contains(.send(ann, .ack(id: id, version: h.version))) {
                lastGood = (h.state, h.version)
            } else {
                failure = (id, name, effects)
            }
        }
        let (failedID, name, effects) = try XCTUnwrap(failure, "the database never filled up")
        XCTAssertEqual(effects, [.send(ann, .error(
            code: .internalError,
            message: "The server's disk is full, so this change could not be saved; nothing was applied. "
                + "Tell whoever runs the server, then try again.",
            id: failedID, reason: Sentence(.diskFull)))])
        XCTAssertEqual(h.state, lastGood.state, "the match keeps its last good state")
        XCTAssertEqual(h.version, lastGood.version)
        let reopened = try SQLiteStore(directory: folder).load()
        XCTAssertEqual(reopened.state, lastGood.state, "and so does the disk")
        XCTAssertEqual(reopened.version, lastGood.version)

        // Room again: the same id is applied, once.
        try limitPages(of: store, to: 1_000_000)
        h.command(ann, id: failedID, ["kind": "addPlayer", "name": .string(name)]) { state in
            state.players.append(Player(id: state.nextPlayerID, name: name))
            state.nextPlayerID += 1
        }
        h.message(ann, ["type": "command", "id": .string(failedID), "base": .int(lastGood.version),
                        "action": ["kind": "addPlayer", "name": .string(name)]],
                  expect: [.send(ann, .ack(id: failedID, version: lastGood.version + 1))])
    }

    /// `PRAGMA max_page_count` on the writer's connection: nil holds the file at its size now.
    private func limitPages(of store: SQLiteStore, to pages: Int?) throws {
        try store.writer.writeWithoutTransaction { db in
            let limit = try pages ?? Int.fetchOne(db, sql: "PRAGMA page_count") ?? 1
            try db.execute(sql: "PRAGMA max_page_count = \(limit)")
        }
    }
}
