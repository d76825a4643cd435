import ClubModel
import ClubStore
import Foundation
import GatherModel

/// Telling people (contract, "Mail, settled"): every mail is claimed in the transaction that
/// decides it is due — a change's offers, promotions and cancellations in the change's own, a
/// reminder in the clock's under the date's row lock — and sent afterwards by `ClubMailer`.
/// Without `--smtp` the claims are `unsent`: what organisers would have had mailed.
extension ClubService {
    /// Claims the mail a rule's events ask for (members with an email only).
    func claimMail(for result: WaitlistResult, _ transaction: ClubTransaction) throws {
        let keys = MailRules.mail(for: result.events, dateId: result.date.id)
        guard !keys.isEmpty else { return }
        let reachable = Set(try transaction.members().filter { $0.email != nil }.map(\.id))
        try transaction.claimMail(keys.filter { reachable.contains($0.memberId) }, dueAt: try transaction.now(),
                                  unsent: configuration.mail == nil)
    }

    /// Settles the reminder times that have come on `dateIds` (found by the sweep with
    /// `dateIdsWithRemindersDue`), date by date, each under its row lock and judged again there: the
    /// mail to active members with an email who have not answered is claimed, or the time is
    /// dropped (quiet hours until after closing), or held (quiet hours: nothing is written).
    /// Returns the dates whose mail changed.
    func claimReminders(dateIds: [String], now: Millis) throws -> [String] {
        var claimed: [String] = []
        for dateId in dateIds.prefix(100) where !heldReminders.isHeld(dateId, at: now) {
            let changed: Bool = try store.change { transaction in
                guard let date = try transaction.lockDate(id: dateId),
                      let fixture = try transaction.fixture(id: date.fixtureId) else { return false }
                let now = try transaction.now()
                let club = ClubTime(timeZone: try ClubInput.timeZone(try settings(transaction).timeZone))
                let decision = MailRules.reminder(for: date, hoursBefore: fixture.reminderHoursBefore,
                                                  settled: try transaction.settledReminderHours(date: date.id),
                                                  now: now, club: club)
                switch decision {
                case .none:
                    return false
                case .hold(let until):
                    heldReminders.hold(date.id, until: until)
                    return false
                case .drop(let hours):
                    try transaction.settleReminderHours(date: date.id, hours, now: now)
                    logger.info("club mail: reminder dropped in quiet hours", metadata: [
                        "club.date": "\(date.id)", "club.mail.hours": "\(hours)",
                    ])
                    return false
                case .send(let slot, let dueAt, let hours):
                    try transaction.settleReminderHours(date: date.id, hours, now: now)
                    let answers = try transaction.answers(date: date.id)
                    let members = try transaction.members()
                    let reachable = Set(members.filter { $0.email != nil }.map(\.id))
                    let keys = Waitlist.notAnswered(members, answers: answers).filter(reachable.contains).map {
                        MailKey(memberId: $0, dateId: date.id, kind: .reminder, slot: slot)
                    }
                    // `unsent` rows say when the reminder was due; a pending one is due now.
                    let unsent = configuration.mail == nil
                    try transaction.claimMail(keys, dueAt: unsent ? dueAt : now, unsent: unsent)
                    try transaction.notify(dateIds: [date.id])
                    return true
                }
            }
            if changed { claimed.append(dateId) }
        }
        return claimed
    }
}

/// This instance's memory of reminders waiting for 08:00 (`MailRules.ReminderDecision.hold`), so
/// the half-second clock does not lock their dates all night; a restart forgets it and judges
/// them once again. At most `capacity` dates are remembered (when full it forgets them all).
final class HeldReminders: @unchecked Sendable {
    private let lock = NSLock()
    private var until: [String: Millis] = [:]
    private let capacity = 1_000

    func isHeld(_ dateId: String, at now: Millis) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let end = until[dateId] else { return false }
        if now < end { return true }
        until[dateId] = nil
        return false
    }

    func hold(_ dateId: String, until end: Millis) {
        lock.lock()
        defer { lock.unlock() }
        if until.count >= capacity { until.removeAll() }
        until[dateId] = end
    }
}
