import Foundation

/// Instants and the club's wall clock, both ways, in the club's IANA time zone (tzdata through
/// Foundation's `TimeZone`). The offsets come from `TimeZone.secondsFromGMT(for:)`; the choice
/// between the two readings of a repeated hour and the gap of a skipped one (Precision 6) is made
/// here, in a few lines a test can read, rather than left to how `Calendar.date(from:)` resolves
/// them: Foundation 6.3 happens to agree (a test checks it), but that is its choice, not a promise.
public struct ClubTime: Sendable {
    public let timeZone: TimeZone

    public init(timeZone: TimeZone) {
        self.timeZone = timeZone
    }

    private func offsetSeconds(at seconds: Int64) -> Int64 {
        Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds))))
    }

    /// The instant `date` at `time` happens in the club. A local time that does not exist (the
    /// spring-forward gap) moves forward by the gap (02:30 → 03:30 in Madrid); one that occurs twice
    /// (the autumn hour) is the first.
    public func instant(of date: LocalDate, at time: LocalTime) -> Millis {
        let wall = Int64(date.daysSinceEpoch) * 86_400 + Int64(time.hour) * 3_600 + Int64(time.minute) * 60
        let offsets = Set([wall - 86_400, wall, wall + 86_400].map(offsetSeconds))
        let valid = offsets.map { wall - $0 }.filter { offsetSeconds(at: $0) == wall - $0 }.sorted()
        if let first = valid.first { return first * 1_000 }
        // In a gap: read the wall time with the offset from before the change, which lands as far
        // after the change as the wall time was after the gap's start.
        return (wall - (offsets.min() ?? 0)) * 1_000
    }

    /// The club's local day of an instant.
    public func localDate(of instant: Millis) -> LocalDate {
        LocalDate(daysSinceEpoch: Int(floorDiv(localSeconds(of: instant), 86_400)))
    }

    /// The club's wall-clock time of an instant.
    public func localTime(of instant: Millis) -> LocalTime {
        let secondOfDay = localSeconds(of: instant) - floorDiv(localSeconds(of: instant), 86_400) * 86_400
        return LocalTime(hour: Int(secondOfDay / 3_600), minute: Int(secondOfDay % 3_600 / 60))
    }

    private func localSeconds(of instant: Millis) -> Int64 {
        let seconds = floorDiv(instant, 1_000)
        return seconds + offsetSeconds(at: seconds)
    }

    private func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }
}
