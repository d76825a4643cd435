import Dispatch
import Foundation
import GatherModel
import GatherModelTestSupport
import GatherStore
import XCTest

/// `gather backup PATH`: the copy opens as a gather database with the same state, even when it was
/// taken while the coordinator kept writing.
final class BackupTests: XCTestCase {
    private var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder.remove() }

    func testABackupOpensAsAValidDatabaseWithTheSameLoad() throws {
        let store = try SQLiteStore(directory: folder.child("data"))
        let writer = try Writer(store: store)
        let ann = try writer.addPlayer("Ann", age: 30)
        let bob = try writer.addPlayer("Bob")
        try writer.playGather(teamA: [ann], teamB: [bob], goalsA: 2, goalsB: 1)
        try writer.apply(.createGather(playerIDs: [ann, bob]))
        XCTAssertTrue(try store.insertOrganiser(username: "Ann", passwordHash: "h", at: 1))
        try store.insertSession(tokenHash: "t", username: "Ann", at: 1)

        try FileManager.default.createDirectory(atPath: folder.child("copy"), withIntermediateDirectories: false)
        try store.backup(toPath: folder.child("copy/gather.sqlite"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.child("copy/gather.sqlite.partial")))

        let copy = try SQLiteStore(directory: folder.child("copy"))
        XCTAssertEqual(try copy.load(), try store.load())
        XCTAssertEqual(try copy.allHistory(), try store.allHistory())
        XCTAssertEqual(try copy.organiser(username: "ann")?.username, "Ann")
        XCTAssertEqual(try copy.sessionUsername(tokenHash: "t", usedSince: 0, now: 2), "Ann")
        XCTAssertEqual(try copy.reply(organiser: "ann", commandID: "cmd-1"), .ack(version: 1))
    }

    /// `gather backup` opens the data folder a second time while the server holds it open.
    func testASecondStoreOnAFolderInUseCanBackItUp() throws {
        let running = try SQLiteStore(directory: folder.child("data"))
        let writer = try Writer(store: running)
        for name in ["Ann", "Bob", "Cat"] { try writer.addPlayer(name) }

        let backupTool = try SQLiteStore(directory: folder.child("data"))
        try FileManager.default.createDirectory(atPath: folder.child("copy"), withIntermediateDirectories: false)
        try backupTool.backup(toPath: folder.child("copy/gather.sqlite"))
        try writer.addPlayer("Dee")

        XCTAssertEqual(try SQLiteStore(directory: folder.child("copy")).load().state.players.map(\.name),
                       ["Ann", "Bob", "Cat"])
        XCTAssertEqual(try running.load().version, 4)
    }

    func testABackupNeverOverwritesAFile() throws {
        let store = try SQLiteStore(directory: folder.child("data"))
        let target = folder.child("existing.sqlite")
        XCTAssertTrue(FileManager.default.createFile(atPath: target, contents: Data("keep me".utf8)))
        assertStoreError(["already exists"]) { try store.backup(toPath: target) }
        XCTAssertEqual(FileManager.default.contents(atPath: target), Data("keep me".utf8))
    }

    func testABackupIntoAMissingFolderFailsWithASentenceAndLeavesNothing() throws {
        let store = try SQLiteStore(directory: folder.child("data"))
        let target = folder.child("no/such/folder/copy.sqlite")
        assertStoreError(["The backup to \(target) failed"]) { try store.backup(toPath: target) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: target))
    }

    /// Every commit adds exactly one player, so a consistent copy has as many players as its version.
    func testABackupTakenWhileTheWriterWorksIsOneConsistentVersion() throws {
        let store = try SQLiteStore(directory: folder.child("data"))
        let commits = GatherState.maximumPlayers  // the roster holds at most this many
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let failure = LockedBox<String?>(nil)
        DispatchQueue.global().async {
            do {
                let writer = try Writer(store: store)
                for index in 1...commits {
                    try writer.addPlayer("P\(index)")
                    if index == 20 { started.signal() }
                }
            } catch {
                failure.set("writer failed: \(error)")
                started.signal()
            }
            finished.signal()
        }
        XCTAssertEqual(started.wait(timeout: .now() + 60), .success)
        try store.backup(toPath: folder.child("during.sqlite"))
        let histories = try store.allHistory()
        XCTAssertEqual(finished.wait(timeout: .now() + 120), .success)
        XCTAssertNil(failure.get())
        XCTAssertEqual(histories, [])

        try FileManager.default.createDirectory(atPath: folder.child("copy"), withIntermediateDirectories: false)
        try FileManager.default.moveItem(atPath: folder.child("during.sqlite"), toPath: folder.child("copy/gather.sqlite"))
        let copy = try SQLiteStore(directory: folder.child("copy"))
        let copied = try copy.load()
        XCTAssertGreaterThanOrEqual(copied.version, 20)
        XCTAssertLessThanOrEqual(copied.version, commits)
        XCTAssertEqual(copied.state.players.map(\.name), (1...copied.version).map { "P\($0)" })
        XCTAssertEqual(copied.state.nextPlayerID, copied.version + 1)
        XCTAssertEqual(try copy.recentJournal().last?.version, copied.version)
        XCTAssertEqual(try SQLiteStore(directory: folder.child("data")).load().version, commits)
    }
}

/// A value shared with a background thread in a test.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
}
