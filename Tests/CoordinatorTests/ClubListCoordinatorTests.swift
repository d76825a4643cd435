import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherPresenters
import GatherStore
import XCTest

/// The club's lists at the venue (docs/PROTOCOL.md §21): a verified list is kept in the Store
/// before it is held, only a newer `seq` replaces it, only organisers are sent it (at sign-in, on
/// a new list, when a gather made from it links members), and it survives a restart.
final class ClubListCoordinatorTests: XCTestCase {
    private func list(seq: Int64, confirmed: [(String, String, Int)] = [("m1", "Ann", 1), ("m2", "Bob", 0)]) -> ClubDateList {
        ClubDateList(club: "riverside-fc", date: "41", startsAt: CoordinatorHarness.start + 3_600_000, durationMinutes: 60,
                     title: "Sunday", place: "Riverside", status: "scheduled", seq: seq,
                     confirmed: confirmed.map { .init(memberId: $0.0, name: $0.1, guests: $0.2) })
    }

    private func clubDates(_ harness: CoordinatorHarness) -> ServerMessage {
        .clubDates(lists: harness.state.clubDates, players: harness.state.players, now: harness.clock.now)
    }

    func testOrganisersAloneAreSentTheListsWhichAreKeptAndOnlyReplacedByANewerSeq() throws {
        let harness = try CoordinatorHarness()
        let spectator = harness.connect(1)
        let ann = harness.organiser(2, "ann")

        harness.send(.clubListVerified(list(seq: 10)), expect: [.send(ann, .clubDates(
            lists: [list(seq: 10)], players: [], now: harness.clock.now))])
        XCTAssertEqual(harness.state.clubDates, [list(seq: 10)])
        XCTAssertEqual(try harness.store.load().state.clubDates, [list(seq: 10)], "durable before it is held")

        harness.send(.clubListVerified(list(seq: 9, confirmed: [])), expect: [])
        XCTAssertEqual(harness.state.clubDates, [list(seq: 10)], "an older seq changes nothing")

        // A later sign-in is sent the lists with its session; a new spectator is not.
        let granted = harness.send(.passwordHashed(PasswordJob(client: harness.connectForRegister(3, "bob"), purpose: .register,
                                                              username: "bob", password: "correct horse", requestID: "reg"),
                                                  encodedHash: "kdf(correct horse)"), exhaustivity: .off)
        XCTAssertEqual(granted.last, Effect.send(ConnectionID(3), clubDates(harness)))
        let watcher = harness.send(.clientConnected(ConnectionID(4), address: "10.0.0.7"), exhaustivity: .off)
        XCTAssertFalse(watcher.contains { if case .send(_, .clubDates) = $0 { true } else { false } })
        XCTAssertNotEqual(spectator, ann)

        // Making the gather links members: every organiser is sent the lists again with `linked`.
        let made = harness.send(.messageReceived(ann, text: """
            {"type":"command","id":"c1","base":\(harness.version),"action":{"kind":"selectFromClubDate","date":"41"}}
            """), exhaustivity: .off)
        let resent = made.compactMap { effect -> ConnectionID? in
            if case .send(let client, .clubDates) = effect { return client }
            return nil
        }
        XCTAssertEqual(resent, [ann, ConnectionID(3)])
        XCTAssertEqual(harness.state.players.map(\.memberId), ["m1", nil, "m2"])
        XCTAssertEqual(harness.state.pitch(1)?.gather?.clubDate, "41")
        XCTAssertTrue(made.contains(.send(ann, clubDates(harness))))

        _ = try harness.restart()
        XCTAssertEqual(harness.state.clubDates, [list(seq: 10)], "kept across a restart")
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
