import ClubModel
import XCTest

/// The waitlist's rules one at a time, beyond the week's walk-through.
final class WaitlistRuleTests: XCTestCase {
    /// 4 seats on Sunday 6 December 2026, 10:00 Madrid; closes 08:00Z, last hours from 06:00Z.
    static let date = Schedule.date(
        of: Fixture(id: "F1", title: "5-a-side", weekday: 7, time: LocalTime(hour: 10, minute: 0), durationMinutes: 60,
                    place: "", capacity: 4),
        on: LocalDate("2026-12-06")!, in: zone("Europe/Madrid"))
    let wed = utc("2026-12-02T10:00:00Z")

    /// A, B (1 guest), C confirmed = 4 seats; D (1 guest), E waiting.
    func fullDate() -> DateUnderTest {
        DateUnderTest(date: Self.date, answers: [
            entry("A", 0, .confirmed, at: wed), entry("B", 1, .confirmed, at: wed + 1),
            entry("C", 0, .confirmed, at: wed + 2), entry("D", 1, .waiting, at: wed + 3),
            entry("E", 0, .waiting, at: wed + 4),
        ])
    }

    func testTheWalkSkipsAnEntryThatDoesNotFitAndOffersTheNextOne() {
        var week = fullDate()
        let now = wed + hour
        week.send(answer(.out, "A", at: now), events: [
            .answeredOut(memberId: "A"), .offered(memberId: "E", expiresAt: now + 12 * hour, slot: 1),
        ]) {
            $0[0] = entry("A", 0, .out, at: now)
            $0[4] = entry("E", 0, .offered, at: self.wed + 4, offer: now + 12 * hour, offers: 1)
        }
        XCTAssertEqual(Waitlist.positions(week.answers), ["D": 1])
    }

    func testAnOfferNeverOutlastsTheClosing() {
        var week = fullDate()
        let now = utc("2026-12-06T00:00:00Z")  // 8 h before closing, 12 h claims
        week.send(answer(.out, "C", at: now), events: [
            .answeredOut(memberId: "C"), .offered(memberId: "E", expiresAt: Self.date.closesAt, slot: 1),
        ]) {
            $0[2] = entry("C", 0, .out, at: now)
            $0[4] = entry("E", 0, .offered, at: self.wed + 4, offer: Self.date.closesAt, offers: 1)
        }
        XCTAssertEqual(Waitlist.nextDeadline(date: week.date, answers: week.answers), Self.date.closesAt)
    }

    func testAnOfferedEntryKeepsItsPlaceWhenItsNewSeatsFitAndNotOtherwise() {
        var week = fullDate()
        let now = wed + hour
        week.send(answer(.out, "B", at: now), events: [
            .answeredOut(memberId: "B"), .offered(memberId: "D", expiresAt: now + 12 * hour, slot: 1),
        ]) {
            $0[1] = entry("B", 0, .out, at: now)
            $0[3] = entry("D", 1, .offered, at: self.wed + 3, offer: now + 12 * hour, offers: 1)
        }
        week.refuse(answer(.in, "D", guests: 3, at: now + 1), Refusal(.noRoomForGuests, ["capacity": "4"]))
        week.send(answer(.in, "D", guests: 0, at: now + 2), events: [
            .guestsChanged(memberId: "D", guests: 0), .offered(memberId: "E", expiresAt: now + 2 + 12 * hour, slot: 1),
        ]) {
            $0[3].guests = 0
            $0[4] = entry("E", 0, .offered, at: self.wed + 4, offer: now + 2 + 12 * hour, offers: 1)
        }
    }

    func testMoreGuestsThanTheCapacityAreRefusedEvenOnTheWaitlist() {
        var week = fullDate()
        week.send(answer(.in, "F", guests: 3, at: wed + 5), events: [.waiting(memberId: "F", position: 3)]) {
            $0.append(entry("F", 3, .waiting, at: self.wed + 5))
        }
        week.date.capacity = 2
        week.refuse(answer(.in, "G", guests: 2, at: wed), Refusal(.noRoomForGuests, ["capacity": "2"]))
        week.refuse(answer(.in, "E", guests: 2, at: wed), Refusal(.noRoomForGuests, ["capacity": "2"]))
    }

