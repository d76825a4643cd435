/// The waitlist's rules ("Answers, the waitlist and claims", Precisions 7–11): one function per
/// thing that happened, each taking the date, the date's answers and `now`, returning the new
/// answers and the events. Pure, so the store runs them inside the transaction that locked the
/// date's row and no seat is ever given twice.
///
/// Order: the waitlist is the `waiting` answers ordered by `answeredAt`, ties in array order. A
/// new `in` is moved to the end of the array, so the array is the order answers were judged in
/// (Precision 11); the store must hand the answers back in that order (e.g. by a serial column).
public enum Waitlist {
    // MARK: - Counting

    /// Confirmed and offered seats, guests included: what an `in` must fit beside (Precision 7).
    public static func heldSeats(_ answers: [Answer]) -> Int {
        answers.reduce(0) { $0 + ($1.state == .confirmed || $1.state == .offered ? $1.seats : 0) }
    }

    /// Confirmed seats, guests included (the count the pages and the group chat show).
    public static func confirmedSeats(_ answers: [Answer]) -> Int {
        answers.reduce(0) { $0 + ($1.state == .confirmed ? $1.seats : 0) }
    }

    /// The number of waiting answers.
    public static func waitingCount(_ answers: [Answer]) -> Int {
        answers.count(where: { $0.state == .waiting })
    }

    /// The indices of the waiting answers in waitlist order.
    public static func waitlistOrder(_ answers: [Answer]) -> [Int] {
        answers.indices.filter { answers[$0].state == .waiting }
            .sorted { (answers[$0].answeredAt, $0) < (answers[$1].answeredAt, $1) }
    }

    /// Each waiting member's position, counting from 1.
    public static func positions(_ answers: [Answer]) -> [String: Int] {
        var positions: [String: Int] = [:]
        for (offset, index) in waitlistOrder(answers).enumerated() { positions[answers[index].memberId] = offset + 1 }
        return positions
    }

    /// Active members with no answer for the date (inactive ones are neither reminded nor listed).
    public static func notAnswered(_ members: [Member], answers: [Answer]) -> [String] {
        let answered = Set(answers.map(\.memberId))
        return members.filter { $0.active && !answered.contains($0.id) }.map(\.id)
    }

    /// When the date next needs `expire` (the earliest open offer's end), or nil.
    public static func nextDeadline(date: ClubDate, answers: [Answer]) -> Millis? {
        guard date.status == .scheduled else { return nil }
        return answers.compactMap { $0.state == .offered ? $0.offerExpiresAt : nil }.min()
    }

    // MARK: - Members and organisers answering

    /// An answer (contract "Answering", Precision 10). Members answer only while
    /// `opensAt ≤ now < closesAt` (`not_open_yet`, `closed`); organisers until the match is over.
    /// `in` is confirmed when it fits beside the held seats, else waits at the end — or is `full`
    /// once the match has begun. An existing `in` only changes its guests: a confirmed or offered
    /// one keeps its place if the new seats fit (fewer always do), else `no_room_for_guests`; a
    /// waiting one keeps its position. `out` frees the seats and the walk goes on.
    public static func answer(_ choice: AnswerChoice, guests: Int, memberId: String, by actor: Actor,
                              date: ClubDate, answers: [Answer], now: Millis) throws(Refusal) -> WaitlistResult {
        guard date.status == .scheduled else { throw Refusal(.closed) }
        switch actor {
        case .member:
            guard now >= date.opensAt else { throw Refusal(.notOpenYet) }
            guard now < date.closesAt else { throw Refusal(.closed) }
        case .organiser:
            guard now < date.endsAt else { throw Refusal(.closed) }
        }
        _ = try ClubInput.guests(guests)
        var result = WaitlistResult(date: date, answers: answers)
        let index = answers.firstIndex { $0.memberId == memberId }
        let existing = index.map { answers[$0] }

        if choice == .out {
            guard existing?.answer != .out else { return walk(result, now: now) }
            let out = Answer(memberId: memberId, answer: .out, guests: 0, state: .out, answeredAt: now,
                             offersMade: existing?.offersMade ?? 0)
            if let index { result.answers[index] = out } else { result.answers.append(out) }
            result.events.append(.answeredOut(memberId: memberId))
            return walk(result, now: now)
        }

        // The same answer again changes nothing, even on a date whose capacity was lowered under it.
        if let existing, existing.answer == .in, existing.guests == guests { return walk(result, now: now) }
        let seats = 1 + guests
        guard seats <= date.capacity else { throw Refusal(.noRoomForGuests, ["capacity": String(date.capacity)]) }
        if let index, let existing, existing.answer == .in {
            if existing.state != .waiting, guests > existing.guests,
               heldSeats(answers) - existing.seats + seats > date.capacity {
                throw Refusal(.noRoomForGuests, ["capacity": String(date.capacity)])
            }
            result.answers[index].guests = guests
            result.events.append(.guestsChanged(memberId: memberId, guests: guests))
            return walk(result, now: now)
        }

        let fits = heldSeats(answers) + seats <= date.capacity
        if !fits, now >= date.startsAt { throw Refusal(.full, ["capacity": String(date.capacity)]) }
        if let index { result.answers.remove(at: index) }
        result.answers.append(Answer(memberId: memberId, answer: .in, guests: guests,
                                     state: fits ? .confirmed : .waiting, answeredAt: now,
                                     offersMade: existing?.offersMade ?? 0))
        if fits {
            result.events.append(.confirmed(memberId: memberId))
        } else {
            result.events.append(.waiting(memberId: memberId, position: positions(result.answers)[memberId] ?? 0))
        }
        return walk(result, now: now)
    }

