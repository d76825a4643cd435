import GatherDelivery

/// The slow KDF is the one thing a stranger can make the server spend seconds of CPU on, so at
/// most `running` checks run at once in the whole server and `waiting` more wait their turn;
/// beyond that an attempt is refused at once.
///
/// Strangers cannot hog it (a guessing crowd: fifty addresses kept every place busy and the organiser was
/// refused 13 times of 13). An address has one check at a time, running or waiting: a second,
/// from another connection, is refused and counts as a failure, so the crowd's first checks lose
/// their cleanliness (and their priority) at once instead of when they end. An address is *clean* while it
/// has no recent failure (a refusal for room counts as one, see `SignInGate.refusal`);
/// clean addresses' checks start first, the last `reservedForClean` waiting places are theirs
/// alone, and a clean newcomer who finds every place taken pushes out the newest check of an
/// address that is not clean. Of the running places, `reservedRunningForClean` are never taken by
/// an address that is not clean: a crowd's sixteen waiting checks, two at a time, kept both cores
/// on scrypt for eight seconds, and the organiser's check first waited for one of them to finish,
/// then shared the cores with the other (answers in 1–6 s); now it starts at once beside at most
/// one of theirs. Cleanliness is asked again whenever it matters, since an address stops being
/// clean the moment one of its attempts fails.
///
/// A crowd's first two checks start while its fresh addresses are still clean, and hold both
/// places for seconds (the organiser's login 1 s into the attack waited 4–11 s for one of them).
/// Fresh addresses cannot be told from a new organiser's, but an address that signed in within
/// the hour (*trusted*, `SignInGate`) can: a clean, trusted address's check also starts when
/// both places are taken, in `spareForTrusted` more (at most three at once). Checks started for
/// an address that is not clean are marked (`PasswordJob.fromSuspect`) and run at a lower
/// priority than clean ones while a clean address's check runs or waits; a running check whose
/// address fails meanwhile is lowered too (`lowering`), so a crowd's first checks stop competing
/// with an organiser's. Alone, a check that is not clean keeps the usual priority: a phone that
/// mistyped once (or a test suite's many logins on one loopback address) is not left to the CPU a
/// busy laptop spares at nice 10 (the e2e suite's registration from such an address waited > 10 s).
///
/// A lowered check holds its place for as long as the CPU it gets: on a busy laptop a crowd's
/// first two checks, lowered, held both places for over 12 s while a new phone's clean login
/// waited behind them (the queue full of the crowd's doomed checks meanwhile; 4–7 s with only the
/// server and the crowd on one core). So a login or registration
/// whose address is *locked out* while its check runs is abandoned (`abandon`): it leaves its
/// place at once, its connection is answered `rate_limited` (the lock-out holds for the right
/// password too) and its result is ignored when it comes; its thread, lowered, runs on. At most
/// `abandonedLimit` such threads at once, so the KDF threads stay bounded
/// (`running + spareForTrusted + abandonedLimit`).
struct PasswordChecks {
    static let running = 2
    static let waiting = 16
    static let reservedForClean = 2
    static let reservedRunningForClean = 1
    static let spareForTrusted = 1
    static let abandonedLimit = 2

    struct Waiting: Equatable {
        var work: Effect
        var address: String
        var continuation = false
    }

    enum Refusal: Equatable {
        /// Every place a check of this kind may take is taken.
        case busy
        /// This address already has a check waiting or running.
        case addressWaiting
    }

    enum Admission: Equatable {
        /// Start this now.
        case started(Effect)
        /// Waiting; `pushedOut` lost its place to it and must be refused.
        case queued(pushedOut: Effect?)
        case refused(Refusal)
    }

    /// A check running now, in a place: whose connection, from which address, the work itself.
    struct Running {
        var client: ConnectionID?
        var address: String
        var lowered: Bool
        var work: Effect
        /// A login or registration; never a password change's runs.
        var abandonable: Bool {
            switch work {
            case .hashPassword(let job), .verifyPassword(let job, _): job.purpose != .changePassword
            default: false
            }
        }
    }

    /// The checks running now, each in a place.
    private(set) var runningChecks: [Running] = []
    var running: Int { runningChecks.count }
    /// Runs abandoned (`abandon`) whose threads have not reported yet: they hold no place.
    private(set) var abandoned: [ConnectionID?] = []
    /// In arrival order; `next` picks clean addresses first.
    private(set) var queue: [Waiting] = []
    /// The most that ever ran at once, for `/metrics`.
    private(set) var peak = 0

