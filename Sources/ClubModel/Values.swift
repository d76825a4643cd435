import Foundation

/// UTC milliseconds since 1970: every instant the club stores or compares. The rules never read a
/// clock; each takes `now` in these units so the test clock and the database agree.
public typealias Millis = Int64

/// A player of the club. Members have no account (a personal link stands for them), so this is all
/// the club knows of them.
public struct Member: Equatable, Hashable, Sendable {
    public var id: String
    /// 1–40 characters, trimmed, no control characters; unique in the club ignoring case.
    public var name: String
    public var email: String?
    /// One of `Language.allCases`' raw values, or nil for the club's default.
    public var language: String?
    /// An inactive member can still answer but is not reminded nor listed as not answered.
    public var active: Bool

    public init(id: String, name: String, email: String? = nil, language: String? = nil, active: Bool = true) {
        self.id = id
        self.name = name
        self.email = email
        self.language = language
        self.active = active
    }
}

/// A wall-clock time in the club's time zone ("10:00" stays 10:00 across daylight saving).
public struct LocalTime: Equatable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public var hour: Int
    public var minute: Int

    public init(hour: Int, minute: Int) {
        self.hour = hour
        self.minute = minute
    }

    /// Parses exactly `HH:MM` (two digits each, 00:00–23:59); nil for anything else, so a
    /// sloppy "9:5" or "24:00" is refused rather than guessed.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 5, bytes[2] == UInt8(ascii: ":") else { return nil }
        let digits = [bytes[0], bytes[1], bytes[3], bytes[4]]
        guard digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        let values = digits.map { Int($0 - UInt8(ascii: "0")) }
        let hour = values[0] * 10 + values[1]
        let minute = values[2] * 10 + values[3]
        guard hour < 24, minute < 60 else { return nil }
        self.init(hour: hour, minute: minute)
    }

    /// `HH:MM`, zero-padded: the wire form.
    public var description: String {
        let h = hour < 10 ? "0\(hour)" : "\(hour)"
        let m = minute < 10 ? "0\(minute)" : "\(minute)"
        return "\(h):\(m)"
    }

    public static func < (lhs: LocalTime, rhs: LocalTime) -> Bool {
        (lhs.hour, lhs.minute) < (rhs.hour, rhs.minute)
    }
}

/// A weekly match: the template from which the club's dates (occurrences) are made.
/// Ranges and defaults are the contract's ("Members, fixtures and dates"); `FixtureInput`
/// checks them.
public struct Fixture: Equatable, Hashable, Sendable {
    public var id: String
    /// 1–60 characters.
    public var title: String
    /// 1 = Monday … 7 = Sunday (ISO 8601, not Foundation's 1 = Sunday).
    public var weekday: Int
    public var time: LocalTime
    /// 10–240.
    public var durationMinutes: Int
    /// 0–80 characters.
    public var place: String
    /// 2–60 seats.
    public var capacity: Int
    /// 1–336, default 144 (six days).
    public var opensHoursBefore: Int
    /// 0–1440, default 60.
    public var closesMinutesBefore: Int
    /// 1–72, default 12: how long an offer waits for a claim.
    public var claimHours: Int
    /// 0–48, default 3: from `startsAt − lastMinuteHours` a freed place is given, not offered.
    public var lastMinuteHours: Int
    /// Up to 3 values, each 1–336, default [48, 4].
    public var reminderHoursBefore: [Int]
    /// `false` pauses the fixture: its dates not yet started are cancelled.
    public var active: Bool

    public static let defaultOpensHoursBefore = 144
    public static let defaultClosesMinutesBefore = 60
    public static let defaultClaimHours = 12
    public static let defaultLastMinuteHours = 3
    public static let defaultReminderHoursBefore = [48, 4]

    public init(id: String, title: String, weekday: Int, time: LocalTime, durationMinutes: Int, place: String,
                capacity: Int, opensHoursBefore: Int = Fixture.defaultOpensHoursBefore,
                closesMinutesBefore: Int = Fixture.defaultClosesMinutesBefore,
                claimHours: Int = Fixture.defaultClaimHours, lastMinuteHours: Int = Fixture.defaultLastMinuteHours,
                reminderHoursBefore: [Int] = Fixture.defaultReminderHoursBefore, active: Bool = true) {
        self.id = id
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

/// A date's life: answered while `scheduled`; `cancelled` and `played` refuse every change (`closed`).
public enum DateStatus: String, CaseIterable, Hashable, Sendable {
    case scheduled, cancelled, played
}

/// One occurrence of a fixture. The waitlist rules need only this and the date's answers, so the
/// claim and last-hour windows (`claimHours`, `lastMinuteHours`) are copied from the fixture onto
/// the date when it is made or moved (fields added to the brief's list for that reason).
public struct ClubDate: Equatable, Hashable, Sendable {
    public var id: String
    public var fixtureId: String
    /// The natural key with `fixtureId`: the local date ("YYYY-MM-DD", club time zone) of the
    /// occurrence in the fixture's schedule. It does not change when the date is moved on its own,
    /// so the store can upsert the window's occurrences without duplicates.
    public var occurrence: String
    public var startsAt: Millis
    public var opensAt: Millis
    public var closesAt: Millis
    public var durationMinutes: Int
    public var capacity: Int
    public var claimHours: Int
    public var lastMinuteHours: Int
    public var status: DateStatus
    /// PATCHed on its own (start or capacity): a later fixture change skips it (Precision 14).
    public var changedAlone: Bool

    public init(id: String, fixtureId: String, occurrence: String, startsAt: Millis, opensAt: Millis,
                closesAt: Millis, durationMinutes: Int, capacity: Int,
                claimHours: Int = Fixture.defaultClaimHours, lastMinuteHours: Int = Fixture.defaultLastMinuteHours,
                status: DateStatus = .scheduled, changedAlone: Bool = false) {
        self.id = id
        self.fixtureId = fixtureId
        self.occurrence = occurrence
        self.startsAt = startsAt
        self.opensAt = opensAt
        self.closesAt = closesAt
        self.durationMinutes = durationMinutes
        self.capacity = capacity
        self.claimHours = claimHours
        self.lastMinuteHours = lastMinuteHours
        self.status = status
        self.changedAlone = changedAlone
    }

    /// When the match is over: the date is listed and organisers may answer until then.
    public var endsAt: Millis { startsAt + Millis(durationMinutes) * 60_000 }

    /// Precision 8: the last hours begin at `min(startsAt − lastMinuteHours, closesAt)`.
    public var lastHoursFrom: Millis { min(startsAt - Millis(lastMinuteHours) * 3_600_000, closesAt) }
}
