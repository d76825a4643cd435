import GatherDelivery

/// The slow KDF is the one thing a stranger can make the server spend seconds of CPU on, so at
/// most `running` checks run at once in the whole server and `waiting` more wait their turn;
/// beyond that an attempt is refused at once.
///
/// Strangers cannot hog it (issue 20: fifty addresses kept every slot busy and the organiser was
/// refused 13 times of 13): at most one check waits per address; checks for addresses with no
/// recent failure ("clean") wait ahead of the others; and the last `reservedForClean` waiting
/// places are theirs alone. An attacker's address is clean only until its first failure (a
/// "busy" refusal counts as one), so the reserved places stay free for the organiser.
struct PasswordChecks: Equatable {
    static let running = 2
    static let waiting = 16
    static let reservedForClean = 2

    struct Waiting: Equatable {
        var work: Effect
        var address: String
        var clean: Bool
    }

    enum Refusal: Equatable {
        /// Every place a check of this kind may take is taken.
        case busy
        /// This address already has a check waiting.
        case addressWaiting
    }

    private(set) var running = 0
    /// Clean addresses' checks first, then the others; first come, first served within each.
    private(set) var queue: [Waiting] = []
    /// The most that ever ran at once, for `/metrics`.
    private(set) var peak = 0

    /// Why a check for `address` cannot be taken now, or nil when it can.
    func refusal(address: String, clean: Bool) -> Refusal? {
        guard running >= Self.running else { return nil }
        if queue.contains(where: { $0.address == address }) { return .addressWaiting }
        let limit = clean ? Self.waiting : Self.waiting - Self.reservedForClean
        let taken = clean ? queue.count : queue.filter { !$0.clean }.count
        return taken < limit && queue.count < Self.waiting ? nil : .busy
    }

    /// Starts `work` now (returned) or queues it in its place. Call after `refusal` said yes.
    mutating func request(_ work: Effect, address: String, clean: Bool) -> Effect? {
        guard running < Self.running else {
            let waiting = Waiting(work: work, address: address, clean: clean)
            if clean, let firstSuspect = queue.firstIndex(where: { !$0.clean }) {
                queue.insert(waiting, at: firstSuspect)
            } else {
                queue.append(waiting)
            }
            return nil
        }
        return start(work)
    }

    /// One check finished: the next waiting one whose client is still there starts.
    mutating func finished(stillConnected: (ConnectionID) -> Bool) -> Effect? {
        running = max(0, running - 1)
        while !queue.isEmpty {
            let next = queue.removeFirst()
            guard let client = next.work.passwordClient, stillConnected(client) else { continue }
            return start(next.work)
        }
        return nil
    }

    /// A phone that left no longer needs its queued check (its attempt still counted).
    mutating func forget(_ client: ConnectionID) {
        queue.removeAll { $0.work.passwordClient == client }
    }

    private mutating func start(_ work: Effect) -> Effect {
        running += 1
        peak = max(peak, running)
        return work
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
