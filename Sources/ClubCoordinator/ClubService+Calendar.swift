import ClubModel
import ClubStore
import Foundation
import GatherModel
import GatherPresenters

/// `/club/m/TOKEN/calendar.ics`: the member's dates of the window (RFC 5545, written with the
/// venue's `ICalendarText`, since no iCalendar package is in the offline set). Confirmed dates are
/// events with an alarm 2 hours before; the others are TENTATIVE with the answer in the summary;
/// a cancelled date is CANCELLED. `SEQUENCE` is the date's change counter (Precision 18).
extension ClubService {
    func memberCalendar(_ token: String, _ request: ClubRequest) throws -> ClubResponse {
        try store.read { transaction in
            guard let member = try transaction.member(tokenHash: MemberLinks.hash(token: token)) else { throw Refusal(.notFound) }
            let settings = try settings(transaction)
            let now = try transaction.now()
            let fixtures = try transaction.fixtures()
            let sequences = try transaction.calendarSequences(member: member.id)
            let dates = try transaction.dates(from: now, to: now + Schedule.windowMillis)
            let answersByDate = try transaction.answers(dates: dates.map(\.id))
            var calendar = ICalendarText()
            calendar.property("BEGIN", "VCALENDAR")
            calendar.property("VERSION", "2.0")
            calendar.property("PRODID", "-//Football Gather Live//Club//EN")
            calendar.property("CALSCALE", "GREGORIAN")
            calendar.property("X-WR-CALNAME", ICalendarText.escaped(settings.name))
            for date in dates {
                let fixture = fixtures.first { $0.id == date.fixtureId }
                let answers = answersByDate[date.id] ?? []
                let mine = answers.first { $0.memberId == member.id }
                let title = fixture?.title ?? settings.name
                calendar.property("BEGIN", "VEVENT")
                calendar.property("UID", "\(date.id)@club.football-gather")
                calendar.property("DTSTAMP", ICalendarText.dateTime(epochMilliseconds: now))
                calendar.property("SEQUENCE", "\(sequences[date.id] ?? 0)")
                calendar.property("DTSTART", ICalendarText.dateTime(epochMilliseconds: date.startsAt))
                calendar.property("DURATION", ICalendarText.duration(minutes: date.durationMinutes))
                if let place = fixture?.place, !place.isEmpty { calendar.property("LOCATION", ICalendarText.escaped(place)) }
                switch (date.status, mine?.state) {
                case (.cancelled, _):
                    calendar.property("STATUS", "CANCELLED")
                    calendar.property("SUMMARY", ICalendarText.escaped(title))
                case (_, .confirmed?):
                    calendar.property("STATUS", "CONFIRMED")
                    calendar.property("SUMMARY", ICalendarText.escaped(title))
                    calendar.property("BEGIN", "VALARM")
                    calendar.property("ACTION", "DISPLAY")
                    calendar.property("DESCRIPTION", ICalendarText.escaped(title))
                    calendar.property("TRIGGER", "-PT2H")
                    calendar.property("END", "VALARM")
                default:
                    calendar.property("STATUS", "TENTATIVE")
                    let state = CalendarWords.state(mine, position: Waitlist.positions(answers)[member.id],
                                                    language: request.language)
                    calendar.property("SUMMARY", ICalendarText.escaped("\(state): \(title)"))
                }
                calendar.property("END", "VEVENT")
            }
            calendar.property("END", "VCALENDAR")
            return ClubResponse(status: 200, contentType: "text/calendar; charset=utf-8", body: Array(calendar.document.utf8))
        }
    }
}
