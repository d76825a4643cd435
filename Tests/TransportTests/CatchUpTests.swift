@testable import GatherTransport
import XCTest

/// Catching up by patches (`/live?epoch=E&version=V`), every case of the contract, without
/// sockets: the query as read, the decision, the window it is taken against, and what the
/// connection is then sent.
final class CatchUpTests: XCTestCase {
    private let epoch = "venue-epoch_2026A"

    private func frame(_ text: String) -> SharedFrame { SharedFrame(Array(text.utf8)) }

    private func state(_ version: Int, epoch: String? = nil) -> SharedState {
        SharedState(version: version, v1Snapshot: frame("snapshot \(version)"), v2Snapshot: frame("v2 snapshot \(version)"),
                    epoch: epoch)
    }

    /// Versions `first…last` of `epoch`: the first as a snapshot, each later one with its patch.
    private func published(_ first: Int, _ last: Int, epoch: String?) -> SharedFrames {
        var shared = SharedFrames()
        shared.publish(state(first, epoch: epoch), patch: nil)
        if last > first {
            for version in (first + 1)...last {
                shared.publish(state(version, epoch: epoch), patch: frame("patch \(version - 1)→\(version)"))
            }
        }
        return shared
    }

    private func drain(_ outbox: inout Outbox, _ shared: SharedFrames) -> [String] {
        var sent: [String] = []
        for _ in 0..<300 {
            guard case .frame(let next) = outbox.next(shared) else { break }
            sent.append(String(decoding: next.bytes, as: UTF8.self))
        }
        return sent
    }

    // MARK: - The query

    func testAWellFormedQueryIsAResumePointAndOtherParametersAreIgnored() {
        XCTAssertEqual(ResumeQuery.parse("epoch=\(epoch)&version=12"), ResumePoint(epoch: epoch, version: 12))
        XCTAssertEqual(ResumeQuery.parse("version=0&epoch=\(epoch)"), ResumePoint(epoch: epoch, version: 0))
        XCTAssertEqual(ResumeQuery.parse("t=1&epoch=\(epoch)&version=7"), ResumePoint(epoch: epoch, version: 7))
        XCTAssertEqual(ResumeQuery.parse("epoch=abcdefgh&version=1")?.epoch, "abcdefgh", "8 characters is the shortest")
        XCTAssertEqual(ResumeQuery.parse("epoch=\(String(repeating: "Z", count: 64))&version=1")?.version, 1, "64 the longest")
    }

    func testAMalformedQueryIsNoResumePoint() {
        let malformed: [String?] = [
            nil, "", "epoch=\(epoch)", "version=3",                                  // missing
            "epoch=\(epoch)&epoch=\(epoch)&version=3", "epoch=\(epoch)&version=3&version=3",  // repeated
            "epoch=abcdefg&version=3", "epoch=\(String(repeating: "a", count: 65))&version=3",  // epoch length
            "epoch=venue.epoch1&version=3", "epoch=venue%2Fepoch&version=3", "epoch=vénue-epoch&version=3",
            "epoch=&version=3", "epoch&version=3",
            "epoch=\(epoch)&version=-1", "epoch=\(epoch)&version=+1", "epoch=\(epoch)&version=1.5",  // version
            "epoch=\(epoch)&version=", "epoch=\(epoch)&version=0x10", "epoch=\(epoch)&version= 1",
            "epoch=\(epoch)&version=9999999999999999999",
            "epoch=\(epoch)&version=1&pad=\(String(repeating: "x", count: 300))",  // over the size cap
        ]
        for query in malformed {
            XCTAssertNil(ResumeQuery.parse(query), "\(query ?? "nil")")
        }
    }

    // MARK: - The decision

    func testEveryPatchAfterTheVersionHeldMeansPatchesAndNoSnapshot() {
        let shared = published(1, 20, epoch: epoch)
        XCTAssertEqual(CatchUp.decide(ResumePoint(epoch: epoch, version: 17), state: shared.state, window: shared.window),
                       .patches(after: 17, through: 20))
        XCTAssertEqual(CatchUp.decide(ResumePoint(epoch: epoch, version: 1), state: shared.state, window: shared.window),
                       .patches(after: 1, through: 20), "the first patch of the chain is held")
    }

