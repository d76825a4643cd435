/// Who is changing an answer: members only inside the date's answering window, organisers until
/// the match is over (contract, "Answering").
public enum Actor: Equatable, Hashable, Sendable {
    case member
    case organiser
}

/// What happened to whom in one change, in order: the Coordinator tells people on these (offers
/// and last-hour promotions are mailed at once; the mail slot of an offer is `slot`).
public enum WaitlistEvent: Equatable, Hashable, Sendable {
    /// An `in` that fitted at once.
    case confirmed(memberId: String)
    /// An `in` that did not fit: at the end of the waitlist, at `position` (from 1).
    case waiting(memberId: String, position: Int)
    /// A waiting entry was offered the freed place until `expiresAt`; `slot` is the member's offer
    /// number for this date (1, 2, …), the mail's slot.
    case offered(memberId: String, expiresAt: Millis, slot: Int)
    /// In the last hours a waiting entry took the freed place at once.
    case promoted(memberId: String)
    case claimed(memberId: String)
    case passed(memberId: String)
    /// An offer expired unclaimed: the answer is `out`.
    case missed(memberId: String)
    /// An answer (new or changed) is `out`.
    case answeredOut(memberId: String)
    /// An `in` kept its place with a new number of guests.
    case guestsChanged(memberId: String, guests: Int)
    /// A deleted member's answer is gone.
    case removed(memberId: String)
    /// The date is cancelled; `notify` are the `in` answers (confirmed, offered or waiting).
    case cancelled(notify: [String])
    /// The date is played; `noShows` are the confirmed members who did not play.
    case played(noShows: [String])
}

/// A rule's result: the date and its answers after the change, and what happened. Refusals are
/// thrown instead and change nothing.
public struct WaitlistResult: Equatable, Sendable {
    public var date: ClubDate
    public var answers: [Answer]
    public var events: [WaitlistEvent]

    public init(date: ClubDate, answers: [Answer], events: [WaitlistEvent] = []) {
        self.date = date
        self.answers = answers
        self.events = events
    }
}
