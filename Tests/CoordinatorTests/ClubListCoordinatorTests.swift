import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherPresenters
import GatherStore
import XCTest

/// The club's lists at the venue (docs/PROTOCOL.md §21): a verified list is kept in the Store
/// before it is held, only a newer `seq` replaces it, each new one is a new version (published
/// like any change; organisers' frames render it, `ClubDatesFramesTests`), and it survives a restart.
final class ClubListCoordinatorTests: XCTestCase {
    private func list(seq: Int64, confirmed: [(String, String, Int)] = [("m1", "Ann", 1), ("m2", "Bob", 0)]) -> ClubDateList {
        ClubDateList(club: "riverside-fc", date: "41", startsAt: CoordinatorHarness.start + 3_600_000, durationMinutes: 60,
                     title: "Sunday", place: "Riverside", status: "scheduled", seq: seq,
                     confirmed: confirmed.map { .init(memberId: $0.0, name: $0.1, guests: $0.2) })
    }

    func testANewerListIsANewVersionKeptDurablyAndAnOlderSeqChangesNothing() throws {
        let harness = try CoordinatorHarness()
        _ = harness.connect(1)
        let ann = harness.organiser(2, "ann")
        let before = harness.version
        var expected = harness.state
        expected.clubDates = [list(seq: 10)]

        // One new version, published as any change is; no message of its own to anyone.
        harness.send(.clubListVerified(list(seq: 10)), expect: [.publishSnapshot(version: before + 1, state: expected)])
        XCTAssertEqual(harness.version, before + 1)
        let stored = try harness.store.load()
        XCTAssertEqual(stored.state.clubDates, [list(seq: 10)], "durable before it is held")
        XCTAssertEqual(stored.version, before + 1, "the version moved on with the list, in the Store too")

        harness.send(.clubListVerified(list(seq: 9, confirmed: [])), expect: [])
        harness.send(.clubListVerified(list(seq: 10, confirmed: [])), expect: [])
        XCTAssertEqual(harness.state.clubDates, [list(seq: 10)], "an older or equal seq changes nothing")
        XCTAssertEqual(harness.version, before + 1, "and makes no version")

        // Making the gather links members: a command's version, which organisers' `linked` follows.
        harness.send(.messageReceived(ann, text: """
            {"type":"command","id":"c1","base":\(harness.version),"action":{"kind":"selectFromClubDate","date":"41"}}
            """), exhaustivity: .off)
        XCTAssertEqual(harness.version, before + 2)
        XCTAssertEqual(harness.state.players.map(\.memberId), ["m1", nil, "m2"])
        XCTAssertEqual(harness.state.pitch(1)?.gather?.clubDate, "41")

        _ = try harness.restart()
        XCTAssertEqual(harness.state.clubDates, [list(seq: 10)], "kept across a restart")
        XCTAssertEqual(harness.version, before + 2)
        // A list after the restart goes on from the stored version.
        harness.send(.clubListVerified(list(seq: 11)), exhaustivity: .off)
        XCTAssertEqual(harness.version, before + 3)
    }

    func testTheListJSONShowsOnlyDatesInTheWindowWithTheirLinks() {
        let held = list(seq: 3)
        let players = [Player(id: 7, name: "Ann", memberId: "m1")]
        guard case .array(let shown) = ClubDatesPresenter.json([held], players: players, now: held.startsAt - 86_400_000),
              case .array(let confirmed)? = shown.first?["confirmed"]
        else { return XCTFail("one date shown") }
        XCTAssertEqual(shown.first?["linked"], ["m1": 7])
        XCTAssertEqual(confirmed.first?["guests"], 1)
        XCTAssertEqual(ClubDatesPresenter.json([held], players: players, now: held.endsAt), [], "over: no longer shown")
        XCTAssertEqual(ClubDatesPresenter.json([held], players: players, now: held.startsAt - 7 * 86_400_000), [],
                       "more than 7 days ahead")
    }
}