    func testTheCurrentVersionMeansNothingAfterWelcome() {
        let shared = published(1, 20, epoch: epoch)
        XCTAssertEqual(CatchUp.decide(ResumePoint(epoch: epoch, version: 20), state: shared.state, window: shared.window),
                       .upToDate(version: 20))
        let unpatched = published(5, 5, epoch: epoch)
        XCTAssertEqual(CatchUp.decide(ResumePoint(epoch: epoch, version: 5), state: unpatched.state, window: unpatched.window),
                       .upToDate(version: 5), "no patch is needed to be up to date")
    }

    func testEverythingElseGetsTheSnapshot() {
        let shared = published(1, 200, epoch: epoch)
        let cases: [(ResumePoint?, String)] = [
            (nil, "no query or a malformed one"),
            (ResumePoint(epoch: "another-epoch", version: 199), "another epoch"),
            (ResumePoint(epoch: epoch, version: 201), "a version the server does not hold yet"),
            (ResumePoint(epoch: epoch, version: 200 - PatchWindow.versions - 1), "older than the window"),
            (ResumePoint(epoch: epoch, version: 0), "before the first snapshot"),
        ]
        for (point, why) in cases {
            XCTAssertEqual(CatchUp.decide(point, state: shared.state, window: shared.window), .snapshot, why)
        }
        XCTAssertEqual(CatchUp.decide(ResumePoint(epoch: epoch, version: 200 - PatchWindow.versions), state: shared.state,
                                      window: shared.window), .patches(after: 72, through: 200), "the oldest it can serve")
        XCTAssertEqual(CatchUp.decide(ResumePoint(epoch: epoch, version: 3), state: nil, window: PatchWindow()), .snapshot,
                       "no state yet")
    }

    func testANilEpochNeverMatches() {
        let shared = published(1, 10, epoch: nil)
        XCTAssertEqual(CatchUp.decide(ResumePoint(epoch: epoch, version: 9), state: shared.state, window: shared.window),
                       .snapshot)
        XCTAssertEqual(CatchUp.decide(ResumePoint(epoch: epoch, version: 10), state: shared.state, window: shared.window),
                       .snapshot)
    }

    func testAVersionPublishedWithoutAPatchBreaksTheCatchUp() {
        var shared = published(1, 10, epoch: epoch)
        shared.publish(state(11, epoch: epoch), patch: nil)
        shared.publish(state(12, epoch: epoch), patch: frame("patch 11→12"))
        XCTAssertEqual(CatchUp.decide(ResumePoint(epoch: epoch, version: 9), state: shared.state, window: shared.window),
                       .snapshot)
        XCTAssertEqual(CatchUp.decide(ResumePoint(epoch: epoch, version: 11), state: shared.state, window: shared.window),
                       .patches(after: 11, through: 12))
    }

    // MARK: - The window

    func testTheWindowKeeps128VersionsOfOneEpochAndIsBoundedInBytes() {
        let shared = published(1, 300, epoch: epoch)
        XCTAssertEqual(shared.window.count, PatchWindow.versions)
        XCTAssertEqual(shared.window.oldestVersion, 300 - PatchWindow.versions + 1)
        XCTAssertEqual(shared.window.newestVersion, 300)
        XCTAssertEqual(shared.window.epoch, epoch)
        XCTAssertEqual(shared.window.bytes, (173...300).reduce(0) { $0 + "patch \($1 - 1)→\($1)".utf8.count })

        var big = PatchWindow()
        let megabyte = SharedFrame(count: 1 << 20) { $0.initializeMemory(as: UInt8.self, repeating: 0x20) }
        for version in 1...20 { big.append(version: version, patch: megabyte, epoch: epoch) }
        XCTAssertEqual(big.count, PatchWindow.byteLimit >> 20, "8 MiB of 1 MiB patches")
        XCTAssertLessThanOrEqual(big.bytes, PatchWindow.byteLimit)
        XCTAssertEqual(big.newestVersion, 20)

        var huge = PatchWindow()
        let oversized = SharedFrame(count: PatchWindow.byteLimit + 1) { $0.initializeMemory(as: UInt8.self, repeating: 0x20) }
        huge.append(version: 1, patch: oversized, epoch: epoch)
        XCTAssertEqual(huge.count, 1, "the newest patch is always kept")
    }

