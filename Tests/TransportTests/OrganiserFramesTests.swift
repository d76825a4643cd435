@testable import GatherTransport
import XCTest

/// Organisers' own frames (docs/PROTOCOL.md §20: the state with the referee links): a connection
/// moving between the shared frames and the organisers' is always sent a snapshot, a refresh of
/// the same version is sent as one, and patches then follow within the organisers' frames.
final class OrganiserFramesTests: XCTestCase {
    private func frame(_ text: String) -> SharedFrame { SharedFrame(Array(text.utf8)) }

    private func state(_ version: Int, _ audience: String) -> SharedState {
        SharedState(version: version, v1Snapshot: frame("\(audience) snapshot \(version)"),
                    v2Snapshot: frame("\(audience) v2 snapshot \(version)"))
    }

    private func drain(_ outbox: inout Outbox, _ shared: SharedFrames) -> [String] {
        var sent: [String] = []
        while case .frame(let next) = outbox.next(shared) { sent.append(String(decoding: next.bytes, as: UTF8.self)) }
        return sent
    }

    func testMovingBetweenAudiencesSendsASnapshotEachWay() {
        var everyone = SharedFrames()
        var organisers = SharedFrames(timelineBase: LiveConnections.organiserTimelineBase)
        everyone.publish(state(7, "shared"), patch: nil)
        organisers.publish(state(7, "organisers"), patch: nil)
        var outbox = Outbox(replyLimit: 4, readsPatches: true)
        outbox.greet(frame("welcome"), shared: everyone)
        XCTAssertEqual(drain(&outbox, everyone), ["welcome", "shared v2 snapshot 7"])
        // Signed in: the same version, but the organisers' rendering of it.
        XCTAssertEqual(drain(&outbox, organisers), ["organisers v2 snapshot 7"])
        // Patches follow within the organisers' frames.
        organisers.publish(state(8, "organisers"), patch: frame("organisers patch 8"))
        XCTAssertEqual(drain(&outbox, organisers), ["organisers patch 8"])
        // The links changed, not the gather: the same version again, as a snapshot.
        organisers.refresh(state(8, "refreshed"))
        XCTAssertEqual(drain(&outbox, organisers), ["refreshed v2 snapshot 8"])
        XCTAssertNil(organisers.patch(to: 8), "no patch reaches across a refresh")
        // Logged out (or the last link ended): back to the shared frames, as a snapshot.
        everyone.publish(state(8, "shared"), patch: frame("shared patch 8"))
        XCTAssertEqual(drain(&outbox, everyone), ["shared v2 snapshot 8"])
    }
}