    func testTheSameAnswerAgainChangesNothing() {
        var week = fullDate()
        week.send(answer(.in, "D", guests: 1, at: wed + hour), events: []) { _ in }
        week.send(answer(.out, "Z", at: wed + hour), events: [.answeredOut(memberId: "Z")]) {
            $0.append(entry("Z", 0, .out, at: self.wed + hour))
        }
        week.send(answer(.out, "Z", at: wed + 2 * hour), events: []) { _ in }
        // Under a capacity lowered below B's two seats, B's same answer is still no change, and a
        // new number of guests that does not fit the capacity is refused.
        week.date.capacity = 2
        week.send(answer(.in, "B", guests: 1, at: wed + 3 * hour), events: []) { _ in }
        week.refuse(answer(.in, "B", guests: 2, at: wed + 3 * hour), Refusal(.noRoomForGuests, ["capacity": "2"]))
    }

    func testOrganisersMayAnswerBeforeTheOpening() {
        var week = DateUnderTest(date: Self.date)
        let early = Self.date.opensAt - 24 * hour
        week.refuse(answer(.in, "A", at: early), Refusal(.notOpenYet))
        week.send(answer(.in, "A", by: .organiser, at: early), events: [.confirmed(memberId: "A")]) {
            $0 = [entry("A", 0, .confirmed, at: early)]
        }
    }

    func testASmallerCapacityTakesNoPlaceAwayAndALargerOneIsWalked() {
        var week = fullDate()
        let now = wed + hour
        week.send({ date, answers throws(Refusal) in
            try Waitlist.patchDate(date, startsAt: nil, capacity: 2, answers: answers, now: now)
        }, events: [], date: { $0.capacity = 2; $0.changedAlone = true }) { _ in }
        XCTAssertEqual(Waitlist.heldSeats(week.answers), 4)
        // A leaves: 3 held of 2, still no new seat.
        week.send(answer(.out, "A", at: now + 1), events: [.answeredOut(memberId: "A")]) {
            $0[0] = entry("A", 0, .out, at: now + 1)
        }
        week.send({ date, answers throws(Refusal) in
            try Waitlist.patchDate(date, startsAt: nil, capacity: 6, answers: answers, now: now + 2)
        }, events: [.offered(memberId: "D", expiresAt: now + 2 + 12 * hour, slot: 1),
                    .offered(memberId: "E", expiresAt: now + 2 + 12 * hour, slot: 1)], date: { $0.capacity = 6 }) {
            $0[3] = entry("D", 1, .offered, at: self.wed + 3, offer: now + 2 + 12 * hour, offers: 1)
            $0[4] = entry("E", 0, .offered, at: self.wed + 4, offer: now + 2 + 12 * hour, offers: 1)
        }
        week.refuse({ date, answers throws(Refusal) in
            try Waitlist.patchDate(date, startsAt: nil, capacity: 61, answers: answers, now: now)
        }, .invalid("capacity"))
        week.refuse({ date, answers throws(Refusal) in
            try Waitlist.patchDate(date, startsAt: now - 1, capacity: nil, answers: answers, now: now)
        }, .invalid("startsAt"))
    }

    func testMovingTheStartKeepsTheWindowsAndCutsOffersAtTheNewClosing() {
        var week = fullDate()
        let now = wed + hour
        week.send(answer(.out, "C", at: now), events: [
            .answeredOut(memberId: "C"), .offered(memberId: "E", expiresAt: now + 12 * hour, slot: 1),
        ]) {
            $0[2] = entry("C", 0, .out, at: now)
            $0[4] = entry("E", 0, .offered, at: self.wed + 4, offer: now + 12 * hour, offers: 1)
        }
        let newStart = now + 6 * hour  // closes 5 h from now, sooner than the offer's 12 h
        week.send({ date, answers throws(Refusal) in
            try Waitlist.patchDate(date, startsAt: newStart, capacity: nil, answers: answers, now: now)
        }, events: [], date: {
            $0.startsAt = newStart
            $0.opensAt = newStart - 144 * hour
            $0.closesAt = newStart - hour
            $0.changedAlone = true
        }) {
            $0[4].offerExpiresAt = newStart - hour
        }
    }

