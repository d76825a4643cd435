/// When mail is due, held, retried or given up: pure rules of time (the club's clock is passed in).
public enum MailRules {
    /// After the first try, the next ones at these minutes (club clock); after the sixth
    /// failure the mail is `failed` (contract, "Mail, settled" 2).
    public static let retryMinutes: [Millis] = [1, 5, 15, 30, 60]
    /// A claim whose sender stopped (crashed, killed) is tried again this long after it was taken.
    public static let staleClaimMillis: Millis = 5 * 60_000
    /// Quiet hours are [22:00, 08:00) club time: reminders wait until 08:00.
    public static let quietFrom = LocalTime(hour: 22, minute: 0)
    public static let quietUntil = LocalTime(hour: 8, minute: 0)

    /// One reminder time of a date: `slot` (the hours before, the largest of those falling at the
    /// same moment) and when it is due (never before `opensAt`: an earlier one is sent at opening).
    public struct ReminderTime: Equatable, Sendable {
        public var slot: Int
        public var at: Millis
        /// Every `reminderHoursBefore` value that falls at `at` (all are settled together).
        public var hours: [Int]

        public init(slot: Int, at: Millis, hours: [Int]) {
            self.slot = slot
            self.at = at
            self.hours = hours
        }
    }

    /// The date's reminder times in order; several that fall before `opensAt` become one, at
    /// `opensAt` (contract: "once, even when two fall there").
    public static func reminderTimes(of date: ClubDate, hoursBefore: [Int]) -> [ReminderTime] {
        var byTime: [Millis: [Int]] = [:]
        for hours in Set(hoursBefore) {
            let at = max(date.startsAt - Millis(hours) * 3_600_000, date.opensAt)
            byTime[at, default: []].append(hours)
        }
        return byTime.keys.sorted().map { at in
            let hours = byTime[at]!.sorted()
            return ReminderTime(slot: hours.last!, at: at, hours: hours)
        }
    }

    /// What to do about a date's reminders at `now`.
    public enum ReminderDecision: Equatable, Sendable {
        /// Nothing is due.
        case none
        /// Due in quiet hours: wait until `until` (08:00 club time), deciding nothing yet.
        case hold(until: Millis)
        /// Due in quiet hours and 08:00 is at or after `closesAt`: settle `hours` with no mail.
        case drop(hours: [Int])
        /// Send reminder `slot` to those who have not answered, and settle `hours` (every time
        /// already past counts once: one mail, the latest time's slot).
        case send(slot: Int, dueAt: Millis, hours: [Int])
    }

    /// The reminders of `date` at `now`, `settled` being the hours already decided (sent, dropped).
    /// Only a scheduled date whose answers are open gets reminders.
    public static func reminder(for date: ClubDate, hoursBefore: [Int], settled: Set<Int>, now: Millis,
                                club: ClubTime) -> ReminderDecision {
        guard date.status == .scheduled, now >= date.opensAt, now < date.closesAt else { return .none }
        let due = reminderTimes(of: date, hoursBefore: hoursBefore)
            .filter { $0.at <= now && !$0.hours.allSatisfy(settled.contains) }
        guard let latest = due.last else { return .none }
        let hours = due.flatMap(\.hours).filter { !settled.contains($0) }.sorted()
        if isQuiet(now, club: club) {
            let morning = endOfQuietHours(after: now, club: club)
            return morning >= date.closesAt ? .drop(hours: hours) : .hold(until: morning)
        }
        return .send(slot: latest.slot, dueAt: latest.at, hours: hours)
    }

    /// True in [22:00, 08:00) club time.
    public static func isQuiet(_ instant: Millis, club: ClubTime) -> Bool {
        let time = club.localTime(of: instant)
        return time >= quietFrom || time < quietUntil
    }

    /// The 08:00 (club time) that ends the quiet hours `instant` is in.
    public static func endOfQuietHours(after instant: Millis, club: ClubTime) -> Millis {
        let day = club.localDate(of: instant)
        let morning = club.localTime(of: instant) >= quietFrom ? day.adding(days: 1) : day
        return club.instant(of: morning, at: quietUntil)
    }

    /// After `tries` failed tries (the first at `firstTryAt`): when to try again, or nil when the
    /// mail is now `failed`.
    public static func nextTry(firstTryAt: Millis, tries: Int) -> Millis? {
        guard tries >= 1, tries <= retryMinutes.count else { return nil }
        return firstTryAt + retryMinutes[tries - 1] * 60_000
    }

    /// The mail a change's events ask for at once: offers (slot: the offer's number), last-hour
    /// promotions, and a cancelled date to every `in` answer. Reminders come from the clock.
    public static func mail(for events: [WaitlistEvent], dateId: String) -> [MailKey] {
        var keys: [MailKey] = []
        for event in events {
            switch event {
            case .offered(let memberId, _, let slot):
                keys.append(MailKey(memberId: memberId, dateId: dateId, kind: .offer, slot: slot))
            case .promoted(let memberId):
                keys.append(MailKey(memberId: memberId, dateId: dateId, kind: .promoted, slot: 0))
            case .cancelled(let notify):
                keys += notify.map { MailKey(memberId: $0, dateId: dateId, kind: .cancelled, slot: 0) }
            default:
                continue
            }
        }
        return keys
    }
}
