@testable import GatherTransport
import XCTest

/// The order a phone receives things in, and what a slow phone skips.
final class OutboxTests: XCTestCase {
    private func frame(_ text: String) -> SharedFrame { SharedFrame(Array(text.utf8)) }

    /// A version as the Transport shares it: "snapshot N" for gather.v1, "v2 snapshot N" for gather.v2.
    private func state(_ version: Int) -> SharedState {
        SharedState(version: version, v1Snapshot: frame("snapshot \(version)"), v2Snapshot: frame("v2 snapshot \(version)"))
    }

    /// Every frame `next` gives, in order; at each step `hasPending` must have said whether one comes.
    private func drain(_ outbox: inout Outbox, _ shared: SharedFrames,
                       file: StaticString = #filePath, line: UInt = #line) -> [String] {
        var sent: [String] = []
        for _ in 0..<100 {
            let pending = outbox.hasPending(shared)
            guard case .frame(let next) = outbox.next(shared) else {
                XCTAssertFalse(pending, "hasPending said a frame waits after \(sent)", file: file, line: line)
                break
            }
            XCTAssertTrue(pending, "hasPending missed \(String(decoding: next.bytes, as: UTF8.self))", file: file, line: line)
            sent.append(String(decoding: next.bytes, as: UTF8.self))
        }
        return sent
    }

    func testNothingIsSentBeforeTheGreeting() {
        var outbox = Outbox(replyLimit: 4)
        var shared = SharedFrames()
        shared.publish(state(1), patch: nil)
        XCTAssertTrue(outbox.enqueue(frame("reply")))
        XCTAssertEqual(outbox.next(shared), .nothing)
        XCTAssertFalse(outbox.hasPending(shared))

        outbox.greet(frame("welcome"), shared: shared)
        XCTAssertEqual(drain(&outbox, shared), ["welcome", "snapshot 1", "reply"])
    }

    func testSnapshotComesBeforeRepliesSoAnAckNeverOvertakesItsState() {
        var outbox = Outbox(replyLimit: 4)
        var shared = SharedFrames()
        outbox.greet(frame("welcome"), shared: shared)
        shared.publish(state(1), patch: nil)
        XCTAssertEqual(drain(&outbox, shared), ["welcome", "snapshot 1"])

        shared.publish(state(2), patch: nil)
        XCTAssertTrue(outbox.enqueue(frame("ack 2")))
        shared.ticks[1] = (1, frame("tick 1"))
        shared.presence = (1, frame("presence 1"))
        XCTAssertEqual(drain(&outbox, shared), ["snapshot 2", "ack 2", "presence 1", "tick 1"])
        XCTAssertEqual(outbox.sentVersion, 2)
    }

    func testASlowPhoneSkipsToTheNewestSnapshotAndTick() {
        var outbox = Outbox(replyLimit: 4)
        var shared = SharedFrames()
        outbox.greet(frame("welcome"), shared: shared)
        XCTAssertEqual(drain(&outbox, shared), ["welcome"])
        for version in 1...50 { shared.publish(state(version), patch: nil) }
        for serial in 1...9 { shared.ticks[1] = (serial, frame("tick \(serial)")) }
        XCTAssertEqual(drain(&outbox, shared), ["snapshot 50", "tick 9"])
        XCTAssertEqual(drain(&outbox, shared), [])
    }

    func testRepliesKeepTheirOrderAndTheQueueIsBounded() {
        var outbox = Outbox(replyLimit: 3)
        outbox.greet(frame("welcome"), shared: SharedFrames())
        XCTAssertTrue(outbox.enqueue(frame("r1")))
        XCTAssertTrue(outbox.enqueue(frame("r2")))
        XCTAssertTrue(outbox.enqueue(frame("r3")))
        XCTAssertFalse(outbox.enqueue(frame("r4")), "a fourth reply must be refused so the caller closes the phone")
        XCTAssertEqual(outbox.queuedReplies, 3)
        XCTAssertEqual(drain(&outbox, SharedFrames()), ["welcome", "r1", "r2", "r3"])
        XCTAssertTrue(outbox.enqueue(frame("r5")), "room again once the phone read")
    }

    func testALongConversationDoesNotGrowTheQueue() {
        var outbox = Outbox(replyLimit: 8)
        outbox.greet(frame("welcome"), shared: SharedFrames())
        _ = drain(&outbox, SharedFrames())
        for round in 0..<1_000 {
            XCTAssertTrue(outbox.enqueue(frame("r\(round)")))
            XCTAssertEqual(drain(&outbox, SharedFrames()), ["r\(round)"])
        }
        XCTAssertEqual(outbox.queuedReplies, 0)
    }

    func testASecondGreetingIsIgnored() {
        var outbox = Outbox(replyLimit: 2)
        outbox.greet(frame("welcome"), shared: SharedFrames())
        outbox.greet(frame("welcome again"), shared: SharedFrames())
        XCTAssertEqual(drain(&outbox, SharedFrames()), ["welcome"])
        outbox.greet(frame("late welcome"), shared: SharedFrames())
        XCTAssertEqual(drain(&outbox, SharedFrames()), [])
    }

