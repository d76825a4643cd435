import CLibWebSockets
import Dispatch

// MARK: - Once a second on the service thread: keep-alive pings and stalled readers

extension ServiceLoop {
    /// One pass over every connection (10,000 of them take well under a millisecond), instead of
    /// one lws timer each: lws 4.1 keeps its timers in a single sorted list.
    func upkeep(now: UInt64) {
        closeHeaderTrickles(now: now)
        for summary in logThrottle.summaries(now: now) { logger.notice("\(summary.line)") }
        let stallLimit = UInt64(configuration.stalledTimeoutSeconds) * 1_000_000_000
        for connection in connections.values {
            if stalled(connection, now: now, limit: stallLimit) {
                noteRefusal("connections closed for not reading", address: connection.remoteAddress,
                            "closing a connection that stopped reading",
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
                noteRefusal("connections closed for silence", address: connection.remoteAddress,
                            "closing a connection that did not answer a ping",
                            metadata: ["connection.id": "\(connection.id.rawValue)"])
                lws_set_timeout(connection.wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
            }
        }
    }

    /// Request headers (and, on the TLS port, the TLS handshake before them) must all arrive
    /// within this long of the accept: a trickle of header bytes does not hold a connection.
    static let headerNanoseconds: UInt64 = 5_000_000_000

    /// lws's own header timeout holds on the plain door; on the TLS port a header trickle stayed
    /// 20 s, so every not-yet-requested connection is swept here.
    private func closeHeaderTrickles(now: UInt64) {
        for (wsi, since) in awaitingHeaders where now > since && now - since >= Self.headerNanoseconds {
            awaitingHeaders[wsi] = nil
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
        }
        // Stale budgets of addresses gone quiet, so the table stays small.
        if addressBudgets.count > 10_000 {
            let millis = Int64(now / 1_000_000)
            addressBudgets = addressBudgets.filter { connectionsByAddress[$0.key] != nil || !$0.value.isFull(now: millis) }
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
