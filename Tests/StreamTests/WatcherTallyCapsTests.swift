@testable import GatherStream
import XCTest

/// Watcher reports come from anything holding relay credentials: believed only within the caps.
final class WatcherTallyCapsTests: XCTestCase {
    private func report(_ relay: String, _ spectators: Int) -> [UInt8] {
        Array("{\"relay\":\"\(relay)\",\"spectators\":\(spectators)}".utf8)
    }

    func testAThousandMadeUpRelaysMoveTheTotalOnlyWithinTheCaps() {
        var tally = WatcherTally()
        XCTAssertTrue(tally.record(report("real", 250), now: 0))
        XCTAssertFalse(tally.record(report("huge", WatcherTally.maximumPerRelay + 1), now: 0), "above the cap: refused")
        // Modest counts: only the first 64 ids are counted (the real relay and 63 fakes).
        for index in 0..<1_000 {
            _ = tally.record(report("fake-\(index)", 10_000), now: 1_000)
        }
        XCTAssertEqual(tally.total, 250 + 63 * 10_000)
        // The largest counts each: the sum shown stops at the total's cap.
        for index in 0..<1_000 {
            _ = tally.record(report("fake-\(index)", WatcherTally.maximumPerRelay), now: 2_000)
        }
        XCTAssertEqual(tally.total, WatcherTally.maximumTotal)
        // The real relay keeps reporting; once the fakes fall silent it alone is left.
        _ = tally.record(report("real", 260), now: 14_000)
        XCTAssertTrue(tally.expire(now: 17_001))
        XCTAssertEqual(tally.total, 260)
    }

    func testTheCapsAreTheDocumentedFigures() {
        XCTAssertEqual(WatcherTally.maximumRelays, 64)
        XCTAssertEqual(WatcherTally.maximumPerRelay, 100_000)
        XCTAssertEqual(WatcherTally.maximumTotal, 1_000_000)
    }
}
