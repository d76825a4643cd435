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
