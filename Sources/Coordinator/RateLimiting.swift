/// Commands per connection: bursts up to `capacity`, refilled at `ratePerSecond`.
struct TokenBucket: Equatable {
    let capacity: Double
    let ratePerSecond: Double
    private(set) var tokens: Double
    private(set) var updatedAt: Int64

    init(capacity: Double, ratePerSecond: Double, now: Int64) {
        self.capacity = capacity
        self.ratePerSecond = ratePerSecond
        tokens = capacity
        updatedAt = now
    }

    /// Takes one token if there is one.
    mutating func take(now: Int64) -> Bool {
        if now > updatedAt {
            tokens = min(capacity, tokens + Double(now - updatedAt) / 1000 * ratePerSecond)
            updatedAt = now
        }
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}

/// Failed `login`/`register` attempts per key (a username or an address): after `allowed`
/// failures within `windowMs`, the key is locked for `lockoutMs`, the right password included.
struct FailureLimiter {
    let allowed: Int
    let windowMs: Int64
    let lockoutMs: Int64
    /// Bounded: keys whose failures and lock-outs have all expired are dropped when it grows.
    private var failures: [String: [Int64]] = [:]
    private var lockedUntil: [String: Int64] = [:]
    private let pruneThreshold = 10_000

    init(allowed: Int, windowMs: Int64, lockoutMs: Int64) {
        self.allowed = allowed
        self.windowMs = windowMs
        self.lockoutMs = lockoutMs
    }

    func isLocked(_ key: String, now: Int64) -> Bool {
        guard let until = lockedUntil[key] else { return false }
        return now < until
    }

    mutating func recordFailure(_ key: String, now: Int64) {
        var recent = (failures[key] ?? []).filter { now - $0 < windowMs }
        recent.append(now)
        if recent.count >= allowed {
            lockedUntil[key] = now + lockoutMs
            recent.removeAll()
        }
        failures[key] = recent
        if failures.count + lockedUntil.count > pruneThreshold { prune(now: now) }
    }

    private mutating func prune(now: Int64) {
        failures = failures.filter { _, times in times.contains { now - $0 < windowMs } }
        lockedUntil = lockedUntil.filter { _, until in until > now }
    }
}
