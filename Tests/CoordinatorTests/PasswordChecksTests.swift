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
        let onlyOneClean: (String) -> Bool = { $0 == "10.0.2.1" }
        XCTAssertEqual(checks.admit(work(100), address: "10.0.2.1", isClean: onlyOneClean), .started(work(100)))
        for number in 0..<15 {
            _ = checks.admit(work(UInt64(number)), address: "10.0.0.\(number)", isClean: onlyOneClean)
        }
        XCTAssertEqual(checks.running, 2)
        XCTAssertEqual(checks.refusal(address: "10.0.1.1", isClean: onlyOneClean), .busy)
        let hash: Effect = .hashPassword(PasswordJob(client: ConnectionID(99), purpose: .changePassword, username: "ann",
                                                     password: "new one", requestID: nil))
        XCTAssertEqual(checks.admit(hash, address: "10.0.0.5", continuation: true, isClean: onlyOneClean),
                       .queued(pushedOut: nil))
        XCTAssertEqual(checks.finished(ConnectionID(100), stillConnected: { _ in true }, isClean: onlyOneClean), hash)
    }

    func testCleanAddressesStartFirstAndSuspectsCannotTakeTheLastTwoPlaces() {
        var checks = PasswordChecks()
        var clean: Set<String> = ["good", "a", "b"]
        let isClean: (String) -> Bool = { clean.contains($0) }
        XCTAssertEqual(checks.admit(work(1), address: "a", isClean: isClean), .started(work(1)))
        XCTAssertEqual(checks.admit(work(2), address: "b", isClean: isClean), .started(work(2)))
        clean = ["good"]
        for number in 3..<17 {
            XCTAssertEqual(checks.admit(work(UInt64(number)), address: "s\(number)", isClean: isClean), .queued(pushedOut: nil))
        }
        XCTAssertEqual(checks.refusal(address: "s99", isClean: isClean), .busy, "14 suspects wait at most")
        XCTAssertEqual(checks.refusal(address: "s3", isClean: isClean), .addressWaiting)
        XCTAssertEqual(checks.admit(work(50), address: "good", isClean: isClean), .queued(pushedOut: nil))
        XCTAssertEqual(checks.finished(ConnectionID(1), stillConnected: { _ in true }, isClean: isClean), work(50))
        XCTAssertEqual(checks.finished(ConnectionID(2), stillConnected: { _ in true }, isClean: isClean), work(3))
        XCTAssertNil(checks.finished(ConnectionID(50), stillConnected: { _ in true }, isClean: isClean),
                     "a suspect does not take the place kept for clean addresses")
    }

    /// A guessing crowd's checks run one at a time: a clean address's check starts at once beside
    /// theirs instead of waiting for one to finish.
    func testAddressesThatFailedRunOneCheckAtATimeAndLeaveAPlaceForACleanOne() {
        var checks = PasswordChecks()
        let isClean: (String) -> Bool = { $0 == "organiser" }
        XCTAssertEqual(checks.admit(work(1), address: "s1", isClean: isClean), .started(work(1)))
        XCTAssertEqual(checks.admit(work(2), address: "s2", isClean: isClean), .queued(pushedOut: nil))
        XCTAssertEqual(checks.admit(work(3), address: "s3", isClean: isClean), .queued(pushedOut: nil))
        XCTAssertEqual(checks.running, 1)
        XCTAssertEqual(checks.admit(work(9), address: "organiser", isClean: isClean), .started(work(9)))
        XCTAssertNil(checks.finished(ConnectionID(9), stillConnected: { _ in true }, isClean: isClean),
                     "one of theirs runs already")
        XCTAssertEqual(checks.finished(ConnectionID(1), stillConnected: { _ in true }, isClean: isClean), work(2))
        XCTAssertEqual(checks.running, 1)
        XCTAssertEqual(checks.finished(ConnectionID(2), stillConnected: { _ in true }, isClean: isClean), work(3))
        XCTAssertNil(checks.finished(ConnectionID(3), stillConnected: { _ in true }, isClean: isClean))
        XCTAssertEqual(checks.running, 0)
    }
}

/// The rules that keep an organiser's login quick while a crowd guesses from fresh addresses.
final class PasswordChecksUnderACrowdTests: XCTestCase {
    private func work(_ number: UInt64) -> Effect {
        .verifyPassword(PasswordJob(client: ConnectionID(number), purpose: .login, username: "ann", password: "x",
                                    requestID: nil), against: "h")
    }

