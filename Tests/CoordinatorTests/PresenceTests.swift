import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherModelTestSupport
import XCTest

/// `presence` goes out when who is connected changes, at most once a second.
final class PresenceTests: XCTestCase {
    func testPresenceIsThrottledToOnceASecondAndSentOnlyWhenChanged() throws {
        let harness = try CoordinatorHarness()
        let start = harness.clock.now
        harness.send(.clientConnected(ConnectionID(1), address: "a"), expect: [
            .greet(ConnectionID(1), .welcome(serverTime: start)), .publishPresence(organisers: [], spectators: 1),
        ])
        harness.clock.advance(byMs: 200)
        harness.send(.clientConnected(ConnectionID(2), address: "b"), expect: [
            .greet(ConnectionID(2), .welcome(serverTime: start + 200)), .schedulePresence(at: start + 1000),
        ])
        harness.send(.clientConnected(ConnectionID(3), address: "c"), expect: [
            .greet(ConnectionID(3), .welcome(serverTime: start + 200)),
        ])
        harness.clock.advance(byMs: 800)
        harness.send(.presenceWoke, expect: [.publishPresence(organisers: [], spectators: 3)])
        harness.clock.advance(byMs: 5000)
        // Connect and leave again: nothing changed, nothing sent.
        harness.send(.clientConnected(ConnectionID(4), address: "d"), expect: [
            .greet(ConnectionID(4), .welcome(serverTime: start + 6000)), .publishPresence(organisers: [], spectators: 4),
        ])
        harness.clock.advance(byMs: 100)
        harness.send(.clientDisconnected(ConnectionID(4)), expect: [.schedulePresence(at: start + 7000)])
        harness.send(.clientConnected(ConnectionID(5), address: "e"), expect: [
            .greet(ConnectionID(5), .welcome(serverTime: start + 6100)),
        ])
        harness.clock.advance(byMs: 900)
        harness.send(.presenceWoke, expect: [])
    }

    func testTheRelaysSpectatorsJoinPresenceAsRemote() throws {
        let harness = try CoordinatorHarness()
        let start = harness.clock.now
        harness.send(.clientConnected(ConnectionID(1), address: "a"), expect: [
            .greet(ConnectionID(1), .welcome(serverTime: start)), .publishPresence(organisers: [], spectators: 1),
        ])
        harness.clock.advance(byMs: 1000)
        harness.send(.remoteSpectatorsCounted(290), expect: [.publishPresence(organisers: [], spectators: 1, remote: 290)])
        harness.clock.advance(byMs: 1000)
        harness.send(.remoteSpectatorsCounted(290), expect: [])
        harness.send(.remoteSpectatorsCounted(-5), expect: [.publishPresence(organisers: [], spectators: 1, remote: 0)])
    }
}
