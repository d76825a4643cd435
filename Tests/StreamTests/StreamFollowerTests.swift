import GatherDelivery
import GatherModel
import GatherPresenters
import XCTest

@testable import GatherStream

/// The relay's follower on a test clock: every event, the whole set of actions.
final class StreamFollowerTests: XCTestCase {
    private func snapshot(_ version: Int, score: Int) -> [UInt8] {
        JSONWriter.bytes(["type": "snapshot", "version": .int(version), "state": ["score": .int(score)]])
    }

    private func patch(from: Int, score: Int) -> [UInt8] {
        JSONWriter.bytes(["type": "patch", "from": .int(from), "version": .int(from + 1),
                          "ops": [["op": "replace", "path": "/score", "value": .int(score)]]])
    }

    private func snapshotFrames(_ version: Int, score: Int, patch: [UInt8]? = nil) -> StateFrames {
        StreamFollower.frames(version: version, state: ["score": .int(score)], patch: patch)
    }

    private func connected() -> StreamFollower {
        var follower = StreamFollower()
        XCTAssertEqual(follower.natsChanged(connected: true, now: 0), [.replay(reason: "connected to NATS")])
        follower.replayStarted()
        return follower
    }

    func testTheSnapshotThenEachPatchIsAnnouncedWithTheVenuesBytes() {
        var follower = connected()
        XCTAssertEqual(follower.receivedState(snapshot(5, score: 0), now: 1_000),
                       [.linkRestored, .announce(snapshotFrames(5, score: 0))])
        let six = patch(from: 5, score: 1)
        XCTAssertEqual(follower.receivedState(six, now: 2_000), [.announce(snapshotFrames(6, score: 1, patch: six))])
        XCTAssertEqual(follower.held?.version, 6)
        XCTAssertEqual(follower.held?.state, ["score": 1])
        XCTAssertEqual(follower.lastHeardMs, 2_000)
    }

    func testAGapAsksForAReplayAndAnnouncesNothing() {
        var follower = connected()
        _ = follower.receivedState(snapshot(5, score: 0), now: 0)
        XCTAssertEqual(follower.receivedState(patch(from: 6, score: 2), now: 1),
                       [.replay(reason: "a gap: holding 5, the stream went on from 6")])
        follower.replayStarted()
        // While the replay has not brought its snapshot, patches are not gaps and not applied.
        XCTAssertEqual(follower.receivedState(patch(from: 7, score: 3), now: 2), [])
        XCTAssertEqual(follower.held?.version, 5)
    }

    func testAReplayFromAnOlderSnapshotCatchesUpSilentlyAndNeverGoesBack() {
        var follower = connected()
        _ = follower.receivedState(snapshot(5, score: 0), now: 0)
        _ = follower.receivedState(patch(from: 5, score: 1), now: 0)
        _ = follower.receivedState(patch(from: 7, score: 3), now: 0)  // gap
        follower.replayStarted()
        XCTAssertEqual(follower.receivedState(snapshot(5, score: 0), now: 1), [])
        XCTAssertEqual(follower.receivedState(patch(from: 5, score: 1), now: 1), [])
        XCTAssertEqual(follower.announced, 6)
        // Version 7 follows a version the spectators hold: the venue's patch goes on as it is.
        let seven = patch(from: 6, score: 2)
        XCTAssertEqual(follower.receivedState(seven, now: 1), [.announce(snapshotFrames(7, score: 2, patch: seven))])
        // A replay that jumps past the announced version: the spectators get a snapshot.
        _ = follower.receivedState(patch(from: 9, score: 9), now: 1)
        follower.replayStarted()
        XCTAssertEqual(follower.receivedState(snapshot(8, score: 5), now: 2), [.announce(snapshotFrames(8, score: 5))])
    }

    func testASnapshotOfTheHeldVersionReplacesItQuietly() {
        var follower = connected()
        _ = follower.receivedState(snapshot(5, score: 0), now: 0)
        XCTAssertEqual(follower.receivedState(snapshot(5, score: 0), now: 1), [])
        XCTAssertEqual(follower.receivedState(patch(from: 4, score: 0), now: 1), [])  // a duplicate
    }

