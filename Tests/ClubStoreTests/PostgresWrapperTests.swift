import ClubModel
import Foundation
import XCTest
@testable import ClubStore

/// The libpq wrapper against a real PostgreSQL: migrations, retried transactions, parameters
/// as text, LISTEN/NOTIFY across connections, and a restart of the server.
final class PostgresWrapperTests: ClubStoreTestCase {
    func testMigrationsRunTwiceAndFromTwoConnectionsAtOnce() throws {
        // Two instances starting together: each migrates under the advisory lock; one creates.
        let group = DispatchGroup()
        let results = Results()
        for _ in 0..<2 {
            DispatchQueue.global().async(group: group) { [url, logger] in
                do {
                    let pool = PostgresPool(url: url, size: 1, logger: logger)
                    results.add(.success(try ClubSchema.migrate(pool, logger: logger)))
                    pool.close()
                } catch { results.add(.failure(error)) }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 20), .success)
        let found = try results.all.map { try $0.get() }.sorted()
        XCTAssertEqual(found, [0, ClubSchema.currentVersion], "one created the schema, the other found it current")

        // And a third start finds it current and changes nothing.
        let store = try openStore()
        let pool = PostgresPool(url: url, size: 1, logger: logger)
        defer { pool.close() }
        XCTAssertEqual(try ClubSchema.migrate(pool, logger: logger), ClubSchema.currentVersion)
        let version = try store.read { try $0.session.query("SELECT version FROM club_schema_version").rows }
        XCTAssertEqual(version.count, 1)
        XCTAssertEqual(try version[0].int("version"), ClubStore.schemaVersion)
    }

    func testSerialisationFailureIsRetried() throws {
        let store = try openStore()
        try store.change { try $0.session.execute("CREATE TABLE counter (n integer NOT NULL)") }
        try store.change { try $0.session.execute("INSERT INTO counter VALUES (0)") }

        // Two SERIALIZABLE writers read the same row, then both write it: the second to write
        // fails with 40001 and must be run again, seeing the first's value.
        let bothRead = DispatchGroup()
        bothRead.enter()
        bothRead.enter()
        let runs = Results()
        let group = DispatchGroup()
        for writer in 0..<2 {
            DispatchQueue.global().async(group: group) {
                do {
                    var attempt = 0
                    try store.pool.transaction(isolation: .serializable) { session in
                        attempt += 1
                        let n = try session.query("SELECT n FROM counter").first!.int("n")
                        if attempt == 1 {
                            bothRead.leave()
                            _ = bothRead.wait(timeout: .now() + 10)
                            usleep(UInt32(writer) * 100_000)
                        }
                        try session.execute("UPDATE counter SET n = $1", [n + 1])
                    }
                    runs.add(.success(attempt))
                } catch { runs.add(.failure(error)) }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 20), .success)
        let attempts = try runs.all.map { try $0.get() }.sorted()
        XCTAssertEqual(attempts, [1, 2], "the writer that lost ran once more")
        let n = try store.read { try $0.session.query("SELECT n FROM counter").first!.int("n") }
        XCTAssertEqual(n, 2, "both increments kept: no lost update")
    }

    func testADeadlockIsRetriedAndAnyOtherErrorRollsBack() throws {
        let store = try openStore()
        try store.change { try $0.session.execute("CREATE TABLE pair (k integer PRIMARY KEY, v integer NOT NULL)") }
        try store.change { try $0.session.execute("INSERT INTO pair VALUES (1, 0), (2, 0)") }
        let locked = DispatchGroup()
        locked.enter()
        locked.enter()
        let runs = Results()
        let group = DispatchGroup()
        for (first, second) in [(1, 2), (2, 1)] {
            DispatchQueue.global().async(group: group) {
                do {
                    var attempt = 0
                    try store.pool.transaction { session in
                        attempt += 1
                        try session.execute("UPDATE pair SET v = v + 1 WHERE k = $1", [first])
                        if attempt == 1 {
                            locked.leave()
                            _ = locked.wait(timeout: .now() + 10)
                        }
                        try session.execute("UPDATE pair SET v = v + 1 WHERE k = $1", [second])
                    }
                    runs.add(.success(attempt))
                } catch { runs.add(.failure(error)) }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 20), .success)
        XCTAssertEqual(try runs.all.map { try $0.get() }.sorted(), [1, 2], "the deadlock's victim ran again")
        let values = try store.read { try $0.session.query("SELECT v FROM pair ORDER BY k").rows.map { try $0.int("v") } }
        XCTAssertEqual(values, [2, 2])

        // Any other error: ROLLBACK, nothing kept, thrown as is.
        XCTAssertThrowsError(try store.change { transaction in
            try transaction.session.execute("UPDATE pair SET v = 100")
            throw ClubStoreError("the rule refused")
        }) { XCTAssertEqual($0 as? ClubStoreError, ClubStoreError("the rule refused")) }
        XCTAssertThrowsError(try store.change { try $0.session.execute("SELECT no_such_column FROM pair") }) { error in
            XCTAssertEqual((error as? PostgresError)?.sqlState, "42703")
        }
        let after = try store.read { try $0.session.query("SELECT v FROM pair ORDER BY k").rows.map { try $0.int("v") } }
        XCTAssertEqual(after, [2, 2], "the refused change left nothing")
    }

