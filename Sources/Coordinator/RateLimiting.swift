import GatherDelivery

// `TokenBucket` lives in GatherDelivery: the Transport takes its tokens from the same type.

/// `login`/`register` attempts per key (an address, or a username from an address), counted
/// the moment an attempt is admitted — so attempts sent in parallel, or on connections closed
/// before their answer, count all the same — and taken back when one succeeds. With `allowed`
/// attempts standing within `windowMs`, the key refuses more; once that many have failed it is
/// locked for `lockoutMs`, the right password included.
struct AttemptLimiter {
    let allowed: Int
    let windowMs: Int64
    let lockoutMs: Int64
    /// Bounded: keys whose attempts and lock-outs have all expired are dropped when it grows.
    private var attempts: [String: [Int64]] = [:]
    private var lockedUntil: [String: Int64] = [:]
    private var lastFailure: [String: Int64] = [:]
    private let pruneThreshold = 10_000

    init(allowed: Int, windowMs: Int64, lockoutMs: Int64) {
        self.allowed = allowed
        self.windowMs = windowMs
        self.lockoutMs = lockoutMs
    }

    func refuses(_ key: String, now: Int64) -> Bool {
        if let until = lockedUntil[key], now < until { return true }
        return standing(key, now: now) >= allowed
    }

    mutating func admit(_ key: String, now: Int64) {
        attempts[key, default: []].append(now)
        if attempts.count + lockedUntil.count + lastFailure.count > pruneThreshold { prune(now: now) }
    }

    mutating func failed(_ key: String, now: Int64) {
        lastFailure[key] = now
        if standing(key, now: now) >= allowed { lockedUntil[key] = now + lockoutMs }
    }

    /// Whether `key` is locked out now (a failure with the limit standing), not merely full.
    func isLocked(_ key: String, now: Int64) -> Bool {
        lockedUntil[key].map { now < $0 } ?? false
    }

    /// Whether `key` failed within the window: such keys wait behind those that did not.
    func failedRecently(_ key: String, now: Int64) -> Bool {
        guard let at = lastFailure[key] else { return false }
        return now - at < windowMs
    }

    /// A success is not an attempt against the limit: it is taken back.
    mutating func succeeded(_ key: String) {
        guard var times = attempts[key], !times.isEmpty else { return }
        times.removeLast()
        attempts[key] = times.isEmpty ? nil : times
    }

    private func standing(_ key: String, now: Int64) -> Int {
        (attempts[key] ?? []).filter { now - $0 < windowMs }.count
    }

    private mutating func prune(now: Int64) {
        attempts = attempts.compactMapValues { times in
            let recent = times.filter { now - $0 < windowMs }
            return recent.isEmpty ? nil : recent
        }
        lockedUntil = lockedUntil.filter { _, until in until > now }
        lastFailure = lastFailure.filter { _, at in now - at < windowMs }
    }
}
