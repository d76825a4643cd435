import CLibWebSockets
import Dispatch

// MARK: - Once a second on the service thread: keep-alive pings and stalled readers

extension ServiceLoop {
    /// One pass over every connection (10,000 of them take well under a millisecond), instead of
    /// one lws timer each: lws 4.1 keeps its timers in a single sorted list.
    func upkeep(now: UInt64) {
        let stallLimit = UInt64(configuration.stalledTimeoutSeconds) * 1_000_000_000
        for connection in connections.values {
            if stalled(connection, now: now, limit: stallLimit) {
                logger.info("closing a connection that stopped reading",
                            metadata: ["connection.id": "\(connection.id.rawValue)",
                                       "connection.stalled_s": "\(configuration.stalledTimeoutSeconds)"])
                lws_set_timeout(connection.wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
                continue
            }
            switch connection.keepAlive.decide(now: now) {
            case .wait:
                break
            case .ping:
                connection.keepAlive.pinged(at: now)
                connection.pingDue = true
                lws_callback_on_writable(connection.wsi)
            case .giveUp:
                logger.info("closing a connection that did not answer a ping",
                            metadata: ["connection.id": "\(connection.id.rawValue)"])
                lws_set_timeout(connection.wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
            }
        }
    }

    /// A phone that stops reading is closed after `stalledTimeoutSeconds` without progress; until
    /// then it holds at most one snapshot and its bounded replies. The clock starts here, the
    /// first sweep that finds the connection with something to write, and every writable turn
    /// stops it: nothing on the broadcast path, and a socket that stays full (which never gets
    /// the writable turn) is caught. lws's own per-connection timeouts would cost O(n²) per
    /// fan-out in 4.1's single sorted timer list.
    private func stalled(_ connection: LiveConnection, now: UInt64, limit: UInt64) -> Bool {
        guard connection.closing != nil || connection.outbox.hasPending(shared) else {
            connection.waitingSince = nil
            return false
        }
        guard let since = connection.waitingSince else {
            connection.waitingSince = now
            return false
        }
        return now > since && now - since > limit
    }
}
