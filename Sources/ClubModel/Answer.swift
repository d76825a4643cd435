/// What a member said about a date.
public enum AnswerChoice: String, CaseIterable, Hashable, Sendable {
    case `in`, out
}

/// Where an answer stands: `in` answers are `confirmed`, `waiting` or `offered`; `out` is `out`
/// (also a passed or missed offer).
public enum AnswerState: String, CaseIterable, Hashable, Sendable {
    case confirmed, waiting, offered, out
}

/// A member's one answer for one date.
public struct Answer: Equatable, Hashable, Sendable {
    public var memberId: String
    public var answer: AnswerChoice
    /// 0–3; the member and their guests take `1 + guests` seats, always together.
    public var guests: Int
    public var state: AnswerState
    /// When the `in` was given (the waitlist's order); kept when only guests change.
    public var answeredAt: Millis
    /// Set while `state == .offered`.
    public var offerExpiresAt: Millis?
    /// How many offers this member has had for this date: the mail slot of the next offer.
    public var offersMade: Int
    /// Set when the date is played: whether the member was on a team at the end.
    public var attended: Bool?

    public init(memberId: String, answer: AnswerChoice, guests: Int = 0, state: AnswerState, answeredAt: Millis,
                offerExpiresAt: Millis? = nil, offersMade: Int = 0, attended: Bool? = nil) {
        self.memberId = memberId
        self.answer = answer
        self.guests = guests
        self.state = state
        self.answeredAt = answeredAt
        self.offerExpiresAt = offerExpiresAt
        self.offersMade = offersMade
        self.attended = attended
    }

    /// The seats this answer takes together: the member and their guests.
    public var seats: Int { 1 + guests }
}
