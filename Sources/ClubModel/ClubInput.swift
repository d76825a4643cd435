import Foundation

/// The checks every input passes before a rule sees it. Each returns the value in the form it is
/// stored (trimmed) or throws `invalid` naming the field, so a bad input changes nothing and the
/// client learns which field to fix.
public enum ClubInput {
    /// A body larger than this is refused before it is parsed (the largest real body, a fixture,
    /// is well under 1 KiB).
    public static let maxBodyBytes = 16_384
    /// The contract's "at most 500 members": the 501st is `conflict`.
    public static let maxMembers = 500
    public static let guestRange = 0...3
    public static let memberNameLength = 1...40
    public static let clubNameLength = 1...60
    public static let emailMaxBytes = 254
    public static let clientIdLength = 1...64

    /// Decodes a JSON body into one of the drafts; any malformed or mistyped field is `invalid`
    /// with that field (the body itself when it is not an object or too large).
    public static func decode<T: Decodable>(_ type: T.Type, from body: Data) throws(Refusal) -> T {
        guard body.count <= maxBodyBytes else { throw .invalid("body", "too_large") }
        do {
            return try JSONDecoder().decode(T.self, from: body)
        } catch let DecodingError.typeMismatch(_, context) {
            throw .invalid(field(context.codingPath))
        } catch let DecodingError.valueNotFound(_, context) {
            throw .invalid(field(context.codingPath))
        } catch let DecodingError.keyNotFound(key, _) {
            throw .invalid(key.stringValue, "missing")
        } catch {
            throw .invalid("body")
        }
    }

    private static func field(_ path: [any CodingKey]) -> String {
        path.first { $0.intValue == nil }?.stringValue ?? "body"
    }

    /// A client change id or any id in a path: 1–64 of `A-Za-z0-9-_`.
    public static func clientId(_ text: String, field: String = "id") throws(Refusal) -> String {
        guard clientIdLength.contains(text.utf8.count),
              text.utf8.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
        else { throw .invalid(field) }
        return text
    }

    /// A member's name: trimmed, 1–40 characters, nothing a phone would not draw as text.
    public static func memberName(_ raw: String) throws(Refusal) -> String {
        try visibleText(raw, field: "name", length: memberNameLength)
    }

    /// The club's display name: trimmed, 1–60 characters.
    public static func clubName(_ raw: String) throws(Refusal) -> String {
        try visibleText(raw, field: "name", length: clubNameLength)
    }

    /// Whether `name` is already a member's, ignoring case, width and invisible characters
    /// (the caller holds the list; `except` is the member being renamed).
    public static func isNameTaken(_ name: String, in members: [Member], except memberId: String? = nil) -> Bool {
        let key = comparisonKey(name)
        return members.contains { $0.id != memberId && comparisonKey($0.name) == key }
    }

    /// The form two names are compared in: NFKC, case-folded, default-ignorable code points removed.
    public static func comparisonKey(_ text: String) -> String {
        let folded = text.precomposedStringWithCompatibilityMapping.folding(options: .caseInsensitive, locale: nil)
        var key = String.UnicodeScalarView()
        key.append(contentsOf: folded.unicodeScalars.lazy.filter { !$0.properties.isDefaultIgnorableCodePoint })
        return String(key)
    }

