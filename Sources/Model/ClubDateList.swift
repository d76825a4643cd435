import Foundation

/// One club date's list as the club publishes it on its stream and the venue keeps it
/// (docs/PROTOCOL.md §21): who is confirmed, waiting and offered, by the club's member ids.
/// The club makes it; the venue reads it only from verified bytes (`decode`), so every field is
/// bounded here, once, for both sides.
public struct ClubDateList: Equatable, Sendable, Codable {
    /// One member's line: `position` only in `waiting`, `offerExpiresAt` only in `offered`.
    public struct Entry: Equatable, Sendable, Codable {
        public var memberId: String
        public var name: String
        public var guests: Int
        public var position: Int?
        public var offerExpiresAt: Int64?

        public init(memberId: String, name: String, guests: Int, position: Int? = nil, offerExpiresAt: Int64? = nil) {
            self.memberId = memberId
            self.name = name
            self.guests = guests
            self.position = position
            self.offerExpiresAt = offerExpiresAt
        }
    }

    /// The club's limits (a date holds at most 60 seats; a club at most 500 members), with room.
    public static let maximumBytes = 131_072
    public static let maximumEntries = 500
    public static let maximumNameLength = 40
    public static let maximumGuests = 3
    /// Lists the venue holds at most (the newest dates): a year of weekly dates, so memory and
    /// every organiser's message stay bounded however long the venue runs.
    public static let maximumHeld = 52

    public var type: String = "clubDate"
    public var club: String
    public var date: String
    public var startsAt: Int64
    public var durationMinutes: Int
    public var title: String
    public var place: String
    public var status: String
    public var seq: Int64
    public var confirmed: [Entry]
    public var waiting: [Entry]
    public var offered: [Entry]

    public init(club: String, date: String, startsAt: Int64, durationMinutes: Int, title: String, place: String,
                status: String, seq: Int64, confirmed: [Entry], waiting: [Entry] = [], offered: [Entry] = []) {
        self.club = club
        self.date = date
        self.startsAt = startsAt
        self.durationMinutes = durationMinutes
        self.title = title
        self.place = place
        self.status = status
        self.seq = seq
        self.confirmed = confirmed
        self.waiting = waiting
        self.offered = offered
    }

    /// When the date's match is over: the list is no longer shown after it.
    public var endsAt: Int64 { startsAt + Int64(durationMinutes) * 60_000 }

    /// Shown (and published) while `startsAt < now + 7 days` and `now < startsAt + duration`.
    public func isInWindow(now: Int64) -> Bool {
        startsAt < now + 7 * 86_400_000 && now < endsAt
    }

    /// Seats the confirmed take (each member with their guests).
    public var confirmedPlayers: Int { confirmed.count }
    public var confirmedGuests: Int { confirmed.map(\.guests).reduce(0, +) }

    /// The bytes the club signs and publishes (keys sorted, so the same list is the same bytes).
    public func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(self))
    }

    /// Reads a list from bytes, refusing anything out of bounds (nil): too large, not the
    /// contract's shape, a name, id or count beyond the limits.
    public static func decode(_ bytes: [UInt8]) -> ClubDateList? {
        guard bytes.count <= maximumBytes,
              let list = try? JSONDecoder().decode(ClubDateList.self, from: Data(bytes)),
              list.isWellFormed
        else { return nil }
        return list
    }

    var isWellFormed: Bool {
        let entries = confirmed + waiting + offered
        return type == "clubDate" && Self.isId(club) && Self.isId(date) && seq > 0 && (10...240).contains(durationMinutes)
            && title.count <= 60 && place.count <= 80 && ["scheduled", "cancelled", "played"].contains(status)
            && entries.count <= Self.maximumEntries
            && entries.allSatisfy { Self.isId($0.memberId) && (1...Self.maximumNameLength).contains($0.name.count)
                && (0...Self.maximumGuests).contains($0.guests) }
            && Set(entries.map(\.memberId)).count == entries.count
    }

    /// 1–64 of `A-Za-z0-9-_` (the club's ids and the venue's club name both fit).
    static func isId(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                || $0 == 0x2D || $0 == 0x5F }
    }
}
