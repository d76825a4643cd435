import Foundation

/// A venue's name, as it appears in NATS subjects (`gather.VENUE.state`) and the stream's name
/// (`GATHER_VENUE`). Only `a-z0-9-`, so nothing a user types can add a subject token or a wildcard.
public struct VenueName: Sendable, Equatable, CustomStringConvertible {
    public let rawValue: String

    /// nil unless 1–32 characters of `a-z0-9-`.
    public init?(_ text: String) {
        guard (1...32).contains(text.utf8.count),
              text.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D })
        else { return nil }
        rawValue = text
    }

    /// The machine's host name, lower-cased, cut at the first dot and stripped of anything else,
    /// so `gather serve --nats URL` works without `--venue` on most laptops.
    public static func fromHostName(_ hostName: String = ProcessInfo.processInfo.hostName) -> VenueName? {
        let first = hostName.lowercased().split(separator: ".").first.map(String.init) ?? ""
        return VenueName(String(first.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }.prefix(32)))
    }

    public var description: String { rawValue }

    public var stateSubject: String { "gather.\(rawValue).state" }
    public var ticksSubject: String { "gather.\(rawValue).ticks" }
    public var watchersSubject: String { "gather.\(rawValue).watchers" }
    /// Each finished gather (its history entry), signed; captured by the venue's stream beside the
    /// state, never rolled up, so a club offline for weeks still reads every result.
    public var resultsSubject: String { "gather.\(rawValue).results" }
    /// The venue's own stream, as the venue server creates it.
    public var streamName: String { "GATHER_\(rawValue)" }

    public static let rule = "1–32 characters of a-z, 0-9 and '-'"
}
