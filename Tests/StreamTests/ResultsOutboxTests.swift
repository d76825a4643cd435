import GatherModel
import XCTest

@testable import GatherStream

/// What the venue still owes its results subject: nothing until the subject's last result is
/// read, then every entry after it, oldest first; a new stream gets the last 8 weeks.
final class ResultsOutboxTests: XCTestCase {
    private let day: Int64 = 86_400_000
    private let now: Int64 = 1_795_000_000_000

    private func entry(_ id: String, endedAt: Int64) -> HistoryEntry {
        HistoryEntry(id: id, endedAt: endedAt, teamA: .init(name: "A", players: []), teamB: .init(name: "B", players: []),
                     score: Score())
    }

    func testNothingIsDueUntilTheSubjectsLastResultIsKnown() {
        let outbox = ResultsOutbox()
        XCTAssertFalse(outbox.needsPass(generation: 1))
        XCTAssertEqual(outbox.due([entry("a", endedAt: now)], now: now).entries.map(\.id), [])
    }

    func testEntriesAfterTheLastPublishedGoOutOldestFirstAndOnlyOnce() {
        var outbox = ResultsOutbox()
        outbox.learned(.init(endedAt: now - 100, id: "b"))
        // The store gives the history newest first; equal ends are ordered by id.
        let history = [entry("e", endedAt: now), entry("d", endedAt: now - 100), entry("b", endedAt: now - 100),
                       entry("a", endedAt: now - 100), entry("c", endedAt: now - 50)]
        XCTAssertTrue(outbox.needsPass(generation: 7))
        let (due, complete) = outbox.due(history, now: now)
        XCTAssertEqual(due.map(\.id), ["d", "c", "e"])
        XCTAssertTrue(complete)
        for published in due { outbox.published(published) }
        outbox.finished(generation: 7)
        XCTAssertFalse(outbox.needsPass(generation: 7), "the same history is not read again")
        XCTAssertTrue(outbox.needsPass(generation: 8))
        XCTAssertEqual(outbox.due(history, now: now).entries.map(\.id), [], "each once")
        XCTAssertEqual(outbox.due(history + [entry("f", endedAt: now + 1)], now: now).entries.map(\.id), ["f"])
    }

    func testANewStreamGetsTheLastEightWeeksAndAReconnectionReadsAgain() {
        var outbox = ResultsOutbox()
        outbox.learned(nil)
        let history = [entry("new", endedAt: now - day), entry("edge", endedAt: now - 56 * day), entry("old", endedAt: now - 57 * day)]
        XCTAssertEqual(outbox.due(history, now: now).entries.map(\.id), ["edge", "new"])
        outbox.published(history[0])
        outbox.finished(generation: 1)
        outbox.forget()
        XCTAssertEqual(outbox.published, .unknown)
        XCTAssertFalse(outbox.needsPass(generation: 1), "after a reconnection nothing goes out before the subject is read")
    }

    func testAPassIsCappedAndTheRestFollows() {
        var outbox = ResultsOutbox()
        outbox.learned(nil)
        let history = (0..<(ResultsOutbox.maximumPerPass + 5)).map { entry("g\($0)", endedAt: now - Int64($0)) }
        let first = outbox.due(history, now: now)
        XCTAssertEqual(first.entries.count, ResultsOutbox.maximumPerPass)
        XCTAssertFalse(first.complete)
        first.entries.forEach { outbox.published($0) }
        let second = outbox.due(history, now: now)
        XCTAssertEqual(second.entries.count, 5)
        XCTAssertTrue(second.complete)
    }
}
