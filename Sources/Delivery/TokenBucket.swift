/// Messages (or units of work) per key: bursts up to `capacity`, refilled at `ratePerSecond`.
/// Shared by the Transport (every message pays before it is read) and the Coordinator (its own
/// per-connection bucket, defence in depth).
public struct TokenBucket: Equatable, Sendable {
    public let capacity: Double
    public let ratePerSecond: Double
    public private(set) var tokens: Double
    public private(set) var updatedAt: Int64

    /// `now` in milliseconds, on any clock that does not go back.
    public init(capacity: Double, ratePerSecond: Double, now: Int64) {
        self.capacity = capacity
        self.ratePerSecond = ratePerSecond
        tokens = capacity
        updatedAt = now
    }

    /// Takes one token if there is one.
    public mutating func take(now: Int64) -> Bool { take(1, now: now) }

    /// Takes `cost` tokens if there are that many; nothing otherwise.
    public mutating func take(_ cost: Double, now: Int64) -> Bool {
        refill(now: now)
        guard tokens >= cost else { return false }
        tokens -= cost
        return true
    }

    /// Whether it is full again (nothing taken that the refill has not given back).
    public func isFull(now: Int64) -> Bool {
        var copy = self
        copy.refill(now: now)
        return copy.tokens >= capacity
    }

    private mutating func refill(now: Int64) {
        if now > updatedAt {
            tokens = min(capacity, tokens + Double(now - updatedAt) / 1000 * ratePerSecond)
            updatedAt = now
        }
    }
}
