import ClubModel
import Dispatch
import Synchronization
import XCTest
@testable import ClubStore

/// The results from the pitch in the database: each id recorded once whichever instance is
/// first (two at once: one wins, the other finds it), and no-shows counted over a window.
final class ClubResultsStoreTests: ClubStoreTestCase {
    func testAResultIsRecordedOnceEvenByTwoInstancesAtOnce() throws {
        let (first, _) = try openClub()
        let second = try openStore()
        XCTAssertTrue(try first.change {
            try $0.recordResult(id: "g-1", venue: "riverside", dateId: "d-1", endedAt: 5, record: .applied, now: 10)
        })
        XCTAssertFalse(try second.change {
            try $0.recordResult(id: "g-1", venue: "riverside", dateId: "d-1", endedAt: 5, record: .applied, now: 11)
        }, "the same id again, from another instance")
        XCTAssertTrue(try second.read { try $0.resultRecorded(id: "g-1") })
        XCTAssertFalse(try second.read { try $0.resultRecorded(id: "g-2") })

        // Racing: both transactions insert the same new id; the second waits for the first's COMMIT.
        let recorded = Mutex<[Bool]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let store = index == 0 ? first : second
            let fresh = (try? store.change {
                try $0.recordResult(id: "g-race", venue: "riverside", dateId: "d-1", endedAt: 5, record: .applied, now: 12)
            }) ?? false
            recorded.withLock { $0.append(fresh) }
        }
        XCTAssertEqual(recorded.withLock { $0 }.sorted { !$0 && $1 }, [false, true], "exactly one instance recorded it")
    }

    func testARecordOverItsCapsIsRefusedAndWritesNothing() throws {
        let (store, _) = try openClub()
        XCTAssertThrowsError(try store.change {
            try $0.recordResult(id: String(repeating: "g", count: 65), venue: "v", dateId: "d", endedAt: 1, record: .applied, now: 1)
        })
        XCTAssertThrowsError(try store.change {
            try $0.recordResult(id: "g", venue: "v", dateId: "", endedAt: 1, record: .applied, now: 1)
        })
        XCTAssertFalse(try store.read { try $0.resultRecorded(id: "g") })
    }

    func testNoShowsAreConfirmedAnswersNotAttendedOnPlayedDatesInTheWindow() throws {
        let (store, fixture) = try openClub()
        let week: Millis = 7 * 86_400_000
        let start = sampleDate(fixture: fixture).startsAt
        let dates = try store.change { transaction in
            try transaction.insertMissingDates((0..<3).map {
                sampleDate(fixture: fixture, occurrence: "2026-12-\(10 + $0)", startsAt: start + Millis($0) * week)
            })
        }
        let members = try store.change { transaction in
            try (1...3).map {
                try transaction.insertMember(Member(id: "", name: "M\($0)"), linkSeed: "s\($0)", linkTokenHash: "h\($0)", now: 1)
            }
        }
        // Date 0 and 1 played, date 2 still scheduled (its `attended: false` is not a no-show).
        for (index, date) in dates.enumerated() {
            try store.change { transaction in
                var saved = date
                saved.status = index < 2 ? .played : .scheduled
                try transaction.saveDate(saved)
                try transaction.saveAnswers(date: date.id, [
                    Answer(memberId: members[0].id, answer: .in, state: .confirmed, answeredAt: 1, attended: false),
                    Answer(memberId: members[1].id, answer: .in, state: .confirmed, answeredAt: 2, attended: true),
                    Answer(memberId: members[2].id, answer: .in, state: .waiting, answeredAt: 3, attended: false),
                ])
            }
        }
        XCTAssertEqual(try store.read { try $0.noShows(from: start, to: start + 2 * week) }, [members[0].id: 2])
        XCTAssertEqual(try store.read { try $0.noShows(from: start + 1, to: start + 2 * week) }, [members[0].id: 1],
                       "a date that started before the window is not counted")
        XCTAssertEqual(try store.read { try $0.noShows(from: 0, to: start - 1) }, [:])
    }
}
