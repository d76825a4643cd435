import ClubModel
import Foundation
import XCTest

/// Dates across daylight saving (Precision 6): 10:00 stays 10:00 local, a skipped time moves
/// forward by the gap, a repeated one is the first.
final class ClubTimeTests: XCTestCase {
    let madrid = zone("Europe/Madrid")
    let saoPaulo = zone("America/Sao_Paulo")

    func testASundayTenOClockStaysTenAcrossMadridsChanges() {
        let sunday10 = Fixture(id: "F", title: "7-a-side", weekday: 7, time: LocalTime(hour: 10, minute: 0),
                               durationMinutes: 90, place: "Riverside", capacity: 14)
        let day = { (text: String) in Schedule.date(of: sunday10, on: LocalDate(text)!, in: self.madrid) }
        XCTAssertEqual(day("2026-03-22").startsAt, utc("2026-03-22T09:00:00Z"))  // CET, +1
        XCTAssertEqual(day("2026-03-29").startsAt, utc("2026-03-29T08:00:00Z"))  // CEST, +2
        XCTAssertEqual(day("2026-10-18").startsAt, utc("2026-10-18T08:00:00Z"))
        XCTAssertEqual(day("2026-10-25").startsAt, utc("2026-10-25T09:00:00Z"))
        for text in ["2026-03-22", "2026-03-29", "2026-10-18", "2026-10-25"] {
            XCTAssertEqual(madrid.localTime(of: day(text).startsAt), LocalTime(hour: 10, minute: 0), text)
            XCTAssertEqual(madrid.localDate(of: day(text).startsAt), LocalDate(text), text)
        }
    }

    func testOpeningAndClosingAreAbsoluteHoursBeforeTheStart() {
        let sunday10 = Fixture(id: "F", title: "7-a-side", weekday: 7, time: LocalTime(hour: 10, minute: 0),
                               durationMinutes: 90, place: "", capacity: 14)
        let date = Schedule.date(of: sunday10, on: LocalDate("2026-03-29")!, in: madrid)
        XCTAssertEqual(date.opensAt, utc("2026-03-23T08:00:00Z"))  // 144 h before: 09:00 CET on Monday
        XCTAssertEqual(date.closesAt, utc("2026-03-29T07:00:00Z"))
        XCTAssertEqual(madrid.localTime(of: date.opensAt), LocalTime(hour: 9, minute: 0))
    }

    func testASkippedTimeMovesForwardByTheGapAndARepeatedOneIsTheFirst() {
        let half2 = LocalTime(hour: 2, minute: 30)
        let spring = madrid.instant(of: LocalDate("2026-03-29")!, at: half2)
        XCTAssertEqual(spring, utc("2026-03-29T01:30:00Z"))
        XCTAssertEqual(madrid.localTime(of: spring), LocalTime(hour: 3, minute: 30))
        XCTAssertEqual(madrid.instant(of: LocalDate("2026-10-25")!, at: half2), utc("2026-10-25T00:30:00Z"))
        // The second 02:30 is an hour later, never chosen.
        XCTAssertEqual(madrid.localTime(of: utc("2026-10-25T01:30:00Z")), half2)
    }

    func testSaoPaulosMidnightThatDidNotExistIn2018() {
        let midnight = LocalTime(hour: 0, minute: 0)
        let start = saoPaulo.instant(of: LocalDate("2018-11-04")!, at: midnight)
        XCTAssertEqual(start, utc("2018-11-04T03:00:00Z"))
        XCTAssertEqual(saoPaulo.localTime(of: start), LocalTime(hour: 1, minute: 0))
        XCTAssertEqual(saoPaulo.instant(of: LocalDate("2018-10-28")!, at: LocalTime(hour: 10, minute: 0)),
                       utc("2018-10-28T13:00:00Z"))
        XCTAssertEqual(saoPaulo.instant(of: LocalDate("2018-11-04")!, at: LocalTime(hour: 10, minute: 0)),
                       utc("2018-11-04T12:00:00Z"))
        // February 2019: the end of summer time repeats 23:00–23:59 on the 16th; the first is taken.
        XCTAssertEqual(saoPaulo.instant(of: LocalDate("2019-02-16")!, at: LocalTime(hour: 23, minute: 30)),
                       utc("2019-02-17T01:30:00Z"))
    }

    /// Every half hour of two years of Madrid and São Paulo days agrees with Foundation's own
    /// `Calendar` (which resolves gaps and repeats the same way in this version).
    func testAgreesWithFoundationsCalendarOverTwoYears() {
        for club in [madrid, saoPaulo] {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = club.timeZone
            var day = LocalDate("2018-01-01")!
            while day < LocalDate("2020-01-01")! {
                for halfHour in stride(from: 0, to: 48, by: 5) {
                    let time = LocalTime(hour: halfHour / 2, minute: halfHour % 2 * 30)
                    let expected = calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day,
                                                                      hour: time.hour, minute: time.minute))!
                    XCTAssertEqual(club.instant(of: day, at: time), Millis(expected.timeIntervalSince1970 * 1_000),
                                   "\(club.timeZone.identifier) \(day) \(time)")
                }
                day = day.adding(days: 3)
            }
        }
    }

    func testLocalDatesParseCountAndKnowTheirWeekday() {
        XCTAssertEqual(LocalDate("1970-01-01")?.daysSinceEpoch, 0)
        XCTAssertEqual(LocalDate("1970-01-01")?.isoWeekday, 4)
        XCTAssertEqual(LocalDate("2026-12-06")?.isoWeekday, 7)
        XCTAssertEqual(LocalDate("2024-02-29")?.adding(days: 1).description, "2024-03-01")
        XCTAssertEqual(LocalDate("1969-12-31")?.daysSinceEpoch, -1)
        XCTAssertEqual(LocalDate("2026-12-06")?.weekMonday.description, "2026-11-30")
        for bad in ["2023-02-29", "2026-13-01", "2026-1-01", "26-01-01", "2026-01-01T", "abcd-ef-gh", ""] {
            XCTAssertNil(LocalDate(bad), bad)
        }
    }
}
