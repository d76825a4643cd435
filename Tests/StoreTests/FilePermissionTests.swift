import Foundation
import GatherStore
import XCTest

/// Issue 16: the data folder holds password hashes and every result, so on a laptop shared with
/// others it is the owner's only. These run with the test process's ordinary umask (022), so the
/// modes come from the Store itself, not from `gather serve` setting umask 077.
final class FilePermissionTests: XCTestCase {
    private var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder.remove() }

    private func mode(_ path: String) throws -> Int {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int, path)
    }

    func testANewDataFolderIsTheOwnersOnlyAndSoAreTheDatabaseWALAndSHM() throws {
        let data = folder.child("club/data")
        let store = try SQLiteStore(directory: data)
        try Writer(store: store).addPlayer("Ann")  // the WAL now holds a commit
        XCTAssertEqual(try mode(data), 0o700)
        for suffix in ["", "-wal", "-shm"] {
            let file = data + "/gather.sqlite" + suffix
            XCTAssertTrue(FileManager.default.fileExists(atPath: file), file)
            XCTAssertEqual(try mode(file), 0o600, file)
        }
        XCTAssertEqual(store.warnings, [], "nothing to warn about in a folder we made")
    }

    func testFilesLeftReadableByAnOlderReleaseAreMadePrivateAtOpen() throws {
        let data = folder.child("data")
        try Writer(store: SQLiteStore(directory: data)).addPlayer("Ann")
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: data + "/gather.sqlite" + suffix) {
            XCTAssertEqual(chmod(data + "/gather.sqlite" + suffix, 0o644), 0)
        }
        let reopened = try SQLiteStore(directory: data)
        XCTAssertEqual(try Writer(store: reopened).state.players.map(\.name), ["Ann"], "the data is untouched")
        for suffix in ["", "-wal", "-shm"] {
            XCTAssertEqual(try mode(data + "/gather.sqlite" + suffix), 0o600, suffix)
        }
    }

    func testAFolderOthersCanLookIntoIsKeptButNamedInAWarning() throws {
        let data = folder.child("shared")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false)
        XCTAssertEqual(chmod(data, 0o755), 0)
        let store = try SQLiteStore(directory: data)
        XCTAssertEqual(try mode(data), 0o755, "a folder the user chose is not changed behind their back")
        XCTAssertEqual(store.warnings.count, 1, "\(store.warnings)")
        XCTAssertTrue(store.warnings[0].contains("chmod 700 \(data)"), store.warnings[0])
        XCTAssertEqual(try mode(data + "/gather.sqlite"), 0o600, "the database itself is still private")
    }
}
