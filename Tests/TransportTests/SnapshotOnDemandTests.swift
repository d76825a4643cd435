import Foundation
import GatherDelivery
import XCTest

@testable import GatherTransport

/// A relay's snapshots are rendered only when a follower needs one, once per version however
/// many need it: counted with a renderer of the test's own that records each version it renders.
final class SnapshotOnDemandTests: XCTestCase {
    /// Records every rendering, per version (the Transport may read on any thread it likes).
    private final class RenderLog: @unchecked Sendable {
        private let lock = NSLock()
        private var counts: [Int: Int] = [:]

        func render(_ version: Int) -> [UInt8] {
            lock.withLock { counts[version, default: 0] += 1 }
            return Array("v2 snapshot \(version)".utf8)
        }

        func renders(of version: Int) -> Int { lock.withLock { counts[version, default: 0] } }
        var total: Int { lock.withLock { counts.values.reduce(0, +) } }
    }

    private let epoch = "venue-epoch_2026A"
    private let log = RenderLog()

    private func frame(_ text: String) -> SharedFrame { SharedFrame(Array(text.utf8)) }

    /// What a relay hands the Transport for one version: the venue's patch, a snapshot on demand.
    private func frames(_ version: Int, patched: Bool) -> StateFrames {
        let log = log
        return StateFrames(version: version, v1Snapshot: [], v2Snapshot: SnapshotOnDemand { log.render(version) },
                           v2Patch: patched ? Array("patch \(version - 1)→\(version)".utf8) : nil, epoch: epoch)
    }

    /// Publishes as the Transport's `apply` does.
    private func publish(_ frames: StateFrames, into shared: inout SharedFrames) {
        shared.publish(SharedState(frames), patch: frames.v2Patch.map(SharedFrame.init))
    }

    private func drain(_ outbox: inout Outbox, _ shared: SharedFrames) -> [String] {
        var sent: [String] = []
        for _ in 0..<300 {
            guard case .frame(let next) = outbox.next(shared) else { break }
            sent.append(String(decoding: next.bytes, as: UTF8.self))
        }
        return sent
    }

    private func follower(_ shared: SharedFrames, resume: ResumePoint? = nil) -> Outbox {
        var outbox = Outbox(replyLimit: 4, readsPatches: true)
        outbox.greet(frame("welcome"), shared: shared, resume: resume)
        return outbox
    }

    func testFollowersThatChainPatchesNeverMakeTheRelayRenderASnapshot() {
        var shared = SharedFrames()
        publish(frames(10, patched: false), into: &shared)
        var followers = (0..<200).map { _ in follower(shared) }
        for index in followers.indices { XCTAssertEqual(drain(&followers[index], shared), ["welcome", "v2 snapshot 10"]) }
        XCTAssertEqual(log.renders(of: 10), 1, "200 new followers of one version: one rendering")

        for version in 11...60 {
            publish(frames(version, patched: true), into: &shared)
            for index in followers.indices {
                XCTAssertEqual(drain(&followers[index], shared), ["patch \(version - 1)→\(version)"])
            }
        }
        XCTAssertEqual(log.total, 1, "50 versions reached every follower as patches: not one more snapshot")
    }

    func testAThousandNewFollowersOfOneVersionShareOneRendering() {
        var shared = SharedFrames()
        publish(frames(1, patched: false), into: &shared)
        for version in 2...5 { publish(frames(version, patched: true), into: &shared) }
        XCTAssertEqual(log.total, 0, "no follower yet: nothing rendered")
        for _ in 0..<1_000 {
            var outbox = follower(shared)
            XCTAssertEqual(drain(&outbox, shared), ["welcome", "v2 snapshot 5"])
        }
        XCTAssertEqual(log.renders(of: 5), 1)
        XCTAssertEqual(log.total, 1, "versions no follower needed whole were never rendered")
    }

    func testOnlyACatchUpTheWindowCannotServeOrAFollowerTooFarBehindRendersTheNewestVersion() {
        var shared = SharedFrames()
        publish(frames(1, patched: false), into: &shared)
        var stalled = follower(shared)
        _ = drain(&stalled, shared)
        for version in 2...200 { publish(frames(version, patched: true), into: &shared) }
        XCTAssertEqual(log.total, 1)

        var inWindow = follower(shared, resume: ResumePoint(epoch: epoch, version: 190))
        XCTAssertEqual(drain(&inWindow, shared).count, 1 + 10, "the welcome and ten patches")
        XCTAssertEqual(log.total, 1, "a catch-up served from the window renders nothing")

        var outOfWindow = follower(shared, resume: ResumePoint(epoch: epoch, version: 3))
        XCTAssertEqual(drain(&outOfWindow, shared), ["welcome", "v2 snapshot 200"])
        XCTAssertEqual(drain(&stalled, shared), ["v2 snapshot 200"], "199 versions behind: the newest snapshot")
        XCTAssertEqual(log.renders(of: 200), 1)
        XCTAssertEqual(log.total, 2)
    }

    func testABrokenChainSendsTheSnapshotOfTheVersionAfterTheGap() {
        var shared = SharedFrames()
        publish(frames(1, patched: false), into: &shared)
        var outbox = follower(shared)
        _ = drain(&outbox, shared)
        publish(frames(2, patched: true), into: &shared)
        XCTAssertEqual(drain(&outbox, shared), ["patch 1→2"])
        publish(frames(4, patched: false), into: &shared)  // the relay's own replay after a gap
        XCTAssertEqual(drain(&outbox, shared), ["v2 snapshot 4"])
        XCTAssertEqual(log.renders(of: 2), 0)
        XCTAssertEqual(log.renders(of: 4), 1)
    }

    func testBytesGivenRenderedAreSharedAsTheyAre() {
        let ready = SnapshotOnDemand(rendered: Array("ready".utf8))
        XCTAssertTrue(ready.isRendered)
        let log = log
        let pending = SnapshotOnDemand { log.render(7) }
        XCTAssertFalse(pending.isRendered)
        XCTAssertEqual(pending.bytes, Array("v2 snapshot 7".utf8))
        XCTAssertEqual(pending.bytes, Array("v2 snapshot 7".utf8))
        XCTAssertTrue(pending.isRendered)
        XCTAssertEqual(log.renders(of: 7), 1)
    }
}
