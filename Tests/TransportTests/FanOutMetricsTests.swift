@testable import GatherTransport
import XCTest

/// The publish → write histogram's buckets, as `/metrics` prints them: fine enough that a p99
/// read from them is off by at most one step (0.1 ms below 5 ms, 0.5 ms below 50 ms, …).
final class FanOutMetricsTests: XCTestCase {
    func testAWriteCountsInTheSmallestBucketThatHoldsIt() {
        let bounds = FanOutMetrics.Reading.bounds
        func bucket(_ milliseconds: Double) -> String {
            let index = FineBuckets.index(milliseconds: milliseconds)
            return index == bounds.count ? "+Inf" : "\(bounds[index])"
        }
        XCTAssertEqual(bucket(0), "0.1")
        XCTAssertEqual(bucket(0.1), "0.1")
        XCTAssertEqual(bucket(0.35), "0.4")
        XCTAssertEqual(bucket(4.95), "5.0")
        XCTAssertEqual(bucket(5.2), "5.5")
        XCTAssertEqual(bucket(49.9), "50.0")
        XCTAssertEqual(bucket(121), "125.0")
        XCTAssertEqual(bucket(777), "800.0")
        XCTAssertEqual(bucket(5_000), "5000.0")
        XCTAssertEqual(bucket(5_000.1), "+Inf")
    }

    func testTheBoundsRiseInExactStepsUpToFiveSeconds() {
        let bounds = FanOutMetrics.Reading.bounds
        XCTAssertEqual(bounds.count, 50 + 90 + 90 + 90)
        XCTAssertEqual(bounds.prefix(3), [0.1, 0.2, 0.3], "printed as 0.3, not 0.30000000000000004")
        XCTAssertEqual(bounds.last, 5_000)
        for (lower, upper) in zip(bounds, bounds.dropFirst()) {
            XCTAssertLessThan(lower, upper)
            XCTAssertLessThanOrEqual(upper - lower, upper <= 5 ? 0.1001 : upper <= 50 ? 0.5 : upper <= 500 ? 5 : 50)
        }
    }

    func testCountsWrittenBeforeAPublishAreNotReadUntilIt() {
        let metrics = FanOutMetrics()
        var counter = FanOutCounter()
        counter.wrote(bytes: 100, frames: 1, wire: .v2)
        counter.observe(publishedAt: 0, now: 2_500_000)
        XCTAssertEqual(metrics.read(), FanOutMetrics.Reading(), "nothing is shared before publish()")
        counter.publish(to: metrics)
        let reading = metrics.read()
        XCTAssertEqual(reading.written(.v2), .init(bytes: 100, frames: 1))
        XCTAssertEqual(reading.written(.v1), .init())
        // 2.5 ms, counted by hand: the 0.1 ms steps 0.1, 0.2, …, 2.5 put it at index 24.
        XCTAssertEqual(FanOutMetrics.Reading.bounds[24], 2.5)
        XCTAssertEqual(reading.counts[24], 1)
        XCTAssertEqual(reading.counts.reduce(0, +), 1, "in that bucket only")
        XCTAssertEqual(reading.total, 1)
    }
}