    /// Why a check for `address` would be refused now, or nil when `admit` would take it.
    func refusal(address: String, isClean: (String) -> Bool, isTrusted: (String) -> Bool = { _ in false }) -> Refusal? {
        switch place(for: address, isClean: isClean, isTrusted: isTrusted) {
        case .refused(let refusal): refusal
        default: nil
        }
    }

    /// Starts `work` for `address`, queues it, or says why not. A `continuation` (the second KDF
    /// run of a password change, after its first was checked) already paid for its place: it
    /// starts now or first, whatever the bounds.
    mutating func admit(_ work: Effect, address: String, continuation: Bool = false,
                        isClean: (String) -> Bool, isTrusted: (String) -> Bool = { _ in false }) -> Admission {
        if continuation {
            guard running >= Self.running else {
                return .started(start(work, address: address, clean: true, isClean: isClean))
            }
            queue.insert(Waiting(work: work, address: address, continuation: true), at: 0)
            return .queued(pushedOut: nil)
        }
        switch place(for: address, isClean: isClean, isTrusted: isTrusted) {
        case .run: return .started(start(work, address: address, clean: isClean(address), isClean: isClean))
        case .wait(let pushingOut):
            let pushedOut = pushingOut.map { queue.remove(at: $0).work }
            queue.append(Waiting(work: work, address: address))
            return .queued(pushedOut: pushedOut)
        case .refused(let refusal): return .refused(refusal)
        }
    }

    private enum Place { case run, wait(pushingOut: Int?), refused(Refusal) }

    private func place(for address: String, isClean: (String) -> Bool, isTrusted: (String) -> Bool) -> Place {
        if queue.contains(where: { $0.address == address }) || runningChecks.contains(where: { $0.address == address }) {
            return .refused(.addressWaiting)
        }
        let clean = isClean(address)
        if mayStart(clean: clean, trusted: clean && isTrusted(address), isClean: isClean) { return .run }
        let suspects = queue.indices.filter { !isClean(queue[$0].address) }
        if queue.count < Self.waiting, clean || suspects.count < Self.waiting - Self.reservedForClean {
            return .wait(pushingOut: nil)
        }
        guard clean, let newestSuspect = suspects.last else { return .refused(.busy) }
        return .wait(pushingOut: newestSuspect)
    }

    /// Whether a new check may start now: a place is free, and one that is not clean leaves the
    /// reserved running places free; a trusted one also takes the spare place.
    private func mayStart(clean: Bool, trusted: Bool = false, isClean: (String) -> Bool) -> Bool {
        if trusted { return running < Self.running + Self.spareForTrusted }
        guard running < Self.running else { return false }
        return clean || runningChecks.filter { !isClean($0.address) }.count < Self.running - Self.reservedRunningForClean
    }

    /// The check of `client` finished: the next waiting one whose client is still there starts,
    /// clean addresses first (a trusted one also in the spare place); one that is not clean only
    /// while it leaves the reserved places free and no clean one waits.
    mutating func finished(_ client: ConnectionID?, stillConnected: (ConnectionID) -> Bool,
                           isClean: (String) -> Bool, isTrusted: (String) -> Bool = { _ in false }) -> Effect? {
        if let index = abandoned.firstIndex(where: { $0 == client }) {
            // Its place was given up when it was abandoned; only its thread ends now.
            abandoned.remove(at: index)
        } else if let index = runningChecks.firstIndex(where: { $0.client == client }) ?? runningChecks.indices.first {
            runningChecks.remove(at: index)
        }
        return startNext(stillConnected: stillConnected, isClean: isClean, isTrusted: isTrusted)
    }

    /// Whether `client`'s check was abandoned and has not reported yet: its result is ignored.
    func isAbandoned(_ client: ConnectionID) -> Bool {
        abandoned.contains(client)
    }

