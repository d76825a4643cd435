import Foundation
@testable import GatherApp
import XCTest

/// One writer per data folder: the lock names its holder, lets go on release, and a folder that
/// cannot hold a lock file says why instead of pretending to be free.
final class DataFolderLockTests: XCTestCase {
    func testASecondTakerIsToldWhoHoldsTheFolderUntilItIsReleased() throws {
        let folder = NSTemporaryDirectory() + "gather-lock-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        let first = try DataFolderLock.take(dataFolder: folder).get()
        XCTAssertEqual(DataFolderLock.take(dataFolder: folder).failure, .held(byPID: getpid()))
        XCTAssertEqual(DataFolderLock.Refusal.held(byPID: 42).sentence(dataFolder: folder),
                       "the data folder \(folder) is already served by PID 42; stop that server first")
        var info = stat()
        XCTAssertEqual(stat(DataFolderLock.path(inDataFolder: folder), &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
        first.release()
        let second = try DataFolderLock.take(dataFolder: folder).get()
        second.release()
    }

    /// The lock is on the database itself: a file beside it that was deleted does not free the folder.
    func testTheLockIsOnTheDatabaseFileSoNoOtherFileCanFreeIt() throws {
        let folder = NSTemporaryDirectory() + "gather-lock-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try DataFolderLock.take(dataFolder: folder).get()
        defer { first.release() }
        XCTAssertEqual(DataFolderLock.path(inDataFolder: folder), folder + "/gather.sqlite")
        for leftover in ["gather.lock", "admin.sock"] { unlink(folder + "/" + leftover) }
        XCTAssertEqual(DataFolderLock.take(dataFolder: folder).failure, .held(byPID: getpid()))
    }

    func testTheHolderIsReadFromProcLocksByDeviceAndInode() {
        let text = """
            1: POSIX  ADVISORY  WRITE 12448 fe:00:388778 0 EOF
            2: FLOCK  ADVISORY  WRITE 10146 fe:00:16220940 0 EOF
            2: -> FLOCK  ADVISORY  WRITE 777 fe:00:16220940 0 EOF
            3: FLOCK  ADVISORY  WRITE 9119 08:01:16220940 0 EOF
            """
        let device = UInt64(0xfe) << 8  // major 0xfe, minor 0
        XCTAssertEqual(LockHolder.pid(in: text, device: device, inode: 16_220_940), 10146)
        XCTAssertEqual(LockHolder.pid(in: text, device: (8 << 8) | 1, inode: 16_220_940), 9119)
        XCTAssertNil(LockHolder.pid(in: text, device: device, inode: 388_778), "a POSIX lock is SQLite's, not ours")
        XCTAssertNil(LockHolder.pid(in: "", device: device, inode: 1))
        // A minor number past 255 (NVMe partitions, device-mapper): glibc's makedev(259, 300).
        let wide = (UInt64(259 & 0xfff) << 8) | (UInt64(300 & 0xff)) | (UInt64(300 & ~0xff) << 12)
        XCTAssertEqual(LockHolder.pid(in: "4: FLOCK  ADVISORY  WRITE 55 103:12c:7 0 EOF", device: wide, inode: 7), 55)
    }

    func testAMissingFolderIsUnusableNotFree() {
        guard case .failure(.unusable) = DataFolderLock.take(dataFolder: "/nonexistent/gather-" + UUID().uuidString) else {
            return XCTFail("a folder that does not exist cannot be locked")
        }
    }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