    /// Two connections of one address: the second is refused while the first is checked, even
    /// with places free, so a crowd's address fails (and loses its cleanliness) at once.
    func testAnAddressHasOneCheckAtATimeRunningOrWaiting() {
        var checks = PasswordChecks()
        let isClean: (String) -> Bool = { _ in true }
        XCTAssertEqual(checks.admit(work(1), address: "s1", isClean: isClean), .started(work(1)))
        XCTAssertEqual(checks.refusal(address: "s1", isClean: isClean), .addressWaiting)
        XCTAssertEqual(checks.admit(work(2), address: "s1", isClean: isClean), .refused(.addressWaiting))
        XCTAssertEqual(checks.running, 1)
        XCTAssertEqual(checks.admit(work(3), address: "s2", isClean: isClean), .started(work(3)))
    }

    /// A crowd's first two checks started while their addresses were clean hold both places; an
    /// address that signed in within the hour is checked at once beside them, a fresh clean one
    /// waits, and no more than three ever run.
    func testATrustedAddressStartsInTheSparePlaceBesideChecksThatStartedClean() {
        var checks = PasswordChecks()
        var clean: Set<String> = ["a", "b", "organiser", "deputy", "newcomer"]
        let isClean: (String) -> Bool = { clean.contains($0) }
        let isTrusted: (String) -> Bool = { $0 == "organiser" || $0 == "deputy" }
        XCTAssertEqual(checks.admit(work(1), address: "a", isClean: isClean, isTrusted: isTrusted), .started(work(1)))
        XCTAssertEqual(checks.admit(work(2), address: "b", isClean: isClean, isTrusted: isTrusted), .started(work(2)))
        clean.subtract(["a", "b"])
        XCTAssertEqual(checks.admit(work(3), address: "newcomer", isClean: isClean, isTrusted: isTrusted),
                       .queued(pushedOut: nil), "a fresh address cannot be told from the crowd's")
        XCTAssertEqual(checks.admit(work(9), address: "organiser", isClean: isClean, isTrusted: isTrusted),
                       .started(work(9)))
        XCTAssertEqual(checks.running, 3)
        XCTAssertEqual(checks.admit(work(10), address: "deputy", isClean: isClean, isTrusted: isTrusted),
                       .queued(pushedOut: nil), "three at most")
        XCTAssertEqual(checks.peak, 3)
        // One of the crowd's ends: two run, so only the trusted one waiting may start; the
        // newcomer starts once fewer than two run.
        XCTAssertEqual(checks.finished(ConnectionID(1), stillConnected: { _ in true }, isClean: isClean,
                                       isTrusted: isTrusted), work(10))
        XCTAssertNil(checks.finished(ConnectionID(9), stillConnected: { _ in true }, isClean: isClean,
                                     isTrusted: isTrusted), "a fresh address waits for a place below two")
        XCTAssertEqual(checks.finished(ConnectionID(2), stillConnected: { _ in true }, isClean: isClean,
                                       isTrusted: isTrusted), work(3))
    }

    /// A suspect's check makes way (is marked when it starts, or reported once to be lowered) only
    /// while a clean address's check runs or waits; alone, it keeps the usual priority.
    func testChecksOfAddressesThatFailedMakeWayForACleanOne() {
        var checks = PasswordChecks()
        var clean: Set<String> = ["a", "b", "c"]
        let isClean: (String) -> Bool = { clean.contains($0) }
        XCTAssertEqual(checks.admit(work(1), address: "a", isClean: isClean), .started(work(1)))
        XCTAssertEqual(checks.lowering(isClean: isClean), [])
        clean.remove("a")
        XCTAssertEqual(checks.lowering(isClean: isClean), [], "alone, a failed address's check keeps its priority")
        XCTAssertEqual(checks.admit(work(2), address: "b", isClean: isClean), .started(work(2)))
        XCTAssertEqual(checks.lowering(isClean: isClean), [ConnectionID(1)], "it makes way once a clean check runs")
        XCTAssertEqual(checks.lowering(isClean: isClean), [], "once")
        XCTAssertEqual(checks.finished(ConnectionID(1), stillConnected: { _ in true }, isClean: isClean), nil)
        guard case .started(let started) = checks.admit(work(3), address: "s", isClean: isClean),
              case .verifyPassword(let job, _) = started
        else { return XCTFail("a suspect's check starts while a place is free") }
        XCTAssertTrue(job.fromSuspect, "beside a clean check, a suspect's is born lowered")
        XCTAssertEqual(checks.lowering(isClean: isClean), [], "born lowered")
        XCTAssertEqual(checks.finished(ConnectionID(2), stillConnected: { _ in true }, isClean: isClean), nil)
        XCTAssertEqual(checks.finished(ConnectionID(3), stillConnected: { _ in true }, isClean: isClean), nil)
        XCTAssertEqual(checks.admit(work(4), address: "s", isClean: isClean), .started(work(4)),
                       "alone again, a suspect's check runs at the Coordinator's own priority")
        XCTAssertEqual(checks.admit(work(5), address: "c", isClean: isClean), .started(work(5)))
        XCTAssertEqual(checks.lowering(isClean: isClean), [ConnectionID(4)])
    }

