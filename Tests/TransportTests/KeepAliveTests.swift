@testable import GatherTransport
import XCTest

final class KeepAliveTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000

    func testAQuietConnectionIsPingedAfterOneInterval() {
        let keepAlive = KeepAlive(intervalSeconds: 30, now: 100 * second)
        XCTAssertEqual(keepAlive.decide(now: 129 * second), .wait)
        XCTAssertEqual(keepAlive.decide(now: 130 * second), .ping)
    }

    func testAPingIsSentOnceAndTheConnectionIsGivenUpAfterAnotherSilentInterval() {
        var keepAlive = KeepAlive(intervalSeconds: 30, now: 0)
        keepAlive.pinged(at: 30 * second)
        XCTAssertEqual(keepAlive.decide(now: 31 * second), .wait, "no second ping while one is out")
        XCTAssertEqual(keepAlive.decide(now: 59 * second), .wait)
        XCTAssertEqual(keepAlive.decide(now: 60 * second), .giveUp)
    }

    func testAPongOrAMessageResetsTheClock() {
        var keepAlive = KeepAlive(intervalSeconds: 30, now: 0)
        keepAlive.pinged(at: 30 * second)
        keepAlive.heard(at: 45 * second)
        XCTAssertEqual(keepAlive, {
            var expected = KeepAlive(intervalSeconds: 30, now: 45 * second)
            expected.heard(at: 45 * second)
            return expected
        }())
        XCTAssertEqual(keepAlive.decide(now: 74 * second), .wait)
        XCTAssertEqual(keepAlive.decide(now: 75 * second), .ping)
    }

    func testAClockReadEarlierThanTheLastEventNeverPingsOrGivesUp() {
        var keepAlive = KeepAlive(intervalSeconds: 30, now: 100 * second)
        XCTAssertEqual(keepAlive.decide(now: 5 * second), .wait)
        keepAlive.pinged(at: 200 * second)
        XCTAssertEqual(keepAlive.decide(now: 150 * second), .wait)
    }

    func testTheIntervalIsAtLeastOneSecond() {
        let keepAlive = KeepAlive(intervalSeconds: 0, now: 0)
        XCTAssertEqual(keepAlive.interval, second)
        XCTAssertEqual(keepAlive.decide(now: second - 1), .wait)
        XCTAssertEqual(keepAlive.decide(now: second), .ping)
    }
}