    /// Running logins and registrations of addresses `lockedOut` names give up their places, while
    /// fewer than `abandonedLimit` abandoned threads run on; then the waiting checks start in the
    /// places freed. Returns the abandoned works (for the caller to answer and lower) and the
    /// started ones.
    mutating func abandon(lockedOut: (String) -> Bool, stillConnected: (ConnectionID) -> Bool,
                          isClean: (String) -> Bool,
                          isTrusted: (String) -> Bool = { _ in false }) -> (abandoned: [Effect], started: [Effect]) {
        var given: [Effect] = []
        while abandoned.count < Self.abandonedLimit,
              let index = runningChecks.firstIndex(where: { $0.abandonable && lockedOut($0.address) }) {
            let run = runningChecks.remove(at: index)
            abandoned.append(run.client)
            given.append(run.work)
        }
        guard !given.isEmpty else { return ([], []) }
        var started: [Effect] = []
        while let next = startNext(stillConnected: stillConnected, isClean: isClean, isTrusted: isTrusted) {
            started.append(next)
        }
        return (given, started)
    }

    /// The next waiting check whose client is still there, if a place allows it.
    private mutating func startNext(stillConnected: (ConnectionID) -> Bool, isClean: (String) -> Bool,
                                    isTrusted: (String) -> Bool) -> Effect? {
        queue.removeAll { waiting in waiting.work.passwordClient.map { !stillConnected($0) } ?? true }
        let cleanOnes = queue.indices.filter { queue[$0].continuation || isClean(queue[$0].address) }
        if !cleanOnes.isEmpty {
            // A password change's second run goes first, whatever the bounds, like a trusted one.
            guard let index = cleanOnes.first(where: {
                mayStart(clean: true, trusted: queue[$0].continuation || isTrusted(queue[$0].address), isClean: isClean)
            }) else { return nil }
            let next = queue.remove(at: index)
            return start(next.work, address: next.address, clean: true, isClean: isClean)
        }
        guard let first = queue.first, mayStart(clean: false, isClean: isClean) else { return nil }
        queue.removeFirst()
        return start(first.work, address: first.address, clean: false, isClean: isClean)
    }

    /// The running checks, started clean, whose addresses are no longer clean: marked lowered
    /// now, their connections returned for the shell to lower their KDF's priority (once each).
    mutating func lowering(isClean: (String) -> Bool) -> [ConnectionID] {
        guard aCleanCheckWantsTheCPU(isClean: isClean) else { return [] }
        var lowered: [ConnectionID] = []
        for index in runningChecks.indices where !runningChecks[index].lowered && !isClean(runningChecks[index].address) {
            runningChecks[index].lowered = true
            if let client = runningChecks[index].client { lowered.append(client) }
        }
        return lowered
    }

    /// Takes out the waiting checks (never a continuation) of addresses `dropping` names, for
    /// the caller to answer.
    mutating func removeWaiting(of dropping: (String) -> Bool) -> [Effect] {
        let dropped = queue.filter { !$0.continuation && dropping($0.address) }
        queue.removeAll { !$0.continuation && dropping($0.address) }
        return dropped.map(\.work)
    }

    /// A phone that left no longer needs its queued check (its attempt still counted).
    mutating func forget(_ client: ConnectionID) {
        queue.removeAll { $0.work.passwordClient == client }
    }

    private mutating func start(_ work: Effect, address: String, clean: Bool, isClean: (String) -> Bool) -> Effect {
        let makesWay = !clean && aCleanCheckWantsTheCPU(isClean: isClean)
        runningChecks.append(Running(client: work.passwordClient, address: address, lowered: makesWay, work: work))
        peak = max(peak, running)
        return makesWay ? work.fromSuspect : work
    }

    /// A clean address's check runs or waits: only then do the others' checks make way for it.
    private func aCleanCheckWantsTheCPU(isClean: (String) -> Bool) -> Bool {
        runningChecks.contains { isClean($0.address) } || queue.contains { $0.continuation || isClean($0.address) }
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

extension Effect {
    /// The same KDF run, marked as one for an address that is not clean (a lower priority).
    var fromSuspect: Effect {
        switch self {
        case .hashPassword(var job):
            job.fromSuspect = true
            return .hashPassword(job)
        case .verifyPassword(var job, let hash):
            job.fromSuspect = true
            return .verifyPassword(job, against: hash)
        default: return self
        }
    }

    /// The `id` of the request a KDF effect answers.
    var passwordRequestID: String? {
        switch self {
        case .hashPassword(let job), .verifyPassword(let job, _): job.requestID
        default: nil
        }
    }
}
