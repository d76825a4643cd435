import GatherDelivery

/// Who may try a password now, and whose KDF runs next: the attempt limits (per address, and per
/// username from an address) and the bounded queue of password checks (`PasswordChecks`), as one
/// value the accounts scope keeps. It decides; `AccountsCore` words the answers.
struct SignInGate {
    var attempts: AttemptLimiter
    var checks = PasswordChecks()
    /// Addresses that signed in, until when they are *trusted* (`PasswordChecks.spareForTrusted`).
    /// Only a right password adds one, so strangers cannot grow it; expired ones are dropped as
    /// it grows.
    private var trustedUntil: [String: Int64] = [:]
    static let trustMs: Int64 = 3_600_000

    init(attempts: AttemptLimiter) {
        self.attempts = attempts
    }

    /// The keys an attempt counts under: the address, and the username from that address (never
    /// the username alone: a stranger who knows a name must not lock its owner out from another
    /// phone).
    static func keys(address: String, username: String?) -> [String] {
        var keys = ["address:" + address]
        if let username, !username.isEmpty, username.utf8.count <= 128 {
            keys.append("user:" + username.lowercased() + "@" + address)
        }
        return keys
    }

    /// Admits an attempt and counts it at once under `keys`, or says why not: while a key is
    /// locked, while the connection's last attempt is still being checked, or while the password
    /// checks have no place for it — that last refusal counts as a failed attempt of the address,
    /// so a flood locks itself out.
    mutating func refusal(keys: [String], address: String, awaitingPassword: Bool, now: Int64) -> String? {
        if keys.contains(where: { attempts.refuses($0, now: now) }) {
            return "Too many failed attempts; wait a minute and try again."
        }
        if awaitingPassword { return "Still checking your last attempt; wait a moment." }
        if let full = checks.refusal(address: address, isClean: { isClean($0, now: now) }, isTrusted: trust(now: now)) {
            attempts.admit(keys[0], now: now)
            attempts.failed(keys[0], now: now)
            return switch full {
            case .busy: "The server is busy checking passwords; try again in a moment."
            case .addressWaiting: "A password check from your address is already waiting; try again in a moment."
            }
        }
        for key in keys { attempts.admit(key, now: now) }
        return nil
    }

    /// The attempt was counted when it was admitted; a failure may now lock its keys.
    mutating func failed(_ keys: [String], now: Int64) {
        for key in keys { attempts.failed(key, now: now) }
    }

    /// A success is taken back: it is not an attempt against the limit. Its address is trusted
    /// for the next hour.
    mutating func succeeded(_ keys: [String], now: Int64) {
        for key in keys { attempts.succeeded(key) }
        guard let addressKey = keys.first else { return }
        if trustedUntil.count >= 1_024 { trustedUntil = trustedUntil.filter { $0.value > now } }
        trustedUntil[addressKey] = now + Self.trustMs
    }

    /// A KDF run for `address`: started now, queued, or (never after `refusal` said yes) refused.
    mutating func request(_ work: Effect, address: String, now: Int64) -> PasswordChecks.Admission {
        var continuation = false
        if case .hashPassword(let job) = work, job.purpose == .changePassword { continuation = true }
        let clean = cleanliness(now: now)
        return checks.admit(work, address: address, continuation: continuation, isClean: clean, isTrusted: trust(now: now))
    }

    /// The check of `client` finished: the next to start, if any, and the waiting checks of
    /// addresses locked out since they were queued, dropped unchecked (a crowd's sixteen waiting
    /// guesses, each refused from then on anyway, kept a core on scrypt for seconds; their
    /// attempts stay counted).
    mutating func finished(_ client: ConnectionID?, stillConnected: (ConnectionID) -> Bool,
                           now: Int64) -> (next: Effect?, dropped: [Effect]) {
        let dropped = checks.removeWaiting { [attempts] in attempts.isLocked(Self.keys(address: $0, username: nil)[0], now: now) }
        let clean = cleanliness(now: now)
        return (checks.finished(client, stillConnected: stillConnected, isClean: clean, isTrusted: trust(now: now)), dropped)
    }

    /// Checks of addresses locked out since they were admitted, as soon as the lock falls: the
    /// waiting ones dropped unchecked, the running logins and registrations abandoned (their
    /// places freed, `PasswordChecks.abandon`), and the checks that start in those places. Without
    /// it a crowd's first checks, lowered, held both places for seconds while a new phone's
    /// clean login waited behind them.
    mutating func settleLockedOut(stillConnected: (ConnectionID) -> Bool,
                                  now: Int64) -> (abandoned: [Effect], dropped: [Effect], started: [Effect]) {
        let lockedOut: (String) -> Bool = { [attempts] in attempts.isLocked(Self.keys(address: $0, username: nil)[0], now: now) }
        let dropped = checks.removeWaiting(of: lockedOut)
        let (abandoned, started) = checks.abandon(lockedOut: lockedOut, stillConnected: stillConnected,
                                                  isClean: cleanliness(now: now), isTrusted: trust(now: now))
        return (abandoned, dropped, started)
    }

    /// Running checks of addresses that failed since they started: the shell lowers their KDF.
    mutating func checksToLower(now: Int64) -> [ConnectionID] {
        checks.lowering(isClean: cleanliness(now: now))
    }

    /// An address is clean while none of its attempts failed within the window.
    func isClean(_ address: String, now: Int64) -> Bool {
        cleanliness(now: now)(address)
    }

    /// Whether `address` signed in within the hour, over a copy, for the checks to ask.
    private func trust(now: Int64) -> (String) -> Bool {
        { [trustedUntil] address in (trustedUntil[Self.keys(address: address, username: nil)[0]] ?? 0) > now }
    }

    /// `isClean` over a copy of the attempts, for the checks to ask while they change.
    private func cleanliness(now: Int64) -> (String) -> Bool {
        { [attempts] address in !attempts.failedRecently(Self.keys(address: address, username: nil)[0], now: now) }
    }

    /// The password checks' gauges, for `/metrics`.
    func tallied(into tally: inout DecisionTally) {
        tally.passwordChecksPeak = checks.peak
        tally.passwordChecksRunning = checks.running
        tally.passwordChecksWaiting = checks.queue.count
    }
}
