import ClubModel
import XCTest

/// The window of dates and how they follow a fixture (Precisions 5 and 14).
final class ScheduleTests: XCTestCase {
    let madrid = zone("Europe/Madrid")
    let sunday10 = Fixture(id: "F1", title: "7-a-side", weekday: 7, time: LocalTime(hour: 10, minute: 0),
                           durationMinutes: 90, place: "Riverside", capacity: 14)

    func testTheWindowHoldsEightWeeksAndARunningDateUntilItEnds() {
        let wednesday = utc("2026-12-02T12:00:00Z")
        let dates = Schedule.occurrences(of: sunday10, in: madrid, now: wednesday)
        XCTAssertEqual(dates.map(\.occurrence), ["2026-12-06", "2026-12-13", "2026-12-20", "2026-12-27",
                                                 "2027-01-03", "2027-01-10", "2027-01-17", "2027-01-24"])
        XCTAssertEqual(dates.first?.id, "F1-2026-12-06")
        XCTAssertEqual(dates.first?.startsAt, utc("2026-12-06T09:00:00Z"))

        // During the match (10:30 local) today's date is still listed, and the ninth Sunday has come in.
        let during = Schedule.occurrences(of: sunday10, in: madrid, now: utc("2026-12-06T09:30:00Z"))
        XCTAssertEqual(during.first?.occurrence, "2026-12-06")
        XCTAssertEqual(during.last?.occurrence, "2027-01-31")
        // At full time it is gone.
        let after = Schedule.occurrences(of: sunday10, in: madrid, now: utc("2026-12-06T10:30:00Z"))
        XCTAssertEqual(after.first?.occurrence, "2026-12-13")

        var paused = sunday10
        paused.active = false
        XCTAssertEqual(Schedule.occurrences(of: paused, in: madrid, now: wednesday), [])
    }

    func testMissingWeeksAreCreatedOnceWhateverExists() {
        let now = utc("2026-12-02T12:00:00Z")
        let all = Schedule.occurrences(of: sunday10, in: madrid, now: now)
        let existing = Array(all.prefix(3))
        let changes = Schedule.dateChanges(for: sunday10, existing: existing, in: madrid, now: now)
        XCTAssertEqual(changes, all.dropFirst(3).map { DateChange.create($0) })
        XCTAssertEqual(Schedule.dateChanges(for: sunday10, existing: all, in: madrid, now: now), [])
    }

    func testAFixtureChangeMovesDatesNotStartedExceptThoseChangedAlone() {
        let now = utc("2026-12-06T09:30:00Z")  // Sunday 6th, during the match
        let existing = Schedule.occurrences(of: sunday10, in: madrid, now: now)  // 6th … 31st January
        var alone = existing[2]
        alone.capacity = 20
        alone.changedAlone = true
        let dates = [existing[0], existing[1], alone] + existing[3...]
        var saturday = sunday10
        saturday.weekday = 6
        saturday.time = LocalTime(hour: 18, minute: 30)
        saturday.capacity = 12
        let changes = Schedule.dateChanges(for: saturday, existing: dates, in: madrid, now: now)
        // The running date (6th) and the changed-alone one (20th) stay; the 13th moves to Saturday
        // the 12th, keeping its id; …
        guard case let .update(old, new)? = changes.first else { return XCTFail("\(changes)") }
        XCTAssertEqual(old, existing[1])
        XCTAssertEqual(new.id, existing[1].id)
        XCTAssertEqual(new.occurrence, "2026-12-12")
        XCTAssertEqual(new.startsAt, utc("2026-12-12T17:30:00Z"))
        XCTAssertEqual(new.capacity, 12)
        XCTAssertEqual(new.closesAt, new.startsAt - 60 * minute)
        let updated = changes.compactMap { change -> String? in
            if case let .update(_, new) = change { return new.occurrence }
            return nil
        }
        XCTAssertEqual(updated, ["2026-12-12", "2026-12-26", "2027-01-02", "2027-01-09", "2027-01-16",
                                 "2027-01-23", "2027-01-30"])
        // No week gets a second date: the changed-alone week is held.
        XCTAssertFalse(changes.contains { if case .create = $0 { true } else { false } })
    }

    func testPausingCancelsTheFutureAndResumingSchedulesThemAgain() {
        let now = utc("2026-12-06T09:30:00Z")
        let existing = Schedule.occurrences(of: sunday10, in: madrid, now: now)
        var paused = sunday10
        paused.active = false
        let changes = Schedule.dateChanges(for: paused, existing: existing, in: madrid, now: now)
        XCTAssertEqual(changes, existing.dropFirst().map { DateChange.cancel($0) })

        var cancelled = existing.map { date in
            var date = date
            if date.startsAt > now { date.status = .cancelled }
            return date
        }
        cancelled[3].changedAlone = true  // cancelled by the organiser on its own: stays cancelled
        let resumed = Schedule.dateChanges(for: sunday10, existing: cancelled, in: madrid, now: now)
        let rescheduled = resumed.compactMap { change -> String? in
            if case let .update(old, new) = change, old.status == .cancelled, new.status == .scheduled {
                return new.id
            }
            return nil
        }
        XCTAssertEqual(rescheduled, [1, 2, 4, 5, 6, 7, 8].map { existing[$0].id })
        XCTAssertEqual(resumed.count, 7)
    }

    func testADateMovedIntoThePastIsCancelled() {
        let now = utc("2026-12-02T12:00:00Z")  // Wednesday
        let existing = Schedule.occurrences(of: sunday10, in: madrid, now: now)
        var monday = sunday10
        monday.weekday = 1
        let changes = Schedule.dateChanges(for: monday, existing: existing, in: madrid, now: now)
        XCTAssertEqual(changes.first, .cancel(existing[0]))  // Monday 30 November has passed
        guard case let .update(_, new)? = changes.dropFirst().first else { return XCTFail("\(changes)") }
        XCTAssertEqual(new.occurrence, "2026-12-07")
    }
}