    func testAnotherEpochStartsAFreshTimelineEvenAtLowerVersions() {
        var shared = published(1, 50, epoch: "old-epoch-1")
        XCTAssertFalse(shared.accepts(version: 50, epoch: "old-epoch-1"))
        XCTAssertTrue(shared.accepts(version: 3, epoch: "new-epoch-2"), "a restored venue starts lower")
        let before = shared.state!.timeline
        shared.publish(state(3, epoch: "new-epoch-2"), patch: frame("a patch from another timeline"))
        XCTAssertEqual(shared.state?.timeline, before + 1)
        XCTAssertEqual(shared.window.epoch, "new-epoch-2")
        XCTAssertEqual(shared.window.count, 1)
        XCTAssertNil(shared.patch(to: 50))
    }

    // MARK: - What the connection is sent

    func testAResumingGatherV2ConnectionGetsThePatchesAfterItsVersionThenFollows() {
        var shared = published(1, 40, epoch: epoch)
        var outbox = Outbox(replyLimit: 4, readsPatches: true)
        XCTAssertEqual(outbox.greet(frame("welcome"), shared: shared, resume: ResumePoint(epoch: epoch, version: 10)),
                       .patches(after: 10, through: 40))
        let sent = drain(&outbox, shared)
        XCTAssertEqual(sent.first, "welcome")
        XCTAssertEqual(Array(sent.dropFirst()), (11...40).map { "patch \($0 - 1)→\($0)" },
                       "30 patches in order, deeper than a live follower may lag, and no snapshot")
        shared.publish(state(41, epoch: epoch), patch: frame("patch 40→41"))
        XCTAssertEqual(drain(&outbox, shared), ["patch 40→41"])
    }

    func testAnUpToDateConnectionGetsOnlyTheWelcome() {
        let shared = published(1, 40, epoch: epoch)
        var outbox = Outbox(replyLimit: 4, readsPatches: true)
        outbox.greet(frame("welcome"), shared: shared, resume: ResumePoint(epoch: epoch, version: 40))
        XCTAssertEqual(drain(&outbox, shared), ["welcome"])
    }

    func testPatchesThatLeaveTheWindowBeforeTheyAreWrittenBecomeASnapshot() {
        var shared = published(1, 40, epoch: epoch)
        var outbox = Outbox(replyLimit: 4, readsPatches: true)
        outbox.greet(frame("welcome"), shared: shared, resume: ResumePoint(epoch: epoch, version: 10))
        for version in 41...(41 + PatchWindow.versions) {
            shared.publish(state(version, epoch: epoch), patch: frame("patch \(version - 1)→\(version)"))
        }
        XCTAssertEqual(drain(&outbox, shared), ["welcome", "v2 snapshot \(41 + PatchWindow.versions)"])
    }

    func testAnEpochChangeBeforeTheWriteBecomesASnapshotOfTheNewEpoch() {
        var shared = published(1, 40, epoch: epoch)
        var outbox = Outbox(replyLimit: 4, readsPatches: true)
        outbox.greet(frame("welcome"), shared: shared, resume: ResumePoint(epoch: epoch, version: 40))
        shared.publish(state(2, epoch: "restored-epoch"), patch: nil)
        XCTAssertEqual(drain(&outbox, shared), ["welcome", "v2 snapshot 2"], "a lower version of a new epoch still arrives")
    }

    func testAGatherV1ConnectionIgnoresTheQuery() {
        let shared = published(1, 40, epoch: epoch)
        var outbox = Outbox(replyLimit: 4, readsPatches: false)
        XCTAssertEqual(outbox.greet(frame("welcome"), shared: shared, resume: ResumePoint(epoch: epoch, version: 40)), .snapshot)
        XCTAssertEqual(drain(&outbox, shared), ["welcome", "snapshot 40"])
    }

    func testWithoutAResumePointALiveFollowerStillSkipsToASnapshotPastEightVersions() {
        var shared = published(1, 1, epoch: epoch)
        var outbox = Outbox(replyLimit: 4, readsPatches: true)
        outbox.greet(frame("welcome"), shared: shared)
        XCTAssertEqual(drain(&outbox, shared), ["welcome", "v2 snapshot 1"])
        for version in 2...(2 + SharedFrames.patchWindow) {
            shared.publish(state(version, epoch: epoch), patch: frame("patch \(version - 1)→\(version)"))
        }
        XCTAssertEqual(drain(&outbox, shared), ["v2 snapshot \(2 + SharedFrames.patchWindow)"])
    }
}