    func testAPatchThatDoesNotApplyIsReportedOnceAndReplayed() {
        var follower = connected()
        _ = follower.receivedState(snapshot(5, score: 0), now: 0)
        let bad = JSONWriter.bytes(["type": "patch", "from": 5, "version": 6,
                                    "ops": [["op": "remove", "path": "/missing"]]])
        let actions = follower.receivedState(bad, now: 1)
        XCTAssertEqual(actions.count, 2)
        guard case .reportJunk = actions[0] else { return XCTFail("\(actions)") }
        XCTAssertEqual(actions[1], .replay(reason: "a patch that does not apply"))
        XCTAssertEqual(follower.held?.version, 5)
    }

    func testJunkIsSkippedAndReportedOnceWithoutStoppingTheFollower() {
        var follower = connected()
        _ = follower.receivedState(snapshot(5, score: 0), now: 0)
        let junk: [UInt8] = Array("not json".utf8)
        XCTAssertEqual(follower.receivedState(junk, now: 1).count, 1)
        XCTAssertEqual(follower.receivedState(junk, now: 2), [])
        let six = patch(from: 5, score: 1)
        XCTAssertEqual(follower.receivedState(six, now: 3), [.announce(snapshotFrames(6, score: 1, patch: six))])
        XCTAssertEqual(follower.receivedTick(Array("{\"type\":\"tick\"}".utf8), now: 4).count, 1)
    }

    func testTheLinkIsLostAfterTenSecondsOfSilenceOrWithNATSAndBackWhenHeard() {
        var follower = connected()
        _ = follower.receivedState(snapshot(1, score: 0), now: 0)
        XCTAssertEqual(follower.clock(now: 10_000), [])
        XCTAssertEqual(follower.receivedTick(Array("{\"type\":\"heartbeat\",\"version\":1}".utf8), now: 5_000), [])
        XCTAssertEqual(follower.clock(now: 15_000), [])
        XCTAssertEqual(follower.clock(now: 15_001), [.linkLost(sinceMs: 5_000)])
        XCTAssertEqual(follower.clock(now: 20_000), [])
        let tick = Array("{\"type\":\"tick\",\"pitch\":2,\"timer\":{}}".utf8)
        XCTAssertEqual(follower.receivedTick(tick, now: 21_000), [.linkRestored, .forwardTick(pitch: 2, bytes: tick)])
        XCTAssertEqual(follower.natsChanged(connected: false, now: 22_000), [.linkLost(sinceMs: 21_000)])
        XCTAssertEqual(follower.natsChanged(connected: false, now: 22_000), [])
        // Heard again only once NATS is back.
        XCTAssertEqual(follower.natsChanged(connected: true, now: 23_000), [.replay(reason: "connected to NATS")])
        follower.replayStarted()
        XCTAssertEqual(follower.receivedState(snapshot(1, score: 0), now: 23_500), [.linkRestored])
    }

    func testAHeartbeatAheadOfTheStreamAsksForAReplay() {
        var follower = connected()
        _ = follower.receivedState(snapshot(3, score: 0), now: 0)
        XCTAssertEqual(follower.receivedTick(Array("{\"type\":\"heartbeat\",\"version\":3}".utf8), now: 1), [])
        XCTAssertEqual(follower.receivedTick(Array("{\"type\":\"heartbeat\",\"version\":4}".utf8), now: 2),
                       [.replay(reason: "the venue is at 4, the stream gave 3")])
    }

    func testTicksBeforeAnyStateAreNotForwardedAndPresenceIs() {
        var follower = connected()
        let tick = Array("{\"type\":\"tick\",\"pitch\":1,\"timer\":{}}".utf8)
        XCTAssertEqual(follower.receivedTick(tick, now: 0), [.linkRestored])
        let presence = Array("{\"type\":\"presence\",\"organisers\":[],\"spectators\":3}".utf8)
        XCTAssertEqual(follower.receivedTick(presence, now: 0), [.forwardPresence(presence)])
    }

    func testAGapTheReplayMeetsAgainIsInTheStreamItselfAndIsSkipped() {
        var follower = connected()
        _ = follower.receivedState(snapshot(5, score: 0), now: 0)
        let forged = patch(from: 9, score: 9)
        XCTAssertEqual(follower.receivedState(forged, now: 1), [.replay(reason: "a gap: holding 5, the stream went on from 9")])
        follower.replayStarted()
        XCTAssertEqual(follower.receivedState(snapshot(5, score: 0), now: 2), [])
        XCTAssertEqual(follower.receivedState(forged, now: 3),
                       [.reportJunk("the stream itself holds a message that does not follow version 5; skipped")])
        let six = patch(from: 5, score: 1)
        XCTAssertEqual(follower.receivedState(six, now: 4), [.announce(snapshotFrames(6, score: 1, patch: six))])
    }
}
