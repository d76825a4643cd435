import GatherDelivery
import XCTest

/// The few values the Coordinator and the Transport exchange: what pages and tests see of them
/// (subprotocol names, door names, connection numbers in logs) must not drift.
final class DeliveryTests: XCTestCase {
    func testSubprotocolNamesAreTheWireNames() {
        XCTAssertEqual(WireProtocol.allCases.map(\.rawValue), ["gather.v1", "gather.v2", "club.v1"])
        XCTAssertEqual(WireProtocol(rawValue: "club.v1"), .club)
        XCTAssertEqual(WireProtocol(rawValue: "gather.v2"), .v2)
        XCTAssertNil(WireProtocol(rawValue: "gather.v3"))
    }

    func testDoorsAreNamedForLogsAndMetrics() {
        XCTAssertEqual(Door.tls.rawValue, "tls")
        XCTAssertEqual(Door.spectator.rawValue, "spectator")
    }

    func testConnectionsAreOrderedByNumberAndPrintedWithAHash() {
        let ids = [ConnectionID(10), ConnectionID(2), ConnectionID(7)]
        XCTAssertEqual(ids.sorted().map(\.rawValue), [2, 7, 10])
        XCTAssertEqual("\(ConnectionID(42))", "#42")
        XCTAssertEqual(Set([ConnectionID(1), ConnectionID(1)]).count, 1)
    }

    func testDeliveriesCompareByContent() {
        let frames = StateFrames(version: 3, v1Snapshot: [1], v2Snapshot: [2], v2Patch: nil)
        XCTAssertEqual(Delivery.publishState(frames), .publishState(frames))
        XCTAssertNotEqual(Delivery.publishState(frames),
                          .publishState(StateFrames(version: 3, v1Snapshot: [1], v2Snapshot: [2], v2Patch: [9])))
        XCTAssertNotEqual(Delivery.send(ConnectionID(1), [1]), .greet(ConnectionID(1), [1]))
        XCTAssertNotEqual(Delivery.publishTick(pitch: 1, bytes: [1]), .publishTick(pitch: 2, bytes: [1]))
    }
}
