import CLibWebSockets
import Dispatch
import GatherDelivery

// MARK: - Sending, the source's hand-off and the once-a-second sweep (service thread only)

extension LiveConnections {
    /// Organisers' timelines count from here (`SharedFrames.init(timelineBase:)`).
    static let organiserTimelineBase = 1 << 40

    /// One write per writable turn: what the connection's machine says to write. lws's turn
    /// means the socket was just seen writable.
    func writable(_ connection: LiveConnection) -> Int32 {
        connection.bytesSinceSeenWritable = 0
        return carryOut(connection.machine.write(frames(for: connection), publishedAt: statePublishedAt), on: connection)
    }

    /// The frames a connection follows: the organisers' while it is one and they exist.
    func frames(for connection: LiveConnection) -> SharedFrames {
        connection.organiserAudience ? organiserShared ?? shared : shared
    }

    /// Carries out one write step, then asks for another turn if the machine wants one.
    private func carryOut(_ write: ConnectionMachine.Write, on connection: LiveConnection) -> Int32 {
        let wsi = connection.wsi
        switch write.step {
        case .nothing:
            return 0
        case .close(let close):
            return LWSAnswers.closeNow(wsi, close)
        case .ping:
            if lws_write(wsi, pingFrame.payload, pingFrame.count, LWS_WRITE_PING) < 0 { return -1 }
        case .frame(let frame):
            if sendText(frame, on: connection) < 0 { return -1 }
            fanOut.wrote(bytes: TextFrames.headerLength(payloadLength: frame.count) + frame.count, frames: 1,
                         wire: connection.wire)
        case .frames(let frames):
            let combined = TextFrames.concatenated(frames)
            if sendRaw(combined.payload, count: combined.count, on: connection) < 0 { return -1 }
            fanOut.wrote(bytes: combined.count, frames: frames.count, wire: connection.wire)
        }
        if write.reachesNewestVersion { fanOut.observe(publishedAt: statePublishedAt) }
        if write.wantsAnotherTurn { lws_callback_on_writable(wsi) }
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
                organiserShared?.ticks[pitch] = (tickSerial, SharedFrame(bytes))
                sharedChanged = true
            case .publishPresence(let bytes):
                presenceSerial += 1
                shared.presence = (presenceSerial, SharedFrame(bytes))
                sharedChanged = true
            case .publishOrganiserState(let frames):
                var organisers = organiserShared ?? SharedFrames(timelineBase: Self.organiserTimelineBase)
                if organiserShared == nil {
                    organisers.ticks = shared.ticks
                    organisers.presence = shared.presence
                }
                if let held = organisers.state, held.version == frames.version, held.epoch == frames.epoch {
                    organisers.refresh(SharedState(frames))
                } else if organisers.accepts(version: frames.version, epoch: frames.epoch) {
                    organisers.publish(SharedState(frames), patch: frames.v2Patch.map(SharedFrame.init))
                }
                organiserShared = organisers
                sharedChanged = true
            case .publishOrganiserPresence(let bytes):
                presenceSerial += 1
                organiserShared?.presence = (presenceSerial, SharedFrame(bytes))
                sharedChanged = true
            case .clearOrganiserView:
                organiserShared = nil
                sharedChanged = true
            case .setAudience(let id, let organiser):
                guard let connection = connections[id.rawValue], connection.organiserAudience != organiser else { continue }
                connection.organiserAudience = organiser
                if organiserShared != nil { lws_callback_on_writable(connection.wsi) }
            case .close(let id, let code, let reason):
                guard let connection = connections[id.rawValue] else { continue }
                connection.machine.closeAfterReplies(.init(code: code, reason: reason))
                lws_callback_on_writable(connection.wsi)
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
    /// `mayWriteNow` asks what lws's writable turn asks (nothing buffered in lws, the socket
    /// writable in poll's sense), so a phone that stops reading is soon written nothing more,
    /// then the newest snapshot when it reads again. A choked connection, a close or a ping waits
    /// for the turn. The machine is asked first: a close or a ping needs the turn anyway.
    private func writeToEveryConnectionNow() {
        let shared = shared
        let organisers = organiserShared ?? shared
        let publishedAt = statePublishedAt
        for connection in connections.values {
            let shared = connection.organiserAudience ? organisers : shared
            switch connection.machine.fanOutDemand(shared) {
            case .nothing:
                continue
            case .turn:
                lws_callback_on_writable(connection.wsi)
                continue
            case .frames:
                guard mayWriteNow(connection) else {
                    lws_callback_on_writable(connection.wsi)
                    continue
                }
            }
            // Outside a callback a failure cannot be answered with -1: lws closes it on its next turn.
            if carryOut(connection.machine.write(shared, publishedAt: publishedAt), on: connection) < 0 {
                lws_set_timeout(connection.wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
            }
        }
    }

    /// One pass over every connection (10,000 of them take well under a millisecond), instead of
    /// one lws timer each: lws 4.1 keeps its timers in a single sorted list.
    func upkeep(now: UInt64) {
        let stallLimit = UInt64(configuration.stalledTimeoutSeconds) * 1_000_000_000
        for connection in connections.values {
            switch connection.machine.upkeep(now: now, shared: frames(for: connection), stallLimit: stallLimit) {
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
