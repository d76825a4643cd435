/// A club's name as it appears in NATS (`club.NAME.dates.DID`, stream `CLUB_NAME`): the same rule
/// as a venue's name, so nothing typed can add a subject token or a wildcard. It names the streams
/// only; the club's display name is the API's.
public struct ClubName: Sendable, Equatable, CustomStringConvertible {
    public let rawValue: String

    /// nil unless 1–32 characters of `a-z0-9-`.
    public init?(_ text: String) {
        guard VenueName(text) != nil else { return nil }
        rawValue = text
    }

    public var description: String { rawValue }

    /// The club's stream, on the hub, and the venue's mirror of it in the leaf's domain.
    public var streamName: String { "CLUB_\(rawValue)" }
    /// Every subject the club's stream captures.
    public var subjects: String { "club.\(rawValue).>" }
    public var datesPrefix: String { "club.\(rawValue).dates." }

    public func dateSubject(_ dateId: String) -> String { datesPrefix + dateId }

    /// The date id a subject of this club's dates names; nil for any other subject.
    public func dateId(ofSubject subject: String) -> String? {
        guard subject.hasPrefix(datesPrefix) else { return nil }
        let id = String(subject.dropFirst(datesPrefix.count))
        return id.isEmpty || id.contains(".") ? nil : id
    }

    public static let rule = VenueName.rule
}
