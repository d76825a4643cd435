import GatherDelivery
import XCTest

/// Client text reaches the log escaped and cut, and repeated refusals are counted, not repeated.
final class LogTextTests: XCTestCase {
    func testLogTextEscapesControlsAndCutsAt200Bytes() {
        XCTAssertEqual(LogText.escaped("a\u{1B}[2J\u{07}b\\"), "a\\x1B[2J\\x07b\\x5C")
        XCTAssertEqual(LogText.escaped("\u{9B}x"), "\\x9Bx", "C1 controls too")
        let long = LogText.escaped(String(repeating: "é", count: 300))
        XCTAssertLessThanOrEqual(long.utf8.count, 200 + "…".utf8.count)
        XCTAssertTrue(long.hasSuffix("…"))
    }

    func testRepeatedLinesAreCountedAndSummedUpOnceTheWindowEnds() {
        var throttle = LogThrottle(windowSeconds: 10, burst: 3)
        let admitted = (0..<3_651).map { throttle.admit("refused handshakes", key: "127.0.0.9", now: UInt64($0) * 1_000) }
        XCTAssertEqual(admitted.filter { $0 }.count, 3)
        XCTAssertTrue(throttle.admit("refused handshakes", key: "127.0.0.10", now: 0), "each address has its own window")
        XCTAssertEqual(throttle.summaries(now: 9_000_000_000), [], "the window is still open")
        XCTAssertEqual(throttle.summaries(now: 10_000_000_000).map(\.line),
                       ["… 3,648 more refused handshakes from 127.0.0.9 in the last 10 s"])
        XCTAssertTrue(throttle.admit("refused handshakes", key: "127.0.0.9", now: 10_000_000_001), "a new window")
    }

    func testABucketRefillsAtItsRateUpToItsCapacityAndBigCostsWaitForEnough() {
        var bucket = TokenBucket(capacity: 10, ratePerSecond: 2, now: 0)
        XCTAssertTrue(bucket.take(10, now: 0))
        XCTAssertFalse(bucket.take(now: 0))
        XCTAssertFalse(bucket.take(2, now: 500), "half a second gives one token, not two")
        XCTAssertTrue(bucket.take(now: 500))
        XCTAssertFalse(bucket.isFull(now: 4_000))
        XCTAssertTrue(bucket.isFull(now: 5_500), "capped at its capacity")
    }
}
