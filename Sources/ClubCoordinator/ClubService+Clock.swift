import ClubModel
import ClubStore
import GatherModel

/// Time moving on: offers past their window become `out` and the walk goes on (Precision 9),
/// the window of dates stays filled. Every instance runs `sweep` about twice a second; the date's
/// row lock makes the second instance find nothing left to do. The test clock (refused unless the
/// server listens on loopback) moves the club's clock for every instance and answers after the
/// consequences of the new time are committed.
extension ClubService {
    /// Expires every offer due by the club's `now` and claims the reminders that have come (quiet
    /// hours hold them); returns the dates it changed. `fillingWindow`:
    /// also make the window's new dates (they appear once a week per fixture, so the clock asks for
    /// it once a minute, not on every sweep; the pages' reads fill it too).
    @discardableResult
    public func sweep(fillingWindow: Bool) throws -> [String] {
        // One transaction finds both kinds of work (the sweep runs twice a second per instance).
        let (due, reminders, now): ([String], [String], Millis) = try store.change { transaction in
            let now = try transaction.now()
            if fillingWindow {
                let added = try ensureDates(transaction, settings: try settings(transaction), now: now)
                if !added.isEmpty { try transaction.notify(dateIds: added) }
            }
            return (try transaction.dateIdsWithOffersExpired(by: now), try transaction.dateIdsWithRemindersDue(at: now), now)
        }
        var changed: [String] = []
        for dateId in due {
            let didChange: Bool = try store.change { transaction in
                guard let date = try transaction.lockDate(id: dateId) else { return false }
                let answers = try transaction.answers(date: date.id)
                let result = Waitlist.expire(date: date, answers: answers, now: try transaction.now())
                guard result.answers != answers || result.date != date else { return false }
                try save(result, transaction)
                return true
            }
            if didChange { changed.append(dateId) }
        }
        return changed + (try claimReminders(dateIds: reminders, now: now))
    }

    func advanceTestClock(_ request: ClubRequest) throws -> ClubResponse {
        guard configuration.testClock else { throw Refusal(.notFound) }
        let body = try ClubBody(request.body)
        let id = try body.id()
        guard let advance = try body.int("advanceMs"), (0...(400 * 86_400_000)).contains(advance) else {
            throw Refusal.invalid("advanceMs")
        }
        let response = try once(scope: "test-clock", id: id, language: request.language) { transaction in
            .json(200, ["now": .int(Int(try transaction.advanceClock(ms: Millis(advance))))])
        }
        try sweep(fillingWindow: true)
        return response
    }
}
