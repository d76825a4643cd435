import GatherStore
import XCTest

/// The group's account changes as single transactions with their own rules.
final class GroupAccountsTests: XCTestCase {
    private var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder.remove() }

    private func open() throws -> SQLiteStore { try SQLiteStore(directory: folder.child("data")) }

    private func group() throws -> SQLiteStore {
        let store = try open()
        XCTAssertTrue(try store.insertOrganiser(username: "Ann", passwordHash: "a", at: 100))
        XCTAssertTrue(try store.insertOrganiser(username: "Bob", passwordHash: "b", at: 200))
        XCTAssertTrue(try store.insertOrganiser(username: "Cid", passwordHash: "c", at: 300))
        try store.insertSession(tokenHash: "bob-1", username: "Bob", at: 1000)
        try store.insertSession(tokenHash: "bob-2", username: "Bob", at: 1000)
        try store.insertSession(tokenHash: "ann-1", username: "Ann", at: 1000)
        return store
    }

    func testTheFirstAccountIsTheOwnerAndOnlyIt() throws {
        let store = try group()
        XCTAssertEqual(try store.organisers(sessionsUsedSince: 0).map(\.owner), [true, false, false])
        XCTAssertEqual(try store.organisers(sessionsUsedSince: 0).map(\.sessions), [1, 2, 0])
        XCTAssertEqual(try store.organisers(sessionsUsedSince: 2000).map(\.sessions), [0, 0, 0], "expired tokens")
    }

    func testRemovingEndsSessionsKeepsTheNameTakenAndNeverTouchesTheOwner() throws {
        let store = try group()
        XCTAssertEqual(try store.removeOrganiser(username: "ANN", at: 5), .isOwner)
        XCTAssertEqual(try store.removeOrganiser(username: "nobody", at: 5), .notFound)
        XCTAssertEqual(try store.removeOrganiser(username: "bob", at: 5), .done(username: "Bob", sessionsEnded: 2))
        XCTAssertNil(try store.organiser(username: "Bob"), "cannot log in")
        XCTAssertNil(try store.sessionUsername(tokenHash: "bob-1", usedSince: 0, now: 2000))
        XCTAssertEqual(try store.organisers(sessionsUsedSince: 0).map(\.username), ["Ann", "Cid"])
        XCTAssertFalse(try store.insertOrganiser(username: "bob", passwordHash: "x", at: 9), "the name stays taken")
        XCTAssertEqual(try store.removeOrganiser(username: "Bob", at: 6), .notFound, "already removed")
        XCTAssertEqual(try open().organisers(sessionsUsedSince: 0).map(\.username), ["Ann", "Cid"], "durable")
    }

    func testMakingAnOwnerDemotesTheOldOneInOneStep() throws {
        let store = try group()
        XCTAssertEqual(try store.makeOwner(username: "cid"), .done(username: "Cid", sessionsEnded: 0))
        XCTAssertEqual(try open().organisers(sessionsUsedSince: 0).map(\.owner), [false, false, true])
        XCTAssertEqual(try store.makeOwner(username: "nobody"), .notFound)
        XCTAssertEqual(try store.organisers(sessionsUsedSince: 0).map(\.owner), [false, false, true])
        XCTAssertEqual(try store.removeOrganiser(username: "Ann", at: 1), .done(username: "Ann", sessionsEnded: 1))
    }

    func testANewPasswordEndsEveryOtherSession() throws {
        let store = try group()
        XCTAssertEqual(try store.setPassword(username: "bob", passwordHash: "new", keeping: "bob-2"),
                       .done(username: "Bob", sessionsEnded: 1))
        XCTAssertEqual(try store.organiser(username: "Bob")?.passwordHash, "new")
        XCTAssertNil(try store.sessionUsername(tokenHash: "bob-1", usedSince: 0, now: 2000))
        XCTAssertEqual(try store.sessionUsername(tokenHash: "bob-2", usedSince: 0, now: 2000), "Bob")
        XCTAssertEqual(try store.setPassword(username: "bob", passwordHash: "newer", keeping: nil),
                       .done(username: "Bob", sessionsEnded: 1))
        XCTAssertEqual(try store.setPassword(username: "nobody", passwordHash: "x", keeping: nil), .notFound)
        XCTAssertEqual(try store.deleteSessions(username: "Ann"), 1)
        XCTAssertEqual(try store.deleteSessions(username: "Ann"), 0)
    }

    func testTheInviteCodeAndLastSeenAreKept() throws {
        let store = try group()
        XCTAssertNil(try store.inviteCode())
        try store.setInviteCode("KEEPME123")
        try store.touchLastSeen(username: "cid", at: 9000)
        try store.touchLastSeen(username: "cid", at: 8000)
        let reopened = try open()
        XCTAssertEqual(try reopened.inviteCode(), "KEEPME123")
        XCTAssertEqual(try reopened.organiser(username: "Cid")?.lastSeenAt, 9000, "never goes back")
    }
}