    /// Checks of locked-out addresses give up their places, at most `abandonedLimit` at a time;
    /// the waiting ones start in the places freed, and an abandoned run's end frees no place.
    func testRunsOfLockedOutAddressesGiveUpTheirPlacesWithinTheLimit() {
        var checks = PasswordChecks()
        let isClean: (String) -> Bool = { $0 == "organiser" }
        XCTAssertEqual(checks.admit(work(1), address: "organiser", isClean: { _ in true }), .started(work(1)))
        XCTAssertEqual(checks.admit(work(2), address: "s2", isClean: { _ in true }), .started(work(2)))
        XCTAssertEqual(checks.admit(work(3), address: "s3", isClean: isClean), .queued(pushedOut: nil))
        let change: Effect = .hashPassword(PasswordJob(client: ConnectionID(4), purpose: .changePassword, username: "ann",
                                                       password: "new one", requestID: nil))
        let locked: Set<String> = ["s2", "s5", "s6", "s7"]
        // Nothing is locked: nothing moves.
        XCTAssertTrue(checks.abandon(lockedOut: { _ in false }, stillConnected: { _ in true }, isClean: isClean).abandoned.isEmpty)
        let first = checks.abandon(lockedOut: locked.contains, stillConnected: { _ in true }, isClean: isClean)
        XCTAssertEqual(first.abandoned, [work(2)])
        XCTAssertEqual(first.started, [work(3).fromSuspect], "s3 waited; it starts in s2's place, making way")
        XCTAssertTrue(checks.isAbandoned(ConnectionID(2)))
        XCTAssertEqual(checks.running, 2)
        // A password change is never abandoned.
        XCTAssertNil(checks.finished(ConnectionID(3), stillConnected: { _ in true }, isClean: isClean))
        XCTAssertEqual(checks.admit(change, address: "s6", continuation: true, isClean: isClean), .started(change))
        XCTAssertTrue(checks.abandon(lockedOut: locked.contains, stillConnected: { _ in true }, isClean: isClean).abandoned.isEmpty)
        // Two abandoned at most: the third locked-out run keeps its place.
        XCTAssertNil(checks.finished(ConnectionID(4), stillConnected: { _ in true }, isClean: isClean))
        XCTAssertEqual(checks.admit(work(5), address: "s5", isClean: { _ in true }), .started(work(5)))
        XCTAssertEqual(checks.abandon(lockedOut: locked.contains, stillConnected: { _ in true }, isClean: isClean).abandoned,
                       [work(5)])
        XCTAssertEqual(checks.admit(work(7), address: "s7", isClean: { _ in true }), .started(work(7)))
        XCTAssertTrue(checks.abandon(lockedOut: locked.contains, stillConnected: { _ in true }, isClean: isClean).abandoned.isEmpty)
        XCTAssertEqual(checks.running, 2)
        // An abandoned run ending frees its thread, not a place: the organiser's run keeps its own.
        XCTAssertNil(checks.finished(ConnectionID(2), stillConnected: { _ in true }, isClean: isClean))
        XCTAssertEqual(checks.running, 2)
        XCTAssertFalse(checks.isAbandoned(ConnectionID(2)))
        XCTAssertEqual(checks.abandon(lockedOut: locked.contains, stillConnected: { _ in true }, isClean: isClean).abandoned,
                       [work(7)], "below the limit again")
    }
}
