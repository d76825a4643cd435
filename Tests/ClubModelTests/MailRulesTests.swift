import ClubModel
import Foundation
import XCTest

/// When mail is due (contract, "Mail, settled"): reminder times, the opening and quiet hours,
/// several times past counting once, the backoff, and what a change's events ask for.
final class MailRulesTests: XCTestCase {
    let madrid = zone("Europe/Madrid")

    /// Sunday 6 December 2026, 10:00 in Madrid (09:00 UTC), answers open 144 h before, close 1 h before.
    func sunday(opensHoursBefore: Millis = 144) -> ClubDate {
        let starts = utc("2026-12-06T09:00:00Z")
        return ClubDate(id: "d1", fixtureId: "f1", occurrence: "2026-12-06", startsAt: starts,
                        opensAt: starts - opensHoursBefore * hour, closesAt: starts - hour, durationMinutes: 90, capacity: 14)
    }

    func testRemindersAreHoursBeforeTheStartAndThoseBeforeTheOpeningAreOneAtTheOpening() {
        XCTAssertEqual(MailRules.reminderTimes(of: sunday(), hoursBefore: [48, 4]), [
            .init(slot: 48, at: utc("2026-12-04T09:00:00Z"), hours: [48]),
            .init(slot: 4, at: utc("2026-12-06T05:00:00Z"), hours: [4]),
        ])
        // Opening 24 h before: 48 and 36 both fall before it, so one reminder at the opening.
        XCTAssertEqual(MailRules.reminderTimes(of: sunday(opensHoursBefore: 24), hoursBefore: [36, 4, 48]), [
            .init(slot: 48, at: utc("2026-12-05T09:00:00Z"), hours: [36, 48]),
            .init(slot: 4, at: utc("2026-12-06T05:00:00Z"), hours: [4]),
        ])
    }

    func testNothingBeforeItsTimeThenOneMailThenNothingAgain() {
        let date = sunday()
        let due = utc("2026-12-04T09:00:00Z")
        XCTAssertEqual(MailRules.reminder(for: date, hoursBefore: [48, 4], settled: [], now: due - 1, club: madrid), .none)
        XCTAssertEqual(MailRules.reminder(for: date, hoursBefore: [48, 4], settled: [], now: due, club: madrid),
                       .send(slot: 48, dueAt: due, hours: [48]))
        XCTAssertEqual(MailRules.reminder(for: date, hoursBefore: [48, 4], settled: [48], now: due + hour, club: madrid), .none)
    }

    func testTimesAlreadyPastCountOnceWithTheLatestSlot() {
        let now = utc("2026-12-06T07:00:00Z")  // 08:00 in Madrid, after both the 48 h and the 4 h times
        XCTAssertEqual(MailRules.reminder(for: sunday(), hoursBefore: [48, 4], settled: [], now: now, club: madrid),
                       .send(slot: 4, dueAt: utc("2026-12-06T05:00:00Z"), hours: [4, 48]))
    }

    func testQuietHoursHoldAReminderUntilEightOrDropItWhenEightIsAfterClosing() {
        let date = sunday()
        // 4 h before 10:00 is 06:00 Madrid: quiet; 08:00 is before closing (09:00): held.
        let six = utc("2026-12-06T05:00:00Z")
        XCTAssertEqual(MailRules.reminder(for: date, hoursBefore: [4], settled: [], now: six, club: madrid),
                       .hold(until: utc("2026-12-06T07:00:00Z")))
        XCTAssertEqual(MailRules.reminder(for: date, hoursBefore: [4], settled: [], now: utc("2026-12-06T07:00:00Z"),
                                          club: madrid),
                       .send(slot: 4, dueAt: six, hours: [4]))
        // Closing at 07:30 Madrid (2.5 h before): the 08:00 that ends the quiet hours is too late.
        var early = date
        early.closesAt = date.startsAt - 150 * minute
        XCTAssertEqual(MailRules.reminder(for: early, hoursBefore: [4], settled: [], now: six, club: madrid),
                       .drop(hours: [4]))
        // 23:00 the evening before is quiet too, until the next morning's 08:00.
        XCTAssertEqual(MailRules.endOfQuietHours(after: utc("2026-12-04T22:00:00Z"), club: madrid),
                       utc("2026-12-05T07:00:00Z"))
        XCTAssertTrue(MailRules.isQuiet(utc("2026-12-04T21:00:00Z"), club: madrid))   // 22:00
        XCTAssertFalse(MailRules.isQuiet(utc("2026-12-04T20:59:00Z"), club: madrid))  // 21:59
        XCTAssertFalse(MailRules.isQuiet(utc("2026-12-05T07:00:00Z"), club: madrid))  // 08:00
    }

    func testACancelledOrClosedDateGetsNoReminder() {
        var date = sunday()
        XCTAssertEqual(MailRules.reminder(for: date, hoursBefore: [1], settled: [], now: date.closesAt, club: madrid), .none)
        date.status = .cancelled
        XCTAssertEqual(MailRules.reminder(for: date, hoursBefore: [48], settled: [], now: utc("2026-12-04T10:00:00Z"),
                                          club: madrid), .none)
    }

    func testRetriesOneFiveFifteenThirtyAndSixtyMinutesAfterTheFirstTryThenFailed() {
        let first: Millis = 1_000_000
        XCTAssertEqual((1...6).map { MailRules.nextTry(firstTryAt: first, tries: $0) },
                       [first + minute, first + 5 * minute, first + 15 * minute, first + 30 * minute, first + 60 * minute, nil])
    }

    func testOffersPromotionsAndCancellationsAreMailedAtOnce() {
        let keys = MailRules.mail(for: [
            .confirmed(memberId: "a"), .offered(memberId: "b", expiresAt: 5, slot: 2), .promoted(memberId: "c"),
            .missed(memberId: "d"), .cancelled(notify: ["e", "f"]),
        ], dateId: "d1")
        XCTAssertEqual(keys, [
            MailKey(memberId: "b", dateId: "d1", kind: .offer, slot: 2),
            MailKey(memberId: "c", dateId: "d1", kind: .promoted, slot: 0),
            MailKey(memberId: "e", dateId: "d1", kind: .cancelled, slot: 0),
            MailKey(memberId: "f", dateId: "d1", kind: .cancelled, slot: 0),
        ])
    }
}
