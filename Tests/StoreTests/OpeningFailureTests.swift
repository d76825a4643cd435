import Foundation
import GRDB
import GatherModel
import GatherModelTestSupport
import GatherStore
import XCTest

/// A data folder the server cannot use is refused with one sentence, and nothing in it is changed.
///
/// The tests run as root, and root ignores permission bits, so "read-only" is made real with the
/// immutable attribute (`chattr +i`, which stops root too: EPERM) and with plain `chmod` for other users.
final class OpeningFailureTests: XCTestCase {
    private var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder.remove() }

    // MARK: - The folder

    func testAFileWhereTheFolderShouldBeIsRefused() throws {
        let blocker = folder.child("data")
        XCTAssertTrue(FileManager.default.createFile(atPath: blocker, contents: Data("not a folder".utf8)))
        assertStoreError(["data folder \(blocker) cannot be created", "a file with that name is in the way"]) {
            _ = try SQLiteStore(directory: blocker)
        }
    }

    func testAFileInThePathOfTheFolderIsRefused() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: folder.child("plain"), contents: Data()))
        assertStoreError(["cannot be created", "\(folder.child("plain")) is a file, not a folder"]) {
            _ = try SQLiteStore(directory: folder.child("plain/data"))
        }
    }

    func testAFolderThatCannotBeCreatedUnderAReadOnlyParentIsRefused() throws {
        let parent = folder.child("locked")
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: false)
        try makeReadOnly(parent)
        assertStoreError(["data folder \(parent)/data cannot be created"]) {
            _ = try SQLiteStore(directory: parent + "/data")
        }
    }

    func testAReadOnlyFolderIsRefused() throws {
        let data = folder.child("data")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false)
        try makeReadOnly(data)
        assertStoreError(["data folder \(data) is read-only"]) { _ = try SQLiteStore(directory: data) }
    }

    func testAReadOnlyDatabaseFileIsRefusedAndKept() throws {
        let data = folder.child("data")
        try Writer(store: SQLiteStore(directory: data)).addPlayer("Ann")
        let file = data + "/gather.sqlite"
        let before = FileManager.default.contents(atPath: file)
        try makeReadOnly(file)
        assertStoreError(["database file \(file) is read-only"]) { _ = try SQLiteStore(directory: data) }
        XCTAssertEqual(FileManager.default.contents(atPath: file), before)
    }

    // MARK: - The file

    func testAFileThatIsNotADatabaseIsRefusedAndKept() throws {
        let data = folder.child("data")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false)
        let garbage = Data(String(repeating: "These are my match notes, not SQLite. ", count: 40).utf8)
        XCTAssertTrue(FileManager.default.createFile(atPath: data + "/gather.sqlite", contents: garbage))
        assertStoreError(["\(data)/gather.sqlite is not a gather database"]) { _ = try SQLiteStore(directory: data) }
        XCTAssertEqual(FileManager.default.contents(atPath: data + "/gather.sqlite"), garbage)
    }

    func testAnotherProgramsSQLiteDatabaseIsRefusedAndKept() throws {
        let data = folder.child("data")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false)
        do {
            let raw = try DatabaseQueue(path: data + "/gather.sqlite")
            try raw.write { try $0.execute(sql: "CREATE TABLE players (who TEXT); INSERT INTO players VALUES ('mine')") }
            try raw.close()
        }
        let before = FileManager.default.contents(atPath: data + "/gather.sqlite")
        assertStoreError(["SQLite database of another program", "nothing was changed"]) {
            _ = try SQLiteStore(directory: data)
        }
        XCTAssertEqual(FileManager.default.contents(atPath: data + "/gather.sqlite"), before, "not a byte changed")
        let raw = try DatabaseQueue(path: data + "/gather.sqlite")
        XCTAssertEqual(try raw.read { try String.fetchAll($0, sql: "SELECT who FROM players") }, ["mine"])
        XCTAssertFalse(try raw.read { try $0.tableExists("meta") })
    }

    func testAFolderNamedLikeTheDatabaseIsRefused() throws {
        let data = folder.child("data")
        try FileManager.default.createDirectory(atPath: data + "/gather.sqlite", withIntermediateDirectories: true)
        assertStoreError(["is a folder, not a database file"]) { _ = try SQLiteStore(directory: data) }
    }

    // MARK: - The schema

    func testADatabaseFromANewerSchemaIsRefusedAndLeftUntouched() throws {
        let data = folder.child("data")
        try Writer(store: SQLiteStore(directory: data)).addPlayer("Ann")
        let file = data + "/gather.sqlite"
        do {
            let raw = try DatabaseQueue(path: file)
            try raw.write { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9-future')") }
            try raw.close()
        }
        let before = FileManager.default.contents(atPath: file)
        assertStoreError(["newer version of gather", "v9-future", "nothing was changed"]) {
            _ = try SQLiteStore(directory: data)
        }
        XCTAssertEqual(FileManager.default.contents(atPath: file), before, "not a byte changed")
        do {
            let raw = try DatabaseQueue(path: file)
            try raw.write { try $0.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v9-future'") }
            try raw.close()
        }
        let loaded = try SQLiteStore(directory: data).load()
        XCTAssertEqual(loaded.version, 1)
        XCTAssertEqual(loaded.state.players.map(\.name), ["Ann"])
    }

    func testAnInMemoryStoreIsMigratedAndHasNoPath() throws {
        let store = try SQLiteStore.inMemory()
        XCTAssertNil(store.path)
        XCTAssertEqual(try store.load().version, 0)
        try Writer(store: store).addPlayer("Ann")
        XCTAssertEqual(try store.load().state.players.map(\.name), ["Ann"])
    }

    // MARK: - Helpers

    /// Root: the immutable attribute (EPERM even for root). Others: permission bits.
    private func makeReadOnly(_ path: String) throws {
        if getuid() == 0 {
            guard try Shell.run("/usr/bin/chattr", ["+i", path]) == 0 else {
                throw XCTSkip("chattr +i is not available here (needs CAP_LINUX_IMMUTABLE and ext4/xfs/btrfs)")
            }
        } else {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            try FileManager.default.setAttributes([.posixPermissions: isDirectory.boolValue ? 0o555 : 0o444],
                                                  ofItemAtPath: path)
        }
    }
}
