import Foundation
@testable import GatherApp
import XCTest

/// Who may answer on a data folder's admin socket: its owner, in a folder only its owner can write.
final class DataFolderOwnerTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "gather-owner-" + UUID().uuidString
        XCTAssertEqual(mkdir(folder, 0o700), 0)
    }

    override func tearDown() {
        rmdir(folder)
    }

    func testTheOwnersPrivateOrReadableFolderServesAndAMissingOneIsMadeLater() {
        XCTAssertNil(DataFolderOwner.refusal(serving: folder))
        chmod(folder, 0o755)
        XCTAssertNil(DataFolderOwner.refusal(serving: folder), "readable by others: the store warns, the server serves")
        XCTAssertNil(DataFolderOwner.refusal(serving: folder + "/not-yet"))
        XCTAssertEqual(DataFolderOwner.uid(of: folder), geteuid())
        XCTAssertNil(DataFolderOwner.uid(of: folder + "/not-yet"))
    }

    func testAFolderOthersCanWriteIsRefusedWithTheCommandThatFixesIt() {
        for mode: mode_t in [0o777, 0o770, 0o702] {
            chmod(folder, mode)
            XCTAssertEqual(DataFolderOwner.refusal(serving: folder), """
                other users of this computer can write to the data folder \(folder) (mode \(String(mode, radix: 8))), \
                so they could replace its admin socket or database; run `chmod 700 \(folder)` and start again
                """)
        }
    }

    func testAFolderAnotherUserOwnsIsRefusedWithTheCommandThatFixesIt() throws {
        let other = geteuid() == 65534 ? uid_t(0) : uid_t(65534)
        let refusal = try XCTUnwrap(DataFolderOwner.refusal(serving: folder, as: other))
        XCTAssertTrue(refusal.hasPrefix("the data folder \(folder) belongs to \(DataFolderOwner.describe(geteuid()))"), refusal)
        XCTAssertTrue(refusal.hasSuffix("`chown -R \(DataFolderOwner.name(of: other) ?? String(other)) \(folder)`"), refusal)
        XCTAssertEqual(DataFolderOwner.describe(4_000_000_000), "uid 4000000000", "a uid with no name")
    }
}
