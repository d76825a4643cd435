import GatherModel

/// The relays' spectator counts, as they report them on `gather.VENUE.watchers` every 5 s: the
/// venue's `presence.remote` is the sum over relays heard in the last 15 s. Anything holding relay
/// credentials may report, so a report is believed only within reason: at most `maximumRelays`
/// relays are counted (a new id beyond them waits until one is silent for the window), a report
/// above `maximumPerRelay` is refused, and the sum shown is capped at `maximumTotal`. A club runs a
/// handful of relays of at most a few tens of thousands of followers each; a forger gets at most
/// the caps, never the 100,000,000 a thousand made-up relays once gave.
public struct WatcherTally: Sendable {
    public static let windowMs: Int64 = 15_000
    public static let maximumRelays = 64
    public static let maximumPerRelay = 100_000
    public static let maximumTotal = 1_000_000
    /// A report is `{"relay": ID, "spectators": n}`: anything bigger is not read (nor copied).
    public static let maximumReportBytes = 512

    private var reports: [String: (spectators: Int, at: Int64)] = [:]
    public private(set) var total = 0

    public init() {}

    /// True when the total changed. Reports that are not `{"relay": ID, "spectators": n}` are ignored.
    public mutating func record(_ bytes: [UInt8], now: Int64) -> Bool {
        guard bytes.count <= Self.maximumReportBytes, case .success(let value) = JSONValue.parse(bytes),
              let relay = value["relay"]?.stringValue, (1...64).contains(relay.utf8.count),
              let spectators = value["spectators"]?.intValue, (0...Self.maximumPerRelay).contains(spectators)
        else { return false }
        guard reports[relay] != nil || reports.count < Self.maximumRelays else { return false }
        reports[relay] = (spectators, now)
        return recount()
    }

    /// Forgets relays not heard for `windowMs`; true when the total changed.
    public mutating func expire(now: Int64) -> Bool {
        reports = reports.filter { now - $0.value.at <= Self.windowMs }
        return recount()
    }

    private mutating func recount() -> Bool {
        let sum = min(reports.values.reduce(0) { $0 + $1.spectators }, Self.maximumTotal)
        defer { total = sum }
        return sum != total
    }
}
