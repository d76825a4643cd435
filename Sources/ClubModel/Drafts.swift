import Foundation

/// A member as a request body carries it (`POST`/`PATCH /club/api/members`): every field optional
/// so one type serves both; `ClubInput.newMember`/`patchedMember` judge it. An `email` of "" clears
/// the address.
public struct MemberDraft: Decodable, Equatable, Sendable {
    public var name: String?
    public var email: String?
    public var language: String?
    public var active: Bool?

    public init(name: String? = nil, email: String? = nil, language: String? = nil, active: Bool? = nil) {
        self.name = name
        self.email = email
        self.language = language
        self.active = active
    }
}

/// A fixture as a request body carries it (`POST`/`PATCH /club/api/fixtures`); absent fields take
/// the contract's defaults on creation and stay as they were on a change.
public struct FixtureDraft: Decodable, Equatable, Sendable {
    public var title: String?
    public var weekday: Int?
    /// `HH:MM`, club time.
    public var time: String?
    public var durationMinutes: Int?
    public var place: String?
    public var capacity: Int?
    public var opensHoursBefore: Int?
    public var closesMinutesBefore: Int?
    public var claimHours: Int?
    public var lastMinuteHours: Int?
    public var reminderHoursBefore: [Int]?
    public var active: Bool?

    public init(title: String? = nil, weekday: Int? = nil, time: String? = nil, durationMinutes: Int? = nil,
                place: String? = nil, capacity: Int? = nil, opensHoursBefore: Int? = nil,
                closesMinutesBefore: Int? = nil, claimHours: Int? = nil, lastMinuteHours: Int? = nil,
                reminderHoursBefore: [Int]? = nil, active: Bool? = nil) {
        self.title = title
        self.weekday = weekday
        self.time = time
        self.durationMinutes = durationMinutes
        self.place = place
        self.capacity = capacity
        self.opensHoursBefore = opensHoursBefore
        self.closesMinutesBefore = closesMinutesBefore
        self.claimHours = claimHours
        self.lastMinuteHours = lastMinuteHours
        self.reminderHoursBefore = reminderHoursBefore
        self.active = active
    }
}

/// An answer as a request body carries it: a member's (`date`) or an organiser's for someone
/// (`memberId`). `guests` defaults to 0.
public struct AnswerDraft: Decodable, Equatable, Sendable {
    public var answer: String
    public var guests: Int?
    public var date: String?
    public var memberId: String?

    public init(answer: String, guests: Int? = nil, date: String? = nil, memberId: String? = nil) {
        self.answer = answer
        self.guests = guests
        self.date = date
        self.memberId = memberId
    }
}

/// `PATCH /club/api/dates/DID`: a date's own start or capacity.
public struct DatePatchDraft: Decodable, Equatable, Sendable {
    public var startsAt: Millis?
    public var capacity: Int?

    public init(startsAt: Millis? = nil, capacity: Int? = nil) {
        self.startsAt = startsAt
        self.capacity = capacity
    }
}

/// `PATCH /club/api/club` (owner only).
public struct ClubPatchDraft: Decodable, Equatable, Sendable {
    public var name: String?
    public var timeZone: String?
    public var language: String?

    public init(name: String? = nil, timeZone: String? = nil, language: String? = nil) {
        self.name = name
        self.timeZone = timeZone
        self.language = language
    }
}

/// The client's change id every `POST`/`PATCH`/`DELETE` body carries (replays are keyed on it).
public struct ChangeIdDraft: Decodable, Equatable, Sendable {
    public var id: String

    public init(id: String) { self.id = id }
}
