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
        if attempts.count + lockedUntil.count > pruneThreshold { prune(now: now) }
    }

    mutating func failed(_ key: String, now: Int64) {
        if standing(key, now: now) >= allowed { lockedUntil[key] = now + lockoutMs }
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
    }
}

/// The slow KDF is the one thing a stranger can make the server spend seconds of CPU on, so at
/// most `running` checks run at once in the whole server and `waiting` more wait their turn;
/// beyond that an attempt is refused at once.
struct PasswordChecks: Equatable {
    static let running = 2
    static let waiting = 16

    private(set) var running = 0
    private(set) var queue: [Effect] = []
    /// The most that ever ran at once, for `/metrics`.
    private(set) var peak = 0

    var hasRoom: Bool { running < Self.running || queue.count < Self.waiting }

    /// Starts `work` now (returned) or queues it.
    mutating func request(_ work: Effect) -> Effect? {
        guard running < Self.running else {
            queue.append(work)
            return nil
        }
        running += 1
        peak = max(peak, running)
        return work
    }

    /// One check finished: the next waiting one whose client is still there starts.
    mutating func finished(stillConnected: (ConnectionID) -> Bool) -> Effect? {
        running = max(0, running - 1)
        while !queue.isEmpty {
            let next = queue.removeFirst()
            guard let client = next.passwordClient, stillConnected(client) else { continue }
            return request(next)
        }
        return nil
    }

    /// A phone that left no longer needs its queued check (its attempt still counted).
    mutating func forget(_ client: ConnectionID) {
        queue.removeAll { $0.passwordClient == client }
    }
}

extension Effect {
    /// The connection a KDF effect answers.
    public var passwordClient: ConnectionID? {
        switch self {
        case .hashPassword(let job), .verifyPassword(let job, _): job.client
        default: nil
        }
    }
}
