/// What keeping a fixture's dates in step asks of the store: make a missing occurrence, replace a
/// date by its moved form, or cancel it (then run `Waitlist.cancel` for its answers and mail).
public enum DateChange: Equatable, Sendable {
    case create(ClubDate)
    /// A scheduled date moved (time, weekday, duration, capacity, offsets) or a paused fixture's
    /// date scheduled again; run `Waitlist.changeDate` with the new date and its answers.
    case update(old: ClubDate, new: ClubDate)
    /// A paused fixture's date not yet started; run `Waitlist.cancel(…, alone: false)`.
    case cancel(ClubDate)
}

/// The club's dates from its fixtures, in the club's time zone (Precisions 5, 6 and 14).
public enum Schedule {
    /// Precision 5: every occurrence starting within 56 days of now exists.
    public static let windowMillis: Millis = 56 * 86_400_000

    /// The natural key of an occurrence, also used as the id of a date made here: the fixture and
    /// the local day, so two instances making the same window upsert one row.
    public static func dateId(fixtureId: String, occurrence: LocalDate) -> String {
        "\(fixtureId)-\(occurrence)"
    }

    /// The date of `fixture` on the local day `occurrence` (its start at the fixture's local time,
    /// Precision 6 for opening and closing, absolute hours and minutes before it).
    public static func date(of fixture: Fixture, on occurrence: LocalDate, in club: ClubTime) -> ClubDate {
        let startsAt = club.instant(of: occurrence, at: fixture.time)
        return ClubDate(id: dateId(fixtureId: fixture.id, occurrence: occurrence), fixtureId: fixture.id,
                        occurrence: occurrence.description, startsAt: startsAt,
                        opensAt: startsAt - Millis(fixture.opensHoursBefore) * 3_600_000,
                        closesAt: startsAt - Millis(fixture.closesMinutesBefore) * 60_000,
                        durationMinutes: fixture.durationMinutes, capacity: fixture.capacity,
                        claimHours: fixture.claimHours, lastMinuteHours: fixture.lastMinuteHours,
                        status: fixture.active ? .scheduled : .cancelled)
    }

    /// The occurrences of an active fixture listed at `now`: starting no later than `now + 56 days`
    /// and not yet over (`now < startsAt + durationMinutes`), in order. A paused fixture has none.
    public static func occurrences(of fixture: Fixture, in club: ClubTime, now: Millis) -> [ClubDate] {
        guard fixture.active else { return [] }
        let first = club.localDate(of: now - Millis(fixture.durationMinutes) * 60_000).adding(days: -1)
        let last = club.localDate(of: now + windowMillis).adding(days: 1)
        var dates: [ClubDate] = []
        var day = first.adding(days: (fixture.weekday - first.isoWeekday + 7) % 7)
        while day <= last {
            let date = date(of: fixture, on: day, in: club)
            if date.startsAt <= now + windowMillis, now < date.endsAt { dates.append(date) }
            day = day.adding(days: 7)
        }
        return dates
    }

    /// What to do to one fixture's `existing` dates so they follow it (Precision 14) and the window
    /// is full (Precision 5):
    /// - a scheduled date not yet started and not changed on its own moves to the fixture's weekday
    ///   and time in the same ISO week, with its duration, capacity and offsets (one whose new start
    ///   has already passed is cancelled: that week's match is gone);
    /// - `active: false` cancels those dates instead; `active: true` schedules again the ones a
    ///   pause cancelled (not those cancelled on their own, which are `changedAlone`);
    /// - each week of the window with no date of this fixture gets one, so a moved or changed-alone
    ///   date never stands beside a second one in its week.
    public static func dateChanges(for fixture: Fixture, existing: [ClubDate], in club: ClubTime,
                                   now: Millis) -> [DateChange] {
        var changes: [DateChange] = []
        var weeksHeld = Set<LocalDate>()
        for old in existing where old.fixtureId == fixture.id {
            guard let occurrence = LocalDate(old.occurrence) else { continue }
            weeksHeld.insert(occurrence.weekMonday)
            guard old.startsAt > now, !old.changedAlone, old.status != .played else { continue }
            if !fixture.active {
                if old.status == .scheduled { changes.append(.cancel(old)) }
                continue
            }
            let day = occurrence.weekMonday.adding(days: fixture.weekday - 1)
            var moved = date(of: fixture, on: day, in: club)
            moved.id = old.id
            if moved.startsAt <= now {
                if old.status == .scheduled { changes.append(.cancel(old)) }
                continue
            }
            weeksHeld.insert(day.weekMonday)
            if moved != old { changes.append(.update(old: old, new: moved)) }
        }
        for date in occurrences(of: fixture, in: club, now: now) {
            guard let day = LocalDate(date.occurrence), !weeksHeld.contains(day.weekMonday) else { continue }
            weeksHeld.insert(day.weekMonday)
            changes.append(.create(date))
        }
        return changes
    }
}
