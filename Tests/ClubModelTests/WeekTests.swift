import ClubModel
import XCTest

/// A week from opening to Sunday, every step's whole answers array and events asserted: answers,
/// guests, a full date, the waitlist, an offer claimed, an offer missed, several offers at once,
/// a pass, last-hour promotion, closing, the organiser after closing and after kick-off, the result.
final class WeekTests: XCTestCase {
    /// Sunday 6 December 2026, 10:00 in Madrid (09:00Z), 6 seats; opens Monday 30 November 09:00Z,
    /// closes 08:00Z, offers last 12 h, the last hours from 06:00Z.
    static let sunday = Schedule.date(
        of: Fixture(id: "F1", title: "7-a-side", weekday: 7, time: LocalTime(hour: 10, minute: 0), durationMinutes: 90,
                    place: "Riverside", capacity: 6),
        on: LocalDate("2026-12-06")!, in: zone("Europe/Madrid"))

    func testAWeekFromOpeningToSunday() {
        var week = DateUnderTest(date: Self.sunday)
        XCTAssertEqual(week.date.opensAt, utc("2026-11-30T09:00:00Z"))
        XCTAssertEqual(week.date.closesAt, utc("2026-12-06T08:00:00Z"))
        XCTAssertEqual(week.date.lastHoursFrom, utc("2026-12-06T06:00:00Z"))

        week.refuse(answer(.in, "A", at: utc("2026-11-29T12:00:00Z")), Refusal(.notOpenYet))

        let mon = utc("2026-11-30T10:00:00Z")
        week.send(answer(.in, "A", at: mon), events: [.confirmed(memberId: "A")]) {
            $0 = [entry("A", 0, .confirmed, at: mon)]
        }
        week.send(answer(.in, "B", guests: 2, at: mon + minute), events: [.confirmed(memberId: "B")]) {
            $0.append(entry("B", 2, .confirmed, at: mon + minute))
        }
        week.send(answer(.in, "C", guests: 1, at: mon + 2 * minute), events: [.confirmed(memberId: "C")]) {
            $0.append(entry("C", 1, .confirmed, at: mon + 2 * minute))
        }
        // Full (1 + 3 + 2 = 6): the next ones wait, in answer order.
        week.send(answer(.in, "D", at: mon + 3 * minute), events: [.waiting(memberId: "D", position: 1)]) {
            $0.append(entry("D", 0, .waiting, at: mon + 3 * minute))
        }
        week.send(answer(.in, "E", guests: 1, at: mon + 4 * minute), events: [.waiting(memberId: "E", position: 2)]) {
            $0.append(entry("E", 1, .waiting, at: mon + 4 * minute))
        }
        week.refuse(answer(.in, "A", guests: 3, at: mon + 5 * minute), Refusal(.noRoomForGuests, ["capacity": "6"]))
        // A waiting entry keeps its position whatever its guests.
        week.send(answer(.in, "D", guests: 1, at: mon + 6 * minute), events: [.guestsChanged(memberId: "D", guests: 1)]) {
            $0[3].guests = 1
        }
        XCTAssertEqual(Waitlist.positions(week.answers), ["D": 1, "E": 2])
        week.refuse(answer(.in, "A", guests: 4, at: mon + 7 * minute), .invalid("guests"))

        // Tuesday: C leaves; D's two seats fit and are offered for 12 hours.
        let tue = utc("2026-12-01T10:00:00Z")
        week.send(answer(.out, "C", at: tue),
                  events: [.answeredOut(memberId: "C"), .offered(memberId: "D", expiresAt: tue + 12 * hour, slot: 1)]) {
            $0[2] = entry("C", 0, .out, at: tue)
            $0[3].state = .offered
            $0[3].offerExpiresAt = tue + 12 * hour
            $0[3].offersMade = 1
        }
        week.refuse(claim("E", at: tue + hour), Refusal(.noOffer))
        week.send(claim("D", at: tue + 2 * hour), events: [.claimed(memberId: "D")]) {
            $0[3].state = .confirmed
            $0[3].offerExpiresAt = nil
        }

        // Wednesday: B comes alone; E is offered the two seats, and misses the offer.
        let wed = utc("2026-12-02T10:00:00Z")
        week.send(answer(.in, "B", guests: 0, at: wed),
                  events: [.guestsChanged(memberId: "B", guests: 0),
                           .offered(memberId: "E", expiresAt: wed + 12 * hour, slot: 1)]) {
            $0[1].guests = 0
            $0[4].state = .offered
            $0[4].offerExpiresAt = wed + 12 * hour
            $0[4].offersMade = 1
        }
        week.send(expire(at: wed + 12 * hour - 1), events: []) { _ in }
        week.send(expire(at: wed + 12 * hour), events: [.missed(memberId: "E")]) {
            $0[4] = entry("E", 0, .out, at: wed + 12 * hour, offers: 1)
        }

        // Thursday: F takes the two free seats; G and H wait.
        let thu = utc("2026-12-03T09:00:00Z")
        week.send(answer(.in, "F", guests: 1, at: thu), events: [.confirmed(memberId: "F")]) {
            $0.append(entry("F", 1, .confirmed, at: thu))
        }
        week.send(answer(.in, "G", at: thu + minute), events: [.waiting(memberId: "G", position: 1)]) {
            $0.append(entry("G", 0, .waiting, at: thu + minute))
        }
        week.send(answer(.in, "H", at: thu + 2 * minute), events: [.waiting(memberId: "H", position: 2)]) {
            $0.append(entry("H", 0, .waiting, at: thu + 2 * minute))
        }

        // Friday: F leaves; G and H are offered a seat each at once. G passes, H claims, E comes
        // back into G's seat (at the end of the order, its offer count kept).
        let fri = utc("2026-12-04T10:00:00Z")
        week.send(answer(.out, "F", at: fri),
                  events: [.answeredOut(memberId: "F"), .offered(memberId: "G", expiresAt: fri + 12 * hour, slot: 1),
                           .offered(memberId: "H", expiresAt: fri + 12 * hour, slot: 1)]) {
            $0[5] = entry("F", 0, .out, at: fri)
            $0[6] = entry("G", 0, .offered, at: thu + minute, offer: fri + 12 * hour, offers: 1)
            $0[7] = entry("H", 0, .offered, at: thu + 2 * minute, offer: fri + 12 * hour, offers: 1)
        }
        week.send(pass("G", at: fri + hour), events: [.passed(memberId: "G")]) {
            $0[6] = entry("G", 0, .out, at: fri + hour, offers: 1)
        }
        week.send(claim("H", at: fri + 2 * hour), events: [.claimed(memberId: "H")]) {
            $0[7] = entry("H", 0, .confirmed, at: thu + 2 * minute, offers: 1)
        }
        week.refuse(pass("H", at: fri + 3 * hour), Refusal(.noOffer))
        week.send(answer(.in, "E", at: fri + 3 * hour), events: [.confirmed(memberId: "E")]) {
            $0.remove(at: 4)
            $0.append(entry("E", 0, .confirmed, at: fri + 3 * hour, offers: 1))
        }
        XCTAssertEqual(Waitlist.confirmedSeats(week.answers), 6)  // A 1, B 1, D 2, H 1, E 1

        // Saturday: J waits.
        let sat = utc("2026-12-05T09:00:00Z")
        week.send(answer(.in, "J", at: sat), events: [.waiting(memberId: "J", position: 1)]) {
            $0.append(entry("J", 0, .waiting, at: sat))
        }

        // Sunday, in the last hours: A's freed seat goes straight to J.
        let sun = utc("2026-12-06T06:30:00Z")
        week.send(answer(.out, "A", at: sun), events: [.answeredOut(memberId: "A"), .promoted(memberId: "J")]) {
            $0[0] = entry("A", 0, .out, at: sun)
            $0[8].state = .confirmed
        }
        week.send(answer(.in, "K", at: sun + 30 * minute), events: [.waiting(memberId: "K", position: 1)]) {
            $0.append(entry("K", 0, .waiting, at: sun + 30 * minute))
        }

        // Closing (08:00Z): members are closed; organisers may still answer until the match is over.
        let closing = utc("2026-12-06T08:00:00Z")
        week.refuse(answer(.in, "L", at: closing), Refusal(.closed))
        week.send(answer(.in, "L", by: .organiser, at: closing + 30 * minute),
                  events: [.waiting(memberId: "L", position: 2)]) {
            $0.append(entry("L", 0, .waiting, at: closing + 30 * minute))
        }
        // After kick-off (09:00Z) there is no waitlist: an `in` that does not fit is `full`.
        let kickOff = utc("2026-12-06T09:00:00Z")
        week.refuse(answer(.in, "M", by: .organiser, at: kickOff + 10 * minute), Refusal(.full, ["capacity": "6"]))
        week.send(answer(.out, "D", by: .organiser, at: kickOff + 20 * minute),
                  events: [.answeredOut(memberId: "D"), .promoted(memberId: "K"), .promoted(memberId: "L")]) {
            $0[3] = entry("D", 0, .out, at: kickOff + 20 * minute, offers: 1)
            $0[9].state = .confirmed
            $0[10].state = .confirmed
        }
        // Full time (10:30Z): closed for everyone.
        week.refuse(answer(.out, "B", by: .organiser, at: utc("2026-12-06T10:30:00Z")), Refusal(.closed))

        // The result from the pitch: L did not come.
        week.send({ date, answers throws(Refusal) in
            try Waitlist.played(date: date, answers: answers, attended: ["B", "H", "E", "J", "K"],
                                now: utc("2026-12-06T11:00:00Z"))
        }, events: [.played(noShows: ["L"])], date: { $0.status = .played }) {
            for index in $0.indices { $0[index].attended = ["B", "H", "E", "J", "K"].contains($0[index].memberId) }
        }
        week.refuse(claim("K", at: utc("2026-12-06T11:00:00Z")), Refusal(.closed))
        XCTAssertEqual(week.answers.map(\.memberId), ["A", "B", "C", "D", "F", "G", "H", "E", "J", "K", "L"])
    }
}
