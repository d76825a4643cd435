import GatherDelivery
import GatherModel
import GatherModelTestSupport
import GatherPresenters
import XCTest

/// `StateRenderer`: previous rendering + new state → the frames every audience gets.
final class StateRendererTests: XCTestCase {
    private static let now: Int64 = 1_763_800_000_000

    private static func roster(_ names: String...) -> GatherState {
        GatherState(players: names.enumerated().map { Player(id: $0.offset + 1, name: $0.element) },
                    nextPlayerID: names.count + 1)
    }

    private static func parse(_ bytes: [UInt8]) throws -> JSONValue { try JSONValue.parse(bytes).get() }

    /// Reads an op as a client does (only the three kinds gather.v2 uses).
    private static func operation(_ json: JSONValue) -> PatchOperation? {
        guard let path = json["path"]?.stringValue else { return nil }
        switch json["op"]?.stringValue {
        case "add": return json["value"].map { .add(path: path, value: $0) }
        case "replace": return json["value"].map { .replace(path: path, value: $0) }
        case "remove": return .remove(path: path)
        default: return nil
        }
    }

    func testTheFirstRenderingHasNoPatch() {
        let rendered = StateRenderer.render(version: 7, state: Self.roster("Ann"), now: Self.now, after: nil)
        XCTAssertNil(rendered.frames.v2Patch, "nobody holds a version to patch from")
        XCTAssertEqual(rendered.frames.version, 7)
        XCTAssertEqual(rendered.rendering.version, 7)
    }

    func testConsecutiveVersionsGiveAPatchThatTurnsTheOldSnapshotIntoTheNewOne() throws {
        let first = StateRenderer.render(version: 3, state: Self.roster("Ann", "Bob"), now: Self.now, after: nil)
        var state = Self.roster("Ann", "Bob", "Cid")
        state.gather = ActiveGather(id: "g-1", bench: [1, 2, 3])
        let second = StateRenderer.render(version: 4, state: state, now: Self.now + 1_000, after: first.rendering)

        let patch = try Self.parse(try XCTUnwrap(second.frames.v2Patch))
        XCTAssertEqual(patch["type"], "patch")
        XCTAssertEqual(patch["from"], 3)
        XCTAssertEqual(patch["version"], 4)
        guard case .array(let ops)? = patch["ops"] else { return XCTFail("no ops in \(patch)") }
        XCTAssertFalse(ops.isEmpty)
        let operations = try ops.map { try XCTUnwrap(Self.operation($0), "\($0)") }

        let before = try XCTUnwrap(Self.parse(first.frames.v2Snapshot)["state"])
        let after = try XCTUnwrap(Self.parse(second.frames.v2Snapshot)["state"])
        XCTAssertEqual(try JSONPatch.apply(operations, to: before), after)
    }

    func testAVersionGapGivesNoPatch() {
        let first = StateRenderer.render(version: 3, state: Self.roster("Ann"), now: Self.now, after: nil)
        let later = StateRenderer.render(version: 5, state: Self.roster("Ann", "Bob"), now: Self.now, after: first.rendering)
        XCTAssertNil(later.frames.v2Patch, "a client at 3 cannot apply 4 → 5")
        XCTAssertEqual(later.rendering.version, 5, "the next version patches from this one")
    }

    func testTheSnapshotsAreMessagePresentersBytes() {
        var state = Self.roster("Ann", "Bob")
        state.gather = ActiveGather(id: "g-1", bench: [2])
        let rendered = StateRenderer.render(version: 9, state: state, now: Self.now, after: nil)
        XCTAssertEqual(rendered.frames.v1Snapshot,
                       MessagePresenter.bytes(.snapshot(version: 9, state: state, now: Self.now), protocol: .v1))
        XCTAssertEqual(rendered.frames.v2Snapshot,
                       MessagePresenter.bytes(.snapshot(version: 9, state: state, now: Self.now), protocol: .v2))
        XCTAssertNotEqual(rendered.frames.v1Snapshot, rendered.frames.v2Snapshot, "v1 carries the top-level gather")
    }

    /// The venue's run: every gather.v2 snapshot and the frames carry it; gather.v1 never does.
    func testTheEpochIsStampedOnTheGatherV2SnapshotAndTheFramesAndOnTheWelcome() throws {
        let epoch = try XCTUnwrap(StreamEpoch(id: "run-0123456789", startedAt: 1_795_000_000_000))
        let rendered = StateRenderer.render(version: 7, state: Self.roster("Ann"), now: Self.now, after: nil, epoch: epoch)
        XCTAssertEqual(rendered.frames.epoch, "run-0123456789")
        let v2 = try JSONValue.parse(rendered.frames.v2Snapshot).get()
        XCTAssertEqual(v2["epoch"], "run-0123456789")
        XCTAssertEqual(v2["epochStartedAt"], 1_795_000_000_000)
        XCTAssertEqual(v2["version"], 7)
        let v1 = try JSONValue.parse(rendered.frames.v1Snapshot).get()
        XCTAssertNil(v1["epoch"])
        let welcome = try JSONValue.parse(MessagePresenter.greeting(.welcome(serverTime: 5, protocol: .v2), epoch: epoch)).get()
        XCTAssertEqual(welcome["epoch"], "run-0123456789")
        XCTAssertEqual(welcome["epochStartedAt"], 1_795_000_000_000)
        XCTAssertEqual(MessagePresenter.greeting(.session(nil), epoch: epoch), MessagePresenter.bytes(.session(nil)))
        let plain = StateRenderer.render(version: 7, state: Self.roster("Ann"), now: Self.now, after: nil)
        XCTAssertNil(plain.frames.epoch)
        XCTAssertNil(try JSONValue.parse(plain.frames.v2Snapshot).get()["epoch"])
    }
}
