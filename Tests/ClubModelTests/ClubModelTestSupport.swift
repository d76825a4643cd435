import ClubModel
import XCTest
import Foundation

/// An instant written as ISO 8601 UTC ("2026-03-29T08:00:00Z"), read by Foundation's parser so
/// the expected values do not come from the code under test.
func utc(_ text: String) -> Millis {
    let formatter = ISO8601DateFormatter()
    guard let date = formatter.date(from: text) else { fatalError("bad test instant \(text)") }
    return Millis((date.timeIntervalSince1970 * 1_000).rounded())
}

func zone(_ name: String) -> ClubTime { ClubTime(timeZone: TimeZone(identifier: name)!) }

let hour: Millis = 3_600_000
let minute: Millis = 60_000

/// One date and its answers as a test walks through a week, in the style of
/// swift-composable-architecture's `TestStore`: every step states the whole next answers array
/// (as a change of the previous one) and every event, so nothing changes unseen.
struct DateUnderTest {
    var date: ClubDate
    var answers: [Answer] = []

    mutating func send(_ rule: (ClubDate, [Answer]) throws(Refusal) -> WaitlistResult, events: [WaitlistEvent],
                       file: StaticString = #filePath, line: UInt = #line,
                       date changeDate: ((inout ClubDate) -> Void)? = nil,
                       _ changeAnswers: (inout [Answer]) -> Void) {
        var expectedAnswers = answers
        changeAnswers(&expectedAnswers)
        var expectedDate = date
        changeDate?(&expectedDate)
        do {
            let result = try rule(date, answers)
            XCTAssertEqual(result.events, events, "events", file: file, line: line)
            XCTAssertEqual(result.answers, expectedAnswers, "answers", file: file, line: line)
            XCTAssertEqual(result.date, expectedDate, "date", file: file, line: line)
            date = result.date
            answers = result.answers
        } catch {
            XCTFail("refused: \(error)", file: file, line: line)
        }
    }

    /// A refusal: the code (and params) expected, and nothing to change, since the rule returns
    /// nothing when it refuses.
    func refuse(_ rule: (ClubDate, [Answer]) throws(Refusal) -> WaitlistResult, _ expected: Refusal,
                file: StaticString = #filePath, line: UInt = #line) {
        do {
            let result = try rule(date, answers)
            XCTFail("not refused: \(result.events)", file: file, line: line)
        } catch {
            XCTAssertEqual(error, expected, file: file, line: line)
        }
    }
}

/// An answer written short: `in` unless the state is `out`.
func entry(_ memberId: String, _ guests: Int, _ state: AnswerState, at answeredAt: Millis, offer: Millis? = nil,
           offers: Int = 0, attended: Bool? = nil) -> Answer {
    Answer(memberId: memberId, answer: state == .out ? .out : .in, guests: guests, state: state,
           answeredAt: answeredAt, offerExpiresAt: offer, offersMade: offers, attended: attended)
}

func answer(_ choice: AnswerChoice, _ memberId: String, guests: Int = 0, by actor: Actor = .member,
            at now: Millis) -> (ClubDate, [Answer]) throws(Refusal) -> WaitlistResult {
    { date, answers throws(Refusal) in
        try Waitlist.answer(choice, guests: guests, memberId: memberId, by: actor, date: date, answers: answers, now: now)
    }
}

func claim(_ memberId: String, at now: Millis) -> (ClubDate, [Answer]) throws(Refusal) -> WaitlistResult {
    { date, answers throws(Refusal) in try Waitlist.claim(memberId: memberId, date: date, answers: answers, now: now) }
}

func pass(_ memberId: String, at now: Millis) -> (ClubDate, [Answer]) throws(Refusal) -> WaitlistResult {
    { date, answers throws(Refusal) in try Waitlist.pass(memberId: memberId, date: date, answers: answers, now: now) }
}

func expire(at now: Millis) -> (ClubDate, [Answer]) throws(Refusal) -> WaitlistResult {
    { date, answers in Waitlist.expire(date: date, answers: answers, now: now) }
}