    func testADeletedMembersSeatsAreWalked() {
        var week = fullDate()
        let now = wed + hour
        week.send({ date, answers throws(Refusal) in
            Waitlist.removeMember(memberId: "B", date: date, answers: answers, now: now)
        }, events: [.removed(memberId: "B"), .offered(memberId: "D", expiresAt: now + 12 * hour, slot: 1)]) {
            $0.remove(at: 1)
            $0[2] = entry("D", 1, .offered, at: self.wed + 3, offer: now + 12 * hour, offers: 1)
        }
        week.send({ date, answers throws(Refusal) in
            Waitlist.removeMember(memberId: "nobody", date: date, answers: answers, now: now)
        }, events: []) { _ in }
    }

    func testACancelledDateIsClosedForEverything() {
        var week = fullDate()
        let now = wed + hour
        week.send({ date, answers throws(Refusal) in try Waitlist.cancel(date: date, answers: answers, now: now) },
                  events: [.cancelled(notify: ["A", "B", "C", "D", "E"])],
                  date: { $0.status = .cancelled; $0.changedAlone = true }) { _ in }
        week.refuse(answer(.in, "F", at: now), Refusal(.closed))
        week.refuse(answer(.in, "F", by: .organiser, at: now), Refusal(.closed))
        week.refuse(claim("D", at: now), Refusal(.closed))
        week.refuse(pass("D", at: now), Refusal(.closed))
        week.refuse({ date, answers throws(Refusal) in try Waitlist.cancel(date: date, answers: answers, now: now) },
                    Refusal(.closed))
        XCTAssertEqual(Waitlist.expire(date: week.date, answers: week.answers, now: now + 100 * hour).events, [])
    }

    func testAClaimAtTheExpiryInstantIsTooLate() {
        var week = fullDate()
        let now = wed + hour
        week.send(answer(.out, "C", at: now), events: [
            .answeredOut(memberId: "C"), .offered(memberId: "E", expiresAt: now + 12 * hour, slot: 1),
        ]) {
            $0[2] = entry("C", 0, .out, at: now)
            $0[4] = entry("E", 0, .offered, at: self.wed + 4, offer: now + 12 * hour, offers: 1)
        }
        week.refuse(claim("E", at: now + 12 * hour), Refusal(.noOffer))
        week.send(claim("E", at: now + 12 * hour - 1), events: [.claimed(memberId: "E")]) {
            $0[4] = entry("E", 0, .confirmed, at: self.wed + 4, offers: 1)
        }
    }

    func testASecondOfferHasTheNextSlot() {
        var week = fullDate()
        let now = wed + hour
        week.send(answer(.out, "C", at: now), events: [
            .answeredOut(memberId: "C"), .offered(memberId: "E", expiresAt: now + 12 * hour, slot: 1),
        ]) {
            $0[2] = entry("C", 0, .out, at: now)
            $0[4] = entry("E", 0, .offered, at: self.wed + 4, offer: now + 12 * hour, offers: 1)
        }
        week.send(pass("E", at: now + hour), events: [.passed(memberId: "E")]) {
            $0[4] = entry("E", 0, .out, at: now + hour, offers: 1)
        }
        week.send(answer(.in, "F", at: now + 2 * hour), events: [.confirmed(memberId: "F")]) {
            $0.append(entry("F", 0, .confirmed, at: now + 2 * hour))
        }
        week.send(answer(.in, "E", at: now + 3 * hour), events: [.waiting(memberId: "E", position: 2)]) {
            $0.remove(at: 4)
            $0.append(entry("E", 0, .waiting, at: now + 3 * hour, offers: 1))
        }
        week.send(answer(.out, "F", at: now + 4 * hour), events: [
            .answeredOut(memberId: "F"), .offered(memberId: "E", expiresAt: now + 16 * hour, slot: 2),
        ]) {
            $0[4] = entry("F", 0, .out, at: now + 4 * hour)
            $0[5] = entry("E", 0, .offered, at: now + 3 * hour, offer: now + 16 * hour, offers: 2)
        }
    }

    func testNotAnsweredListsActiveMembersOnly() {
        let members = [Member(id: "A", name: "Ana"), Member(id: "X", name: "Xavi"),
                       Member(id: "Y", name: "Yolanda", active: false), Member(id: "Z", name: "Zoe")]
        XCTAssertEqual(Waitlist.notAnswered(members, answers: fullDate().answers), ["X", "Z"])
    }
}
