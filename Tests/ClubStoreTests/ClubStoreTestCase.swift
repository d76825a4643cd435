import ClubModel
import Foundation
import Logging
import XCTest
@testable import ClubStore

/// One private cluster per test class (started once, stopped by PID at the end), a fresh
/// database per test, and the stores a test opened closed after it.
class ClubStoreTestCase: XCTestCase {
    nonisolated(unsafe) static var cluster: PostgresCluster?
    nonisolated(unsafe) static var clusterFailure: Error?

    var url = ""
    private var opened: [ClubStore] = []
    private var listeners: [PostgresListener] = []

    override class func setUp() {
        super.setUp()
        do { cluster = try PostgresCluster() } catch { clusterFailure = error }
    }

    override class func tearDown() {
        cluster?.stop()
        cluster = nil
        super.tearDown()
    }

    override func setUpWithError() throws {
        if let failure = Self.clusterFailure { throw failure }
        url = try XCTUnwrap(Self.cluster).freshDatabaseURL()
    }

    override func tearDown() {
        listeners.forEach { $0.stop() }
        opened.forEach { $0.close() }
        super.tearDown()
    }

    var logger: Logger {
        var logger = Logger(label: "club.store.tests")
        logger.logLevel = .warning
        return logger
    }

    /// A store on this test's database (schema migrated), closed in tearDown.
    func openStore(poolSize: Int = 4) throws -> ClubStore {
        let store = try ClubStore(url: url, poolSize: poolSize, logger: logger)
        opened.append(store)
        return store
    }

    func keep(_ listener: PostgresListener) -> PostgresListener {
        listeners.append(listener)
        return listener
    }

    /// A store with its club row and one fixture, as `gather club serve` has after its first start.
    func openClub() throws -> (ClubStore, Fixture) {
        let store = try openStore()
        _ = try store.ensureClub(ClubSettings(name: "Club", timeZone: "Europe/Madrid", inviteCode: "invite-1",
                                              linkSecret: "secret", signingKeyPEM: "-----BEGIN PRIVATE KEY-----"))
        let fixture = try store.change { transaction in
            try transaction.insertFixture(Fixture(id: "", title: "Sunday 7-a-side", weekday: 7,
                                                  time: LocalTime(hour: 10, minute: 0), durationMinutes: 90,
                                                  place: "Riverside", capacity: 14), now: 0)
        }
        return (store, fixture)
    }

    func sampleDate(fixture: Fixture, occurrence: String = "2026-12-06", startsAt: Millis = 1_765_011_600_000,
                    capacity: Int = 14) -> ClubDate {
        ClubDate(id: "", fixtureId: fixture.id, occurrence: occurrence, startsAt: startsAt,
                 opensAt: startsAt - 144 * 3_600_000, closesAt: startsAt - 3_600_000, durationMinutes: 90,
                 capacity: capacity)
    }
}

/// Collects a listener's events from any queue; `wait` returns what has come by a deadline.
final class EventInbox: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [PostgresListener.Event] = []

    func add(_ event: PostgresListener.Event) {
        lock.lock()
        events.append(event)
        lock.unlock()
    }

    var received: [PostgresListener.Event] {
        lock.lock()
        defer { lock.unlock() }
        return events
    }

    /// Waits up to `seconds` for an event matching `matches`; true when one came.
    func wait(seconds: Double, for matches: (PostgresListener.Event) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if received.contains(where: matches) { return true }
            usleep(10_000)
        }
        return received.contains(where: matches)
    }
}