    func testParametersAreTextNeverSQL() throws {
        let store = try openStore()
        let hostile = "Robert'); DROP TABLE club_members;--"
        let member = try store.change { transaction in
            try transaction.insertMember(Member(id: "", name: hostile, email: "a\"b\\c@example.org"),
                                         linkSeed: "seed", linkTokenHash: "hash-1", now: 1)
        }
        XCTAssertEqual(member.name, hostile)
        let stored = try store.read { try $0.members() }
        XCTAssertEqual(stored.map(\.name), [hostile], "stored as text, and the table is still there")
        XCTAssertEqual(stored.first?.email, "a\"b\\c@example.org")
        // The same name in other case is taken; a NUL is refused before it reaches the server.
        XCTAssertThrowsError(try store.change { transaction in
            try transaction.insertMember(Member(id: "", name: hostile.uppercased()), linkSeed: "s", linkTokenHash: "h2",
                                         now: 2)
        }) { XCTAssertEqual($0 as? Refusal, Refusal(.conflict, ["field": "name"])) }
        XCTAssertThrowsError(try store.change { transaction in
            try transaction.insertMember(Member(id: "", name: "a\u{0}b"), linkSeed: "s", linkTokenHash: "h3", now: 2)
        }) { XCTAssertEqual(($0 as? PostgresError)?.kind, .invalidParameter) }
        XCTAssertEqual(try store.read { try $0.memberCount() }, 1)
        // Quotes, commas, braces and backslashes survive a text[] parameter too.
        let odd = ["a,b", "{c}", "d\"e", "f\\g", "NULL", ""]
        let back = try store.read { transaction in
            try transaction.session.query("SELECT unnest($1::text[]) AS v", [PostgresTextArray(odd)])
                .rows.map { try $0.string("v") }
        }
        XCTAssertEqual(back, odd)
    }

    func testNotifyIsDeliveredToAnotherConnectionOnlyAfterCommit() throws {
        let listening = try openStore()
        let writing = try openStore()
        let inbox = EventInbox()
        _ = keep(try listening.listen(queue: DispatchQueue(label: "test.inbox")) { inbox.add($0) })
        XCTAssertTrue(inbox.wait(seconds: 5) { $0 == .listening(reconnected: false) })

        let inTransaction = DispatchSemaphore(value: 0)
        let mayCommit = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        DispatchQueue.global().async(group: done) {
            try? writing.change { transaction in
                try transaction.notify(dateIds: ["7", "8", "7"])
                inTransaction.signal()
                _ = mayCommit.wait(timeout: .now() + 10)
            }
        }
        XCTAssertEqual(inTransaction.wait(timeout: .now() + 10), .success)
        usleep(300_000)
        XCTAssertFalse(inbox.received.contains { if case .notification = $0 { true } else { false } },
                       "nothing is delivered before COMMIT")
        mayCommit.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertTrue(inbox.wait(seconds: 1) {
            $0 == .notification(channel: ClubStore.changesChannel, payload: "7,8")
        }, "delivered within 1 s of COMMIT, ids once each")

        // A change that rolls back notifies no one.
        _ = try? writing.change { transaction -> Void in
            try transaction.notify(dateIds: ["99"])
            throw ClubStoreError("refused")
        }
        try writing.change { try $0.notifyClubChanged() }
        XCTAssertTrue(inbox.wait(seconds: 1) { $0 == .notification(channel: ClubStore.changesChannel, payload: "*") })
        XCTAssertFalse(inbox.received.contains { $0 == .notification(channel: ClubStore.changesChannel, payload: "99") })
    }

    func testTheStoreAndItsListenerSurviveAPostgresRestart() throws {
        let (store, _) = try openClub()
        let inbox = EventInbox()
        _ = keep(try store.listen(queue: DispatchQueue(label: "test.inbox")) { inbox.add($0) })
        XCTAssertTrue(inbox.wait(seconds: 5) { $0 == .listening(reconnected: false) })
        let before = try store.now()
        // Fill the pool so every connection is one from before the restart.
        let group = DispatchGroup()
        for _ in 0..<4 {
            DispatchQueue.global().async(group: group) { _ = try? store.read { _ in usleep(100_000) } }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)

        try XCTUnwrap(Self.cluster).restart()

        // The next calls work: the stale connections are replaced, none of them fails a call.
        for _ in 0..<6 { XCTAssertGreaterThanOrEqual(try store.now(), before) }
        XCTAssertEqual(try store.read { try $0.club() }?.name, "Club", "nothing committed was lost")
        XCTAssertTrue(inbox.wait(seconds: 10) { $0 == .listening(reconnected: true) },
                      "the listener says it reconnected, so the pages re-read")
        try store.change { try $0.notify(dateIds: ["1"]) }
        XCTAssertTrue(inbox.wait(seconds: 2) { $0 == .notification(channel: ClubStore.changesChannel, payload: "1") })
    }

    func testAConnectionThatCannotBeMadeIsAClearErrorWithoutThePassword() throws {
        let port = try XCTUnwrap(Self.cluster).port
        XCTAssertThrowsError(try ClubStore(url: "postgresql://nobody:s3cret-pw@127.0.0.1:\(port)/nope", logger: logger)) {
            error in
            let error = error as? PostgresError
            XCTAssertEqual(error?.kind, .connect)
            XCTAssertFalse(error?.message.contains("s3cret-pw") ?? true, "the password never shows")
        }
    }
}

/// Results gathered from several threads.
final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Result<Int, Error>] = []

    func add(_ result: Result<Int, Error>) {
        lock.lock()
        values.append(result)
        lock.unlock()
    }

    var all: [Result<Int, Error>] {
        lock.lock()
        defer { lock.unlock() }
        return values
    }
}