    func testSharedFrameKeepsHeadroomForTheFrameHeader() {
        let shared = frame("hello")
        XCTAssertGreaterThanOrEqual(SharedFrame.headroom, 14, "lws needs room for the largest WebSocket header")
        XCTAssertEqual(shared.count, 5)
        XCTAssertEqual(shared.bytes, Array("hello".utf8))
        XCTAssertEqual(SharedFrame([]).count, 0)
    }

    // MARK: - Several pitches

    func testAGatherV1PhoneFollowsPitchOneAndAGatherV2PhoneEveryPitch() {
        var shared = SharedFrames()
        var v1 = Outbox(replyLimit: 4)
        var v2 = Outbox(replyLimit: 4, readsPatches: true)
        v1.greet(frame("welcome"), shared: shared)
        v2.greet(frame("welcome"), shared: shared)
        shared.ticks[2] = (1, frame("pitch 2 tick"))
        shared.ticks[1] = (2, frame("pitch 1 tick"))
        XCTAssertEqual(drain(&v1, shared), ["welcome", "pitch 1 tick"])
        XCTAssertEqual(drain(&v2, shared), ["welcome", "pitch 1 tick", "pitch 2 tick"])
    }

    func testANewPhoneIsNotSentATickFromBeforeItJoined() {
        var shared = SharedFrames()
        shared.ticks[1] = (7, frame("the last tick of a timer that has since stopped"))
        var outbox = Outbox(replyLimit: 4)
        outbox.greet(frame("welcome"), shared: shared)
        XCTAssertEqual(drain(&outbox, shared), ["welcome"])
        shared.ticks[1] = (8, frame("a new tick"))
        XCTAssertEqual(drain(&outbox, shared), ["a new tick"])
    }

    // MARK: - gather.v2 patches

    func testAGatherV2PhoneGetsOneSnapshotThenEachPatchInOrder() {
        var shared = SharedFrames()
        shared.publish(state(1), patch: nil)
        var outbox = Outbox(replyLimit: 4, readsPatches: true)
        outbox.greet(frame("welcome"), shared: shared)
        XCTAssertEqual(drain(&outbox, shared), ["welcome", "v2 snapshot 1"])
        shared.publish(state(2), patch: frame("patch 1→2"))
        shared.publish(state(3), patch: frame("patch 2→3"))
        XCTAssertTrue(outbox.enqueue(frame("ack 3")))
        XCTAssertEqual(drain(&outbox, shared), ["patch 1→2", "patch 2→3", "ack 3"],
                       "the sender has version 3 before its ack")
    }

    func testAPhoneFurtherBehindThanTheWindowGetsTheNewestSnapshotInstead() {
        var shared = SharedFrames()
        shared.publish(state(1), patch: nil)
        var outbox = Outbox(replyLimit: 4, readsPatches: true)
        outbox.greet(frame("welcome"), shared: shared)
        XCTAssertEqual(drain(&outbox, shared), ["welcome", "v2 snapshot 1"])
        for version in 2...(2 + SharedFrames.patchWindow) {
            shared.publish(state(version), patch: frame("patch \(version - 1)→\(version)"))
        }
        let newest = 2 + SharedFrames.patchWindow
        XCTAssertEqual(drain(&outbox, shared), ["v2 snapshot \(newest)"], "a stalled phone costs one version number")
    }

    func testAVersionPublishedWithoutAPatchBreaksTheChain() {
        var shared = SharedFrames()
        shared.publish(state(1), patch: nil)
        var outbox = Outbox(replyLimit: 4, readsPatches: true)
        outbox.greet(frame("welcome"), shared: shared)
        _ = drain(&outbox, shared)
        shared.publish(state(2), patch: frame("patch 1→2"))
        shared.publish(state(3), patch: nil)
        shared.publish(state(4), patch: frame("patch 3→4"))
        XCTAssertEqual(drain(&outbox, shared), ["v2 snapshot 4"])
    }

    /// A restored venue (or the relay following it) starts a new epoch with lower versions: a phone
    /// that held a later version of the old epoch gets the new epoch's snapshot, then its patches.
    func testANewEpochIsSentWholeWhateverItsVersionThenFollowedByPatches() {
        var shared = SharedFrames()
        var old = state(50)
        old.epoch = "epoch-one"
        shared.publish(old, patch: nil)
        var outbox = Outbox(replyLimit: 4, readsPatches: true)
        outbox.greet(frame("welcome"), shared: shared)
        XCTAssertEqual(drain(&outbox, shared), ["welcome", "v2 snapshot 50"])
        var restored = state(3)
        restored.epoch = "epoch-two"
        shared.publish(restored, patch: nil)
        XCTAssertEqual(drain(&outbox, shared), ["v2 snapshot 3"])
        var next = state(4)
        next.epoch = "epoch-two"
        shared.publish(next, patch: frame("patch 3→4"))
        XCTAssertEqual(drain(&outbox, shared), ["patch 3→4"])
        XCTAssertEqual(drain(&outbox, shared), [])
    }
}
