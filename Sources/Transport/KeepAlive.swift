/// When a quiet connection is pinged and when a silent one is given up. Pure, so the rules are
/// tested without sockets or sleeping.
///
/// The Transport keeps this itself instead of lws's retry policy: lws 4.1 files every
/// connection's validity timer in one sorted list, so each ping and pong cost a walk of all
/// connections.
struct KeepAlive: Equatable {
    enum Decision: Equatable {
        /// Nothing to do yet.
        case wait
        /// Send a ping now.
        case ping
        /// Nothing was heard for a whole interval after the ping: the peer is gone.
        case giveUp
    }

    /// Nanoseconds of silence before a ping, and again before giving up.
    let interval: UInt64
    private(set) var lastHeard: UInt64
    private(set) var pingSentAt: UInt64?

    init(intervalSeconds: Int, now: UInt64) {
        interval = UInt64(max(intervalSeconds, 1)) * 1_000_000_000
        lastHeard = now
    }

    /// Any frame from the peer (a message or a pong) proves it is alive.
    mutating func heard(at now: UInt64) {
        lastHeard = max(lastHeard, now)
        pingSentAt = nil
    }

    /// What the periodic sweep should do for this connection at `now`.
    func decide(now: UInt64) -> Decision {
        if let pingSentAt {
            return now >= pingSentAt && now - pingSentAt >= interval ? .giveUp : .wait
        }
        return now >= lastHeard && now - lastHeard >= interval ? .ping : .wait
    }

    mutating func pinged(at now: UInt64) {
        pingSentAt = now
    }
}
