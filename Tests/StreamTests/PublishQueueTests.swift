import GatherDelivery
import XCTest

@testable import GatherStream

/// The venue publisher's bounded queue: what goes to NATS, in which order, whatever NATS does.
final class PublishQueueTests: XCTestCase {
    private func frames(_ version: Int, patched: Bool = true) -> StateFrames {
        StateFrames(version: version, v1Snapshot: [1], v2Snapshot: [2, UInt8(version % 256)],
                    v2Patch: patched ? [3, UInt8(version % 256)] : nil)
    }

    private func drain(_ queue: inout PublishQueue) -> [PublishQueue.Publication] {
        var out: [PublishQueue.Publication] = []
        while let next = queue.next(), out.count < 1_000 { out.append(next) }
        return out
    }

    func testTheFirstPublicationIsASnapshotThenPatchesThenTicks() {
        var queue = PublishQueue(limit: 8)
        queue.add(.publishState(frames(1)))
        queue.add(.publishTick(pitch: 1, bytes: [9]))
        XCTAssertEqual(drain(&queue), [.snapshot(version: 1, bytes: [2, 1]), .tick(bytes: [9])])
        queue.add(.publishState(frames(2)))
        queue.add(.publishState(frames(3)))
        queue.add(.send(ConnectionID(1), [7]))
        queue.add(.publishPresence([8]))
        XCTAssertEqual(drain(&queue), [.patch(version: 2, bytes: [3, 2]), .patch(version: 3, bytes: [3, 3]),
                                       .tick(bytes: [8])])
        XCTAssertTrue(queue.isEmpty)
    }

    func testAVersionWithoutAPatchIsPublishedAsASnapshot() {
        var queue = PublishQueue(limit: 8)
        queue.add(.publishState(frames(1)))
        _ = drain(&queue)
        queue.add(.publishState(frames(2, patched: false)))
        XCTAssertEqual(drain(&queue), [.snapshot(version: 2, bytes: [2, 2])])
    }

    func testASnapshotFollowsEveryHundredthPatch() {
        var queue = PublishQueue(limit: 500)
        queue.add(.publishState(frames(0)))
        _ = drain(&queue)
        for version in 1...100 { queue.add(.publishState(frames(version))) }
        let out = drain(&queue)
        XCTAssertEqual(out.count, 101)
        XCTAssertEqual(out[99], .patch(version: 100, bytes: [3, 100]))
        XCTAssertEqual(out[100], .snapshot(version: 100, bytes: [2, 100]))
    }

    func testAPileUpCollapsesIntoOneSnapshotOfTheNewestVersion() {
        var queue = PublishQueue(limit: 4)
        queue.add(.publishState(frames(1)))
        _ = drain(&queue)
        for version in 2...50 { queue.add(.publishState(frames(version))) }
        XCTAssertEqual(drain(&queue), [.snapshot(version: 50, bytes: [2, 50])])
    }

    func testARestartPublishesAFreshSnapshotAndDropsStaleTicks() {
        var queue = PublishQueue(limit: 8)
        queue.add(.publishState(frames(1)))
        _ = drain(&queue)
        queue.add(.publishState(frames(2)))
        queue.add(.publishTick(pitch: 1, bytes: [9]))
        queue.restart()
        XCTAssertEqual(drain(&queue), [.snapshot(version: 2, bytes: [2, 2])])
    }

    func testNothingBeforeTheFirstVersion() {
        var queue = PublishQueue(limit: 8)
        XCTAssertNil(queue.next())
        XCTAssertTrue(queue.isEmpty)
    }
}
