@testable import GatherCoordinator
import GatherDelivery
import XCTest

/// `PasswordChecks` alone: who runs, who waits, who is pushed out.
final class PasswordChecksTests: XCTestCase {
    private func work(_ number: UInt64, _ purpose: PasswordJob.Purpose = .login) -> Effect {
        .verifyPassword(PasswordJob(client: ConnectionID(number), purpose: purpose, username: "ann", password: "x",
                                    requestID: nil), against: "h")
    }

    /// The second KDF run of a password change already paid for its place: full queue or not, it
    /// waits first, and starts at the next finish.
    func testAPasswordChangesSecondRunIsNeverRefused() {
        var checks = PasswordChecks()
        let nobodyClean: (String) -> Bool = { _ in false }
        for number in 0..<16 {
            _ = checks.admit(work(UInt64(number)), address: "10.0.0.\(number)", isClean: nobodyClean)
        }
        XCTAssertEqual(checks.refusal(address: "10.0.1.1", isClean: nobodyClean), .busy)
        let hash: Effect = .hashPassword(PasswordJob(client: ConnectionID(99), purpose: .changePassword, username: "ann",
                                                     password: "new one", requestID: nil))
        XCTAssertEqual(checks.admit(hash, address: "10.0.0.5", continuation: true, isClean: nobodyClean),
                       .queued(pushedOut: nil))
        XCTAssertEqual(checks.finished(stillConnected: { _ in true }, isClean: nobodyClean), hash)
    }

    func testCleanAddressesStartFirstAndSuspectsCannotTakeTheLastTwoPlaces() {
        var checks = PasswordChecks()
        let clean: Set<String> = ["good"]
        let isClean: (String) -> Bool = { clean.contains($0) }
        XCTAssertEqual(checks.admit(work(1), address: "a", isClean: isClean), .started(work(1)))
        XCTAssertEqual(checks.admit(work(2), address: "b", isClean: isClean), .started(work(2)))
        for number in 3..<17 {
            XCTAssertEqual(checks.admit(work(UInt64(number)), address: "s\(number)", isClean: isClean), .queued(pushedOut: nil))
        }
        XCTAssertEqual(checks.refusal(address: "s99", isClean: isClean), .busy, "14 suspects wait at most")
        XCTAssertEqual(checks.refusal(address: "s3", isClean: isClean), .addressWaiting)
        XCTAssertEqual(checks.admit(work(50), address: "good", isClean: isClean), .queued(pushedOut: nil))
        XCTAssertEqual(checks.finished(stillConnected: { _ in true }, isClean: isClean), work(50))
        XCTAssertEqual(checks.finished(stillConnected: { _ in true }, isClean: isClean), work(3))
    }
}
