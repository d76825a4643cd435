import GatherStore
import XCTest

final class AccountsTests: XCTestCase {
    private var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder.remove() }

    private func reopen() throws -> SQLiteStore { try SQLiteStore(directory: folder.child("data")) }

    private let day: Int64 = 86_400_000

    // MARK: - Organisers

    func testUsernamesAreUniqueWhateverTheirCase() throws {
        let store = try reopen()
        XCTAssertTrue(try store.insertOrganiser(username: "Ann_9", passwordHash: "hash-1", at: 100))
        XCTAssertFalse(try store.insertOrganiser(username: "ann_9", passwordHash: "hash-2", at: 200))
        XCTAssertFalse(try store.insertOrganiser(username: "ANN_9", passwordHash: "hash-3", at: 300))
        XCTAssertTrue(try store.insertOrganiser(username: "Bob", passwordHash: "hash-4", at: 400))

        let reopened = try reopen()
        let expected = StoredOrganiser(username: "Ann_9", passwordHash: "hash-1", createdAt: 100, owner: true,
                                       lastSeenAt: 100)
        XCTAssertEqual(try reopened.organiser(username: "aNN_9"), expected, "the first registration stands as spelled")
        XCTAssertEqual(try reopened.organiser(username: "Ann_9"), expected)
        XCTAssertNil(try reopened.organiser(username: "Ann"))
    }

    // MARK: - Sessions

    func testASessionAnswersWithTheRegisteredSpellingAndSurvivesARestart() throws {
        let store = try reopen()
        XCTAssertTrue(try store.insertOrganiser(username: "Ann", passwordHash: "h", at: 0))
        try store.insertSession(tokenHash: "t1", username: "ann", at: 1000)
        XCTAssertEqual(try reopen().sessionUsername(tokenHash: "t1", usedSince: 0, now: 2000), "Ann")
        XCTAssertNil(try reopen().sessionUsername(tokenHash: "unknown", usedSince: 0, now: 2000))
    }

    func testASessionForAnUnknownOrganiserIsRefused() throws {
        let store = try reopen()
        XCTAssertThrowsError(try store.insertSession(tokenHash: "t", username: "nobody", at: 0))
        XCTAssertNil(try store.sessionUsername(tokenHash: "t", usedSince: 0, now: 0))
    }

    func testUsingASessionKeepsItAliveAndAnUnusedOneExpires() throws {
        let store = try reopen()
        XCTAssertTrue(try store.insertOrganiser(username: "Ann", passwordHash: "h", at: 0))
        try store.insertSession(tokenHash: "used", username: "Ann", at: 0)
        try store.insertSession(tokenHash: "idle", username: "Ann", at: 0)

        // Day 20: both still fresh (30-day window); only "used" is touched.
        XCTAssertEqual(try store.sessionUsername(tokenHash: "used", usedSince: 20 * day - 30 * day, now: 20 * day), "Ann")
        // Day 35: "idle" was last used on day 0, "used" on day 20.
        XCTAssertNil(try store.sessionUsername(tokenHash: "idle", usedSince: 5 * day, now: 35 * day))
        XCTAssertEqual(try store.sessionUsername(tokenHash: "used", usedSince: 5 * day, now: 35 * day), "Ann")
        // An expired row is gone: even a generous window no longer finds it.
        XCTAssertNil(try store.sessionUsername(tokenHash: "idle", usedSince: 0, now: 35 * day))
        // Day 70: "used" was touched on day 35, so it lapsed on day 65.
        XCTAssertNil(try reopen().sessionUsername(tokenHash: "used", usedSince: 40 * day, now: 70 * day))
    }

    func testTouchingNeverMovesLastUseBackwards() throws {
        let store = try reopen()
        XCTAssertTrue(try store.insertOrganiser(username: "Ann", passwordHash: "h", at: 0))
        try store.insertSession(tokenHash: "t", username: "Ann", at: 10 * day)
        XCTAssertEqual(try store.sessionUsername(tokenHash: "t", usedSince: 0, now: 1 * day), "Ann")
        XCTAssertEqual(try store.sessionUsername(tokenHash: "t", usedSince: 9 * day, now: 11 * day), "Ann")
    }

    func testLogoutDeletesTheSessionForGood() throws {
        let store = try reopen()
        XCTAssertTrue(try store.insertOrganiser(username: "Ann", passwordHash: "h", at: 0))
        try store.insertSession(tokenHash: "a", username: "Ann", at: 0)
        try store.insertSession(tokenHash: "b", username: "Ann", at: 0)
        try store.deleteSession(tokenHash: "a")
        try store.deleteSession(tokenHash: "never-existed")
        XCTAssertNil(try reopen().sessionUsername(tokenHash: "a", usedSince: 0, now: 1))
        XCTAssertEqual(try reopen().sessionUsername(tokenHash: "b", usedSince: 0, now: 1), "Ann",
                       "another device of the same organiser stays logged in")
    }
}
