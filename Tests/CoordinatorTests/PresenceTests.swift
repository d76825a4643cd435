import GatherCoordinator
import GatherModel
import XCTest

/// `presence` goes out when who is connected changes, at most once a second.
final class PresenceTests: XCTestCase {
    func testPresenceIsThrottledToOnceASecondAndSentOnlyWhenChanged() throws {
        let harness = try CoordinatorHarness()
        let start = harness.clock.now
        harness.send(.clientConnected(ClientID(1), address: "a"), expect: [
            .greet(ClientID(1), .welcome(serverTime: start)), .publishPresence(organisers: [], spectators: 1),
        ])
        harness.clock.advance(byMs: 200)
        harness.send(.clientConnected(ClientID(2), address: "b"), expect: [
            .greet(ClientID(2), .welcome(serverTime: start + 200)), .schedulePresence(at: start + 1000),
        ])
        harness.send(.clientConnected(ClientID(3), address: "c"), expect: [
            .greet(ClientID(3), .welcome(serverTime: start + 200)),
        ])
        harness.clock.advance(byMs: 800)
        harness.send(.presenceWoke, expect: [.publishPresence(organisers: [], spectators: 3)])
        harness.clock.advance(byMs: 5000)
        // Connect and leave again: nothing changed, nothing sent.
        harness.send(.clientConnected(ClientID(4), address: "d"), expect: [
            .greet(ClientID(4), .welcome(serverTime: start + 6000)), .publishPresence(organisers: [], spectators: 4),
        ])
        harness.clock.advance(byMs: 100)
        harness.send(.clientDisconnected(ClientID(4)), expect: [.schedulePresence(at: start + 7000)])
        harness.send(.clientConnected(ClientID(5), address: "e"), expect: [
            .greet(ClientID(5), .welcome(serverTime: start + 6100)),
        ])
        harness.clock.advance(byMs: 900)
        harness.send(.presenceWoke, expect: [])
    }
}
