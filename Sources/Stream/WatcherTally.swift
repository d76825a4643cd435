import GatherModel

/// The relays' spectator counts, as they report them on `gather.VENUE.watchers` every 5 s: the
/// venue's `presence.remote` is the sum over relays heard in the last 15 s. Bounded: at most
/// `maximumRelays` relays are counted, each count capped.
public struct WatcherTally: Sendable {
    public static let windowMs: Int64 = 15_000
    public static let maximumRelays = 1_000
    public static let maximumPerRelay = 1_000_000
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
        let sum = reports.values.reduce(0) { $0 + $1.spectators }
        defer { total = sum }
        return sum != total
    }
}
