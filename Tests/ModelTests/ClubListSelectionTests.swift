import GatherModel
import XCTest

/// `selectFromClubDate` (docs/PROTOCOL.md §21, settled 6): who becomes which player, in which
/// order, and every refusal changing nothing.
final class ClubListSelectionTests: XCTestCase {
    private let context = ActionContext(now: 1_800_000_000_000, by: "ann", newGatherID: "g-club")

    private func list(_ confirmed: [(String, String, Int)], date: String = "41") -> ClubDateList {
        ClubDateList(club: "riverside-fc", date: date, startsAt: 1_800_000_600_000, durationMinutes: 60,
                     title: "Sunday 7-a-side", place: "Riverside", status: "scheduled", seq: 7,
                     confirmed: confirmed.map { .init(memberId: $0.0, name: $0.1, guests: $0.2) },
                     waiting: [.init(memberId: "m9", name: "Waiting Wes", guests: 0, position: 1)])
    }

    private func apply(_ state: inout GatherState, date: String = "41", pitch: Pitch.ID = 1)
        -> Result<Void, Rejection> {
        GatherRules.apply(.onPitch(pitch, .selectFromClubDate(date: date)), to: &state, context: context)
    }

    func testMembersLinkByNameOnceGuestsAreNewPlayersAndTheGatherKeepsListOrder() throws {
        var state = GatherState(players: [Player(id: 1, name: "ann"), Player(id: 2, name: "Ann"), Player(id: 3, name: "Bob"),
                                          Player(id: 4, name: "Cid", memberId: "m3")], nextPlayerID: 5)
        state.clubDates = [list([("m1", "Ann", 1), ("m2", "Bob", 0), ("m3", "Cidney", 0), ("m4", "Dee", 0)])]
        XCTAssertNoThrow(try apply(&state).get())
        // Ann: the lowest-id unlinked player of that name ignoring case (1); her guest is new (5);
        // Bob (3) is linked; m3 keeps its linked player whatever its name; Dee is new (6).
        XCTAssertEqual(state.players.map(\.memberId), ["m1", nil, "m2", "m3", nil, "m4"])
        XCTAssertEqual(state.players.map(\.name), ["ann", "Ann", "Bob", "Cid", "Ann's guest 1", "Dee"])
        let gather = try XCTUnwrap(state.pitch(1)?.gather)
        XCTAssertEqual(gather.bench, [1, 5, 3, 4, 6], "list order, each guest after their member")
        XCTAssertEqual(gather.clubDate, "41")
        XCTAssertEqual(gather.id, "g-club")
        XCTAssertEqual(state.nextPlayerID, 7)
    }

    func testASecondSundayReusesTheLinksAndTheGuestPlayers() throws {
        var state = GatherState()
        state.clubDates = [list([("m1", "Ann", 2), ("m2", "Bob", 0)])]
        XCTAssertNoThrow(try apply(&state).get())
        XCTAssertEqual(state.players.map(\.name), ["Ann", "Ann's guest 1", "Ann's guest 2", "Bob"])
        state.pitches[0].gather = nil
        state.players[0].name = "Annie"  // renamed at the venue: the link holds
        state.clubDates = [list([("m2", "Bob", 0), ("m1", "Ann", 1)], date: "48")]
        XCTAssertNoThrow(try apply(&state, date: "48").get())
        XCTAssertEqual(state.players.count, 4, "nobody new")
        XCTAssertEqual(state.pitch(1)?.gather?.bench, [4, 1, 2])
    }

    func testRefusalsChangeNothing() {
        var state = GatherState(players: [Player(id: 1, name: "Ann")], nextPlayerID: 2)
        state.clubDates = [list([("m1", "Ann", 0)]), list([("m1", "Ann", 0), ("m2", "Bob", 0)], date: "42")]
        let before = state
        XCTAssertEqual(failure(apply(&state, date: "99"))?.code, .notFound, "a date not held")
        XCTAssertEqual(failure(apply(&state, date: "41"))?.code, .invalid, "fewer than two players")
        XCTAssertEqual(failure(apply(&state, date: "42", pitch: 7))?.code, .notFound, "no such pitch")
        XCTAssertEqual(state, before)

        XCTAssertNoThrow(try GatherRules.apply(.onPitch(1, .createGather(playerIDs: [1])), to: &state, context: context).get())
        let withGather = state
        XCTAssertEqual(failure(apply(&state, date: "42"))?.code, .conflict, "a gather already on the pitch")
        XCTAssertEqual(state, withGather)

        state.pitches.append(Pitch(id: 2, name: "Pitch 2"))
        state.nextPitchID = 3
        let ready = state
        XCTAssertEqual(failure(apply(&state, date: "42", pitch: 2))?.code, .inUse, "Ann plays on pitch 1")
        XCTAssertEqual(state, ready, "Bob was not added either")
    }

    func testAFullRosterRefusesTheNewPlayersAndAddsNone() {
        var state = GatherState(players: (1...GatherState.maximumPlayers - 1).map { Player(id: $0, name: "P\($0)") },
                                nextPlayerID: GatherState.maximumPlayers)
        state.clubDates = [list([("m1", "New One", 0), ("m2", "New Two", 0)])]
        let before = state
        XCTAssertEqual(failure(apply(&state))?.code, .outOfRange)
        XCTAssertEqual(state, before)
    }

    func testGuestNamesAreCutToFitAPlayersName() {
        let name = String(repeating: "x", count: 40)
        let guest = GatherRules.guestName(of: name, 3)
        XCTAssertEqual(guest.count, ActionDecoder.nameLength.upperBound)
        XCTAssertTrue(guest.hasSuffix("'s guest 3"))
    }

    func testTheActionIsReadFromTheWire() throws {
        let action = try ActionDecoder.decode(["kind": "selectFromClubDate", "date": "41", "pitch": 2]).get()
        XCTAssertEqual(action, .onPitch(2, .selectFromClubDate(date: "41")))
        XCTAssertNil(try? ActionDecoder.decode(["kind": "selectFromClubDate", "date": "a.b"]).get())
        XCTAssertNil(try? ActionDecoder.decode(["kind": "selectFromClubDate"]).get())
    }

    private func failure(_ result: Result<Void, Rejection>) -> Rejection? {
        if case .failure(let rejection) = result { return rejection }
        return nil
    }
}
