import ClubModel
@testable import ClubCoordinator
import GatherModel
import XCTest

/// A date's list as the club publishes it (docs/PROTOCOL.md §21.1): confirmed in judged order,
/// waiting in the waitlist's order with positions, offered with their expiry, names by member id.
final class ClubListRenderingTests: XCTestCase {
    func testTheThreePartsOfTheList() throws {
        let date = ClubDate(id: "41", fixtureId: "7", occurrence: "2026-12-06", startsAt: 1_000_000, opensAt: 0,
                            closesAt: 900_000, durationMinutes: 60, capacity: 4)
        let fixture = Fixture(id: "7", title: "Sunday 7-a-side", weekday: 7, time: LocalTime(hour: 10, minute: 0),
                              durationMinutes: 60, place: "Riverside", capacity: 4)
        let members = ["1": "Ann", "2": "Bob", "3": "Cid", "4": "Dee", "5": "Eve"].map { Member(id: $0.key, name: $0.value) }
        let answers = [
            Answer(memberId: "2", answer: .in, guests: 1, state: .confirmed, answeredAt: 10),
            Answer(memberId: "1", answer: .in, state: .confirmed, answeredAt: 20),
            Answer(memberId: "4", answer: .in, state: .waiting, answeredAt: 50),
            Answer(memberId: "3", answer: .in, state: .waiting, answeredAt: 40),
            Answer(memberId: "5", answer: .in, state: .offered, answeredAt: 30, offerExpiresAt: 800_000),
            Answer(memberId: "9", answer: .out, state: .out, answeredAt: 5),
        ]
        let list = ClubService.clubList(date, fixture: fixture, answers: answers, members: members, club: "riverside-fc", seq: 17)
        XCTAssertEqual(list.confirmed, [.init(memberId: "2", name: "Bob", guests: 1), .init(memberId: "1", name: "Ann", guests: 0)])
        XCTAssertEqual(list.waiting, [.init(memberId: "3", name: "Cid", guests: 0, position: 1),
                                      .init(memberId: "4", name: "Dee", guests: 0, position: 2)])
        XCTAssertEqual(list.offered, [.init(memberId: "5", name: "Eve", guests: 0, offerExpiresAt: 800_000)])
        XCTAssertEqual([list.club, list.date, list.title, list.place, list.status], ["riverside-fc", "41", "Sunday 7-a-side", "Riverside", "scheduled"])
        XCTAssertEqual(list.seq, 17)
        XCTAssertEqual(list.endsAt, 1_000_000 + 3_600_000)
        XCTAssertEqual(ClubDateList.decode(try list.encoded()), list, "the published bytes read back whole")
    }
}