    /// An email address, loosely (the mail server is the judge): trimmed, at most 254 bytes, one
    /// `@` between non-empty parts, a dot in the domain, no spaces, controls or header syntax
    /// (a CR or LF must never reach a mail header). "" means none.
    public static func email(_ raw: String) throws(Refusal) -> String? {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty { return nil }
        let forbidden = Set("<>()[],;:\\\"".unicodeScalars)
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard text.utf8.count <= emailMaxBytes, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
              !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
              text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F && !forbidden.contains($0)
                  && !$0.properties.isWhitespace && $0.properties.generalCategory != .control })
        else { throw .invalid("email") }
        return text
    }

    /// One of the six languages' codes.
    public static func language(_ raw: String) throws(Refusal) -> String {
        guard let language = Language(rawValue: raw) else { throw .invalid("language") }
        return language.rawValue
    }

    /// 0–3 guests.
    public static func guests(_ count: Int) throws(Refusal) -> Int {
        guard guestRange.contains(count) else { throw .invalid("guests") }
        return count
    }

    /// `in` or `out`.
    public static func answerChoice(_ raw: String) throws(Refusal) -> AnswerChoice {
        guard let choice = AnswerChoice(rawValue: raw) else { throw .invalid("answer") }
        return choice
    }

    /// An IANA time zone known to this system's tzdata. Abbreviations and offsets ("CET",
    /// "GMT+1") are refused: only a region name keeps 10:00 at 10:00 across daylight saving.
    public static func timeZone(_ name: String) throws(Refusal) -> TimeZone {
        guard (1...64).contains(name.utf8.count), name.contains("/") || name == "UTC",
              name.utf8.allSatisfy({ isAlphanumeric($0) || "/_-+".utf8.contains($0) }),
              let zone = TimeZone(identifier: name) else { throw .invalid("timeZone") }
        return zone
    }

    /// A new member: a unique valid name, an optional email and language; the 501st is `conflict`.
    public static func newMember(id: String, draft: MemberDraft, existing: [Member]) throws(Refusal) -> Member {
        guard let rawName = draft.name else { throw .invalid("name", "missing") }
        let name = try memberName(rawName)
        let mail = try draft.email.map { raw throws(Refusal) in try email(raw) } ?? nil
        let lang = try draft.language.map { raw throws(Refusal) in try language(raw) }
        guard existing.count < maxMembers else { throw Refusal(.conflict, ["reason": "too_many_members"]) }
        guard !isNameTaken(name, in: existing) else { throw Refusal(.conflict, ["field": "name"]) }
        return Member(id: id, name: name, email: mail, language: lang, active: draft.active ?? true)
    }

    /// A member changed by a `PATCH`: only the fields present change; a taken name is `conflict`.
    public static func patchedMember(_ member: Member, draft: MemberDraft, existing: [Member]) throws(Refusal) -> Member {
        var changed = member
        if let rawName = draft.name {
            changed.name = try memberName(rawName)
            guard !isNameTaken(changed.name, in: existing, except: member.id) else {
                throw Refusal(.conflict, ["field": "name"])
            }
        }
        if let raw = draft.email { changed.email = try email(raw) }
        if let raw = draft.language { changed.language = try language(raw) }
        if let active = draft.active { changed.active = active }
        return changed
    }

    /// A new fixture from a draft: title, weekday, time, duration and capacity are required, the
    /// rest take the contract's defaults; every range is checked, then that it opens before it closes.
    public static func newFixture(id: String, draft: FixtureDraft) throws(Refusal) -> Fixture {
        guard let title = draft.title else { throw .invalid("title", "missing") }
        guard let weekday = draft.weekday else { throw .invalid("weekday", "missing") }
        guard let time = draft.time else { throw .invalid("time", "missing") }
        guard let duration = draft.durationMinutes else { throw .invalid("durationMinutes", "missing") }
        guard let capacity = draft.capacity else { throw .invalid("capacity", "missing") }
        guard let parsedTime = LocalTime(time) else { throw .invalid("time") }
        let base = Fixture(id: id, title: title, weekday: weekday, time: parsedTime, durationMinutes: duration,
                           place: draft.place ?? "", capacity: capacity)
        return try patchedFixture(base, draft: draft)
    }

    /// A fixture changed by a `PATCH`: the fields present replace the old ones, then the whole
    /// fixture is checked (so a change cannot leave an opening after the closing).
    public static func patchedFixture(_ fixture: Fixture, draft: FixtureDraft) throws(Refusal) -> Fixture {
        var f = fixture
        if let v = draft.title { f.title = v }
        if let v = draft.weekday { f.weekday = v }
        if let v = draft.time {
            guard let time = LocalTime(v) else { throw .invalid("time") }
            f.time = time
        }
        if let v = draft.durationMinutes { f.durationMinutes = v }
        if let v = draft.place { f.place = v }
        if let v = draft.capacity { f.capacity = v }
        if let v = draft.opensHoursBefore { f.opensHoursBefore = v }
        if let v = draft.closesMinutesBefore { f.closesMinutesBefore = v }
        if let v = draft.claimHours { f.claimHours = v }
        if let v = draft.lastMinuteHours { f.lastMinuteHours = v }
        if let v = draft.reminderHoursBefore { f.reminderHoursBefore = v }
        if let v = draft.active { f.active = v }
        return try validFixture(f)
    }

    /// Every range of "Members, fixtures and dates", and Precision 6's opening before closing.
    public static func validFixture(_ fixture: Fixture) throws(Refusal) -> Fixture {
        var f = fixture
        f.title = try visibleText(f.title, field: "title", length: 1...60)
        f.place = try visibleText(f.place, field: "place", length: 0...80)
        try check(f.weekday, 1...7, "weekday")
        try check(f.time.hour, 0...23, "time")
        try check(f.time.minute, 0...59, "time")
        try check(f.durationMinutes, 10...240, "durationMinutes")
        try check(f.capacity, 2...60, "capacity")
        try check(f.opensHoursBefore, 1...336, "opensHoursBefore")
        try check(f.closesMinutesBefore, 0...1440, "closesMinutesBefore")
        try check(f.claimHours, 1...72, "claimHours")
        try check(f.lastMinuteHours, 0...48, "lastMinuteHours")
        guard f.reminderHoursBefore.count <= 3, Set(f.reminderHoursBefore).count == f.reminderHoursBefore.count,
              f.reminderHoursBefore.allSatisfy({ (1...336).contains($0) })
        else { throw .invalid("reminderHoursBefore") }
        guard f.opensHoursBefore * 60 > f.closesMinutesBefore else {
            throw .invalid("opensHoursBefore", "not_before_closing")
        }
        return f
    }

    private static func check(_ value: Int, _ range: ClosedRange<Int>, _ field: String) throws(Refusal) {
        guard range.contains(value) else { throw .invalid(field) }
    }

    /// Trimmed text of `length` characters with no control, line-breaking or direction-overriding
    /// characters and not made only of invisible ones (a name must be seen to be told apart).
    static func visibleText(_ raw: String, field: String, length: ClosedRange<Int>) throws(Refusal) -> String {
        guard raw.utf8.count <= length.upperBound * 8 else { throw .invalid(field, "too_long") }
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard length.contains(text.count) else { throw .invalid(field, text.isEmpty ? "empty" : "too_long") }
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned:
                throw .invalid(field, "control")
            default:
                if (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value) {
                    throw .invalid(field, "control")
                }
            }
        }
        if !text.isEmpty, text.unicodeScalars.allSatisfy({ $0.properties.isDefaultIgnorableCodePoint }) {
            throw .invalid(field, "empty")
        }
        return text
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
