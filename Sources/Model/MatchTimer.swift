/// The match countdown as data. It has no clock: every transition is given `now` (epoch ms),
/// and while running only `endsAt` is authoritative, so a restart can recompute it exactly.
public struct MatchTimer: Equatable, Sendable, Codable {
    public enum Status: String, Sendable, Codable {
        case stopped, running, paused, finished
    }

    public static let defaultDurationSeconds = 600

    public var status: Status
    public var durationSeconds: Int
    /// Remaining time when not running; while running, see `remainingMs(at:)`.
    public var remainingMs: Int
    /// Epoch ms at which a running timer reaches zero; nil otherwise.
    public var endsAt: Int64?

    public init(status: Status = .stopped, durationSeconds: Int = MatchTimer.defaultDurationSeconds,
                remainingMs: Int? = nil, endsAt: Int64? = nil) {
        self.status = status
        self.durationSeconds = durationSeconds
        self.remainingMs = remainingMs ?? durationSeconds * 1000
        self.endsAt = endsAt
    }

    public func remainingMs(at now: Int64) -> Int {
        guard status == .running, let endsAt else { return remainingMs }
        return Int(max(0, endsAt - now))
    }

    /// Time played on the clock, for goal events.
    public func playedMs(at now: Int64) -> Int { durationSeconds * 1000 - remainingMs(at: now) }

    /// `MM:SS`, rounding up so that the display reaches 00:00 only when time is really up.
    public static func format(milliseconds: Int) -> String {
        let totalSeconds = (max(0, milliseconds) + 999) / 1000
        let minutes = totalSeconds / 60
        let seconds = totalSeconds % 60
        return (minutes < 10 ? "0" : "") + String(minutes) + ":" + (seconds < 10 ? "0" : "") + String(seconds)
    }
}
