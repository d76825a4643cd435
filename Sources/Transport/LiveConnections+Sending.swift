import CLibWebSockets
import Dispatch
import GatherDelivery

// MARK: - Sending, the source's hand-off and the once-a-second sweep (service thread only)

extension LiveConnections {
    /// One `lws_write` per writable turn: what the connection's machine says to write.
    func writable(_ connection: LiveConnection) -> Int32 {
        let shared = shared
        let versionBefore = connection.machine.outbox.sentVersion
        return write(connection.machine.writable(shared), on: connection, from: versionBefore, shared: shared)
    }

    /// Carries out one write step; `versionBefore`: the version the connection held before it.
    /// `shared` is the caller's copy of `self.shared`: taken once for a whole pass, not once per
    /// connection (retain and release were 8% of a relay's CPU).
    private func write(_ step: ConnectionMachine.WriteStep, on connection: LiveConnection, from versionBefore: Int,
                       shared: SharedFrames) -> Int32 {
        let wsi = connection.wsi
        switch step {
        case .nothing:
            return 0
        case .close(let close):
            return LWSAnswers.closeNow(wsi, close)
        case .ping:
            if lws_write(wsi, pingFrame.payload, pingFrame.count, LWS_WRITE_PING) < 0 { return -1 }
        case .frames(let frames) where frames.count == 1:
            let frame = frames[0]
            if lws_write(wsi, frame.payload, frame.count, LWS_WRITE_TEXT) < 0 { return -1 }
            fanOut.wrote(bytes: TextFrames.headerLength(payloadLength: frame.count) + frame.count, frames: 1,
                         wire: connection.machine.wire)
        case .frames(let frames):
            // LWS_WRITE_HTTP is lws's raw write: the bytes carry their own frame headers.
            let combined = TextFrames.concatenated(frames)
            if lws_write(wsi, combined.payload, combined.count, LWS_WRITE_HTTP) < 0 { return -1 }
            fanOut.wrote(bytes: combined.count, frames: frames.count, wire: connection.machine.wire)
        }
        // The write that brought this phone to the newest version; one that joined after the
        // publish is catching up, not part of the fan-out.
        if let version = shared.state?.version, versionBefore < version, connection.machine.outbox.sentVersion == version,
           connection.machine.openedAt < statePublishedAt {
            fanOut.observe(publishedAt: statePublishedAt)
        }
        if connection.machine.wantsAnotherTurn(shared) { lws_callback_on_writable(wsi) }
        return 0
    }

    /// Applies what the source queued, in order, then wakes every connection that has news.
    /// `stopping`: a shutdown was asked for; every connection is told 1001.
    func apply(_ deliveries: [(delivery: Delivery, at: UInt64)], stopping: Bool) {
        var sharedChanged = false
        for (delivery, handedOverAt) in deliveries {
            switch delivery {
            case .greet(let id, let bytes):
                guard let connection = connections[id.rawValue] else { continue }
                connection.machine.greet(SharedFrame(bytes), shared: shared)
                lws_callback_on_writable(connection.wsi)
            case .send(let id, let bytes):
                guard let connection = connections[id.rawValue] else { continue }
                connection.machine.reply(SharedFrame(bytes))
                lws_callback_on_writable(connection.wsi)
            case .publishState(let frames):
                guard shared.accepts(version: frames.version, epoch: frames.epoch) else { continue }
                shared.publish(SharedState(frames), patch: frames.v2Patch.map(SharedFrame.init))
                statePublishedAt = handedOverAt
                sharedChanged = true
            case .publishTick(let pitch, let bytes):
                tickSerial += 1
                shared.ticks[pitch] = (tickSerial, SharedFrame(bytes))
                sharedChanged = true
            case .publishPresence(let bytes):
                presenceSerial += 1
                shared.presence = (presenceSerial, SharedFrame(bytes))
                sharedChanged = true
            case .handled(let id):
                guard let connection = connections[id.rawValue] else { continue }
                if connection.machine.handled(limits: configuration.messageLimits) { lws_rx_flow_control(connection.wsi, 1) }
            }
        }
        if stopping, !draining {
            draining = true
            for connection in connections.values {
                connection.machine.close(.init(code: CloseCode.goingAway, reason: "the server is shutting down"))
            }
            sharedChanged = true
        }
        if sharedChanged { writeToEveryConnectionNow() }
        fanOut.publish(to: metrics)
    }

    /// What was just published goes out now, written from here, to every connection that can
    /// take it, instead of after a writable turn per connection: that turn cost two `epoll_ctl`
    /// calls and a wake-up per connection per message (18% of a relay's CPU under `perf`).
    /// `lws_send_pipe_choked` (one `poll` of the socket, nothing buffered in lws) is the very test
    /// lws's writable turn passes, so a phone that stops reading is written to exactly as before:
    /// nothing once its socket stops being writable, then the newest snapshot when it reads
    /// again. A choked connection, a close or a ping waits for the turn.
    private func writeToEveryConnectionNow() {
        let shared = shared
        for connection in connections.values where connection.machine.wantsAnotherTurn(shared) {
            // The machine first: a close or a ping needs the turn anyway, without a `poll`.
            guard connection.machine.waitsForFramesOnly, lws_send_pipe_choked(connection.wsi) == 0 else {
                lws_callback_on_writable(connection.wsi)
                continue
            }
            let versionBefore = connection.machine.outbox.sentVersion
            // Outside a callback a failure cannot be answered with -1: lws closes it on its next turn.
            if write(connection.machine.writable(shared), on: connection, from: versionBefore, shared: shared) < 0 {
                lws_set_timeout(connection.wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
            }
        }
    }

    /// One pass over every connection (10,000 of them take well under a millisecond), instead of
    /// one lws timer each: lws 4.1 keeps its timers in a single sorted list.
    func upkeep(now: UInt64) {
        let stallLimit = UInt64(configuration.stalledTimeoutSeconds) * 1_000_000_000
        for connection in connections.values {
            switch connection.machine.upkeep(now: now, shared: shared, stallLimit: stallLimit) {
            case .none:
                break
            case .ping:
                lws_callback_on_writable(connection.wsi)
            case .dropStalled:
                refusals.note("connections closed for not reading", address: connection.machine.remoteAddress,
                              "closing a connection that stopped reading",
                              metadata: ["connection.id": "\(connection.id.rawValue)",
                                         "connection.stalled_s": "\(configuration.stalledTimeoutSeconds)"])
                lws_set_timeout(connection.wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
            case .dropSilent:
                refusals.note("connections closed for silence", address: connection.machine.remoteAddress,
                              "closing a connection that did not answer a ping",
                              metadata: ["connection.id": "\(connection.id.rawValue)"])
                lws_set_timeout(connection.wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
            }
        }
        fanOut.publish(to: metrics)
    }
}