    /// An offered member takes the place: `confirmed`. `no_offer` when their offer is not open
    /// (none, or past `offerExpiresAt` even if `expire` has not run yet).
    public static func claim(memberId: String, date: ClubDate, answers: [Answer],
                             now: Millis) throws(Refusal) -> WaitlistResult {
        let index = try openOffer(memberId: memberId, date: date, answers: answers, now: now)
        var result = WaitlistResult(date: date, answers: answers)
        result.answers[index].state = .confirmed
        result.answers[index].offerExpiresAt = nil
        result.events.append(.claimed(memberId: memberId))
        return walk(result, now: now)
    }

    /// An offered member declines: `out`, and the walk offers the place on.
    public static func pass(memberId: String, date: ClubDate, answers: [Answer],
                            now: Millis) throws(Refusal) -> WaitlistResult {
        let index = try openOffer(memberId: memberId, date: date, answers: answers, now: now)
        var result = WaitlistResult(date: date, answers: answers)
        result.answers[index] = Answer(memberId: memberId, answer: .out, guests: 0, state: .out, answeredAt: now,
                                       offersMade: answers[index].offersMade)
        result.events.append(.passed(memberId: memberId))
        return walk(result, now: now)
    }

    private static func openOffer(memberId: String, date: ClubDate, answers: [Answer],
                                  now: Millis) throws(Refusal) -> Int {
        guard date.status == .scheduled else { throw Refusal(.closed) }
        guard let index = answers.firstIndex(where: { $0.memberId == memberId }),
              answers[index].state == .offered, let expiry = answers[index].offerExpiresAt, now < expiry
        else { throw Refusal(.noOffer) }
        return index
    }

    // MARK: - The walk

    /// Gives free seats to the waitlist (Precision 7): in order, each waiting entry whose seats fit
    /// is offered the place until `min(now + claimHours, closesAt)` — or, in the last hours
    /// (Precision 8), confirmed at once — and the walk goes on while seats remain and an entry fits.
    /// Nothing moves on a date that is not scheduled or is over.
    public static func walk(date: ClubDate, answers: [Answer], now: Millis) -> WaitlistResult {
        walk(WaitlistResult(date: date, answers: answers), now: now)
    }

    static func walk(_ result: WaitlistResult, now: Millis) -> WaitlistResult {
        let date = result.date
        guard date.status == .scheduled, now < date.endsAt else { return result }
        var result = result
        var free = date.capacity - heldSeats(result.answers)
        let lastHours = now >= date.lastHoursFrom
        for index in waitlistOrder(result.answers) where free > 0 {
            let entry = result.answers[index]
            guard entry.seats <= free else { continue }
            free -= entry.seats
            if lastHours {
                result.answers[index].state = .confirmed
                result.events.append(.promoted(memberId: entry.memberId))
            } else {
                let expiresAt = min(now + Millis(date.claimHours) * 3_600_000, date.closesAt)
                result.answers[index].state = .offered
                result.answers[index].offerExpiresAt = expiresAt
                result.answers[index].offersMade += 1
                result.events.append(.offered(memberId: entry.memberId, expiresAt: expiresAt,
                                              slot: entry.offersMade + 1))
            }
        }
        return result
    }
}
