@testable import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherPresenters
import XCTest

/// The order of the Coordinator's work (docs/PROTOCOL.md §12): control, then organisers, then
/// spectators one connection at a time; bounded lanes that tell a connection what they dropped.
final class CoordinatorLanesTests: XCTestCase {
    private let spam = ConnectionID(1)
    private let fan = ConnectionID(2)
    private let ann = ConnectionID(3)

    private func message(_ client: ConnectionID, _ text: String) -> CoordinatorEvent { .messageReceived(client, text: text) }

    private func drain(_ lanes: inout CoordinatorLanes) -> [CoordinatorEvent] {
        var events: [CoordinatorEvent] = []
        while let event = lanes.next(), events.count < 10_000 { events.append(event) }
        return events
    }

    func testControlThenOrganisersThenSpectatorsInTurn() {
        var lanes = CoordinatorLanes()
        lanes.setOrganiser(ann, true)
        for index in 0..<3 { lanes.push(message(spam, "junk \(index)"), now: 0) }
        lanes.push(message(fan, "hello"), now: 1)
        lanes.push(message(ann, "score"), now: 2)
        lanes.push(.clientConnected(ConnectionID(4), address: "10.0.0.4"), now: 3)
        XCTAssertEqual(drain(&lanes), [
            .clientConnected(ConnectionID(4), address: "10.0.0.4"),
            message(ann, "score"),
            message(spam, "junk 0"), message(fan, "hello"), message(spam, "junk 1"), message(spam, "junk 2"),
        ])
    }

    func testAFullSpectatorLaneDropsAndTellsTheConnectionOnceHowMany() {
        var limits = CoordinatorLanes.Limits()
        limits.spectatorPerConnection = 2
        var lanes = CoordinatorLanes(limits: limits)
        XCTAssertTrue(lanes.push(message(spam, "a"), now: 0))
        XCTAssertTrue(lanes.push(message(spam, "b"), now: 0))
        XCTAssertFalse(lanes.push(message(spam, "c"), now: 0))
        XCTAssertFalse(lanes.push(message(spam, "d"), now: 0))
        XCTAssertTrue(lanes.push(message(fan, "e"), now: 0), "another connection is not held to the flooder's bound")
        XCTAssertEqual(lanes.droppedTotal, 2)
        XCTAssertEqual(drain(&lanes), [.messagesDropped(spam, count: 2), message(spam, "a"), message(fan, "e"),
                                       message(spam, "b")])
    }

    func testTheSpectatorLaneIsBoundedInBytesAndInTotal() {
        var limits = CoordinatorLanes.Limits()
        limits.spectatorBytes = 10
        limits.spectatorTotal = 3
        var lanes = CoordinatorLanes(limits: limits)
        XCTAssertTrue(lanes.push(message(spam, "12345678"), now: 0))
        XCTAssertFalse(lanes.push(message(fan, "123"), now: 0), "8 + 3 bytes > 10")
        XCTAssertTrue(lanes.push(message(fan, "12"), now: 0))
        XCTAssertTrue(lanes.push(message(ConnectionID(9), ""), now: 0))
        XCTAssertFalse(lanes.push(message(ConnectionID(10), ""), now: 0), "three waiting at most")
        XCTAssertEqual(lanes.depth(.spectator), 3)
        _ = drain(&lanes)
        XCTAssertEqual(lanes.depth(.spectator), 0)
        XCTAssertTrue(lanes.push(message(fan, "123456789"), now: 0), "the bytes were given back")
    }

    func testSigningInMovesWaitingMessagesAheadKeepingTheirOrder() {
        var lanes = CoordinatorLanes()
        lanes.push(message(spam, "junk"), now: 0)
        lanes.push(message(ann, "login"), now: 0)
        lanes.push(message(ann, "command 1"), now: 0)
        XCTAssertEqual(lanes.next(), message(spam, "junk"))
        XCTAssertEqual(lanes.next(), message(ann, "login"))
        lanes.setOrganiser(ann, true)
        lanes.push(message(spam, "junk 2"), now: 0)
        lanes.push(message(ann, "command 2"), now: 0)
        XCTAssertEqual(drain(&lanes), [message(ann, "command 1"), message(ann, "command 2"), message(spam, "junk 2")])
    }

    /// A close follows its connection's messages: a command sent just before leaving still lands,
    /// and a login abandoned before its answer still counts as an attempt.
    func testACloseFollowsItsConnectionsMessagesEvenBeyondTheBound() {
        var limits = CoordinatorLanes.Limits()
        limits.spectatorPerConnection = 1
        var lanes = CoordinatorLanes(limits: limits)
        lanes.setOrganiser(ann, true)
        lanes.push(message(ann, "last command"), now: 0)
        lanes.push(.clientDisconnected(ann), now: 0)
        lanes.push(message(spam, "login"), now: 0)
        XCTAssertTrue(lanes.push(.clientDisconnected(spam), now: 0), "a close is never dropped")
        XCTAssertEqual(drain(&lanes), [message(ann, "last command"), .clientDisconnected(ann), message(spam, "login"),
                                       .clientDisconnected(spam)])
        XCTAssertEqual(lanes.depth(.spectator), 0)
        // The closed organiser's number is forgotten: whoever reuses it starts as a spectator.
        lanes.push(message(ann, "x"), now: 0)
        XCTAssertEqual(lanes.depth(.spectator), 1)
    }

    func testTheOldestWaitIsPerLane() {
        var lanes = CoordinatorLanes()
        lanes.setOrganiser(ann, true)
        lanes.push(message(spam, "a"), now: 1_000)
        lanes.push(message(fan, "b"), now: 500)
        lanes.push(message(ann, "c"), now: 2_000)
        XCTAssertEqual(lanes.oldestWait(.spectator, now: 5_000), 4_500)
        XCTAssertEqual(lanes.oldestWait(.organiser, now: 5_000), 3_000)
        XCTAssertEqual(lanes.oldestWait(.control, now: 5_000), 0)
    }
}

/// The core's half: a connection whose messages were dropped hears so once, with the count.
final class DroppedMessagesTests: XCTestCase {
    func testAConnectionIsToldHowManyOfItsMessagesWereNotRead() throws {
        let harness = try CoordinatorHarness()
        let client = harness.connect(1)
        harness.send(.messagesDropped(client, count: 3), expect: [
            .send(client, .error(code: .rateLimited,
                                 message: "The server is busy; 3 of your messages were not read. Wait a moment and try again.",
                                 id: nil, reason: Sentence(.unreadMessages, ["count": .number(3)]))),
        ])
        XCTAssertEqual(harness.tally.errorsByCode["rate_limited"], 1)
        harness.send(.messagesDropped(client, count: 0))
        harness.send(.messagesDropped(ConnectionID(99), count: 2))
    }
}
