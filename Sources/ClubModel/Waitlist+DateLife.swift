/// The rules for what happens to a date rather than to one answer: time passing, the organiser's
/// changes, a member deleted, cancelling and the result from the pitch.
extension Waitlist {
    /// Time passed (Precision 9): each offer at or past `offerExpiresAt` becomes `out` ("missed")
    /// and the walk goes on; also the moment a freed place can go straight to the waitlist.
    /// Run it (under the date's lock) before judging a change, and at `nextDeadline`.
    public static func expire(date: ClubDate, answers: [Answer], now: Millis) -> WaitlistResult {
        var result = WaitlistResult(date: date, answers: answers)
        guard date.status == .scheduled else { return result }
        for index in result.answers.indices {
            let entry = result.answers[index]
            guard entry.state == .offered, let expiry = entry.offerExpiresAt, expiry <= now else { continue }
            result.answers[index] = Answer(memberId: entry.memberId, answer: .out, guests: 0, state: .out,
                                           answeredAt: now, offersMade: entry.offersMade)
            result.events.append(.missed(memberId: entry.memberId))
        }
        return walk(result, now: now)
    }

    /// The date itself changed (a fixture change or the organiser's `PATCH`; the new form carries
    /// the same id): open offers end no later than the new closing, those already due are missed,
    /// and a larger capacity is walked. A smaller one takes no place away — confirmed and offered
    /// seats stay — it only stops new ones (Precision 14).
    public static func changeDate(to newDate: ClubDate, answers: [Answer], now: Millis) -> WaitlistResult {
        var clamped = answers
        for index in clamped.indices {
            if let expiry = clamped[index].offerExpiresAt, expiry > newDate.closesAt {
                clamped[index].offerExpiresAt = newDate.closesAt
            }
        }
        return expire(date: newDate, answers: clamped, now: now)
    }

    /// The organiser's `PATCH /club/api/dates/DID {startsAt?, capacity?}`: the date alone (fixture
    /// changes skip it from now on). The opening and closing keep their distance from the start;
    /// the new start must be in the future; capacity 2–60. `closed` once cancelled, played or over.
    public static func patchDate(_ date: ClubDate, startsAt: Millis?, capacity: Int?, answers: [Answer],
                                 now: Millis) throws(Refusal) -> WaitlistResult {
        guard date.status == .scheduled, now < date.endsAt else { throw Refusal(.closed) }
        var changed = date
        if let capacity {
            guard (2...60).contains(capacity) else { throw .invalid("capacity") }
            changed.capacity = capacity
        }
        if let startsAt {
            guard startsAt > now, startsAt <= now + 366 * 86_400_000 else { throw .invalid("startsAt") }
            changed.opensAt = startsAt - (date.startsAt - date.opensAt)
            changed.closesAt = startsAt - (date.startsAt - date.closesAt)
            changed.startsAt = startsAt
        }
        changed.changedAlone = true
        return changeDate(to: changed, answers: answers, now: now)
    }

    /// A member deleted (Precision 16): their answer goes, their seats are freed and walked.
    public static func removeMember(memberId: String, date: ClubDate, answers: [Answer],
                                    now: Millis) -> WaitlistResult {
        var result = WaitlistResult(date: date, answers: answers)
        guard let index = answers.firstIndex(where: { $0.memberId == memberId }) else { return result }
        result.answers.remove(at: index)
        result.events.append(.removed(memberId: memberId))
        return walk(result, now: now)
    }

    /// Cancelling a date (Precision 15): everything after is `closed`; the `in` answers are to be
    /// told. `alone` (the organiser's cancel) marks it changed on its own, so a later fixture change
    /// or resuming a paused fixture leaves it cancelled; a fixture's pause passes `false`.
    public static func cancel(date: ClubDate, answers: [Answer], now: Millis,
                              alone: Bool = true) throws(Refusal) -> WaitlistResult {
        guard date.status == .scheduled, now < date.endsAt else { throw Refusal(.closed) }
        var changed = date
        changed.status = .cancelled
        changed.changedAlone = date.changedAlone || alone
        let notify = answers.filter { $0.answer == .in }.map(\.memberId)
        return WaitlistResult(date: changed, answers: answers, events: [.cancelled(notify: notify)])
    }

    /// The result from the pitch: the date is `played` and each answer records whether the member
    /// played; confirmed members who did not are no-shows. Applied once: again is `closed`.
    public static func played(date: ClubDate, answers: [Answer], attended: Set<String>,
                              now: Millis) throws(Refusal) -> WaitlistResult {
        guard date.status == .scheduled else { throw Refusal(.closed) }
        var changed = date
        changed.status = .played
        var result = WaitlistResult(date: changed, answers: answers)
        var noShows: [String] = []
        for index in result.answers.indices {
            let played = attended.contains(result.answers[index].memberId)
            result.answers[index].attended = played
            if !played, result.answers[index].state == .confirmed { noShows.append(result.answers[index].memberId) }
        }
        result.events.append(.played(noShows: noShows))
        return result
    }
}
