import CLibWebSockets
import Foundation
import GatherDelivery

/// Close codes of RFC 6455 that the Transport sends by itself.
enum CloseCode {
    static let goingAway: UInt16 = 1001
    static let unacceptableData: UInt16 = 1003
    static let invalidPayload: UInt16 = 1007
    static let policyViolation: UInt16 = 1008
    static let messageTooBig: UInt16 = 1009
}

// MARK: - The WebSocket at /live (service thread only)

extension ServiceLoop {
    func handleLive(_ wsi: OpaquePointer, reason: lws_callback_reasons, session: UnsafeMutableRawPointer?,
                    input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        assertOnServiceThread()
        switch reason {
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            return filterUpgrade(wsi)
        case LWS_CALLBACK_ESTABLISHED:
            guard let session else { return -1 }
            opened(wsi, session: session.assumingMemoryBound(to: UInt64.self))
        case LWS_CALLBACK_RECEIVE:
            guard let connection = connection(for: session) else { return -1 }
            connection.keepAlive.heard(at: DispatchTime.now().uptimeNanoseconds)
            return received(on: connection, input: input, length: length)
        case LWS_CALLBACK_RECEIVE_PONG:
            connection(for: session)?.keepAlive.heard(at: DispatchTime.now().uptimeNanoseconds)
        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let connection = connection(for: session) else { return 0 }
            return writable(connection)
        case LWS_CALLBACK_CLOSED:
            closed(session: session)
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            applyHandOff(context: lws_get_context(wsi))
        case LWS_CALLBACK_WSI_DESTROY:
            destroyed(wsi)
        default:
            break
        }
        return 0
    }

    private func connection(for session: UnsafeMutableRawPointer?) -> LiveConnection? {
        guard let number = session?.assumingMemoryBound(to: UInt64.self).pointee, number != 0 else { return nil }
        return connections[number]
    }

    // MARK: Handshake

    /// Last look before the 101: right path, same-origin browsers only, room for one more.
    private func filterUpgrade(_ wsi: OpaquePointer) -> Int32 {
        let path = HTTPHeaders.value(wsi, WSI_TOKEN_GET_URI) ?? ""
        guard path == "/live" else {
            return refuseUpgrade(wsi, status: 404, reason: "Not Found", detail: "the live endpoint is /live")
        }
        let origin = HTTPHeaders.value(wsi, WSI_TOKEN_ORIGIN)
        guard HandshakeRules.originAllowed(origin: origin, host: HTTPHeaders.value(wsi, WSI_TOKEN_HOST),
                                           door: door(of: wsi)) else {
            noteRefusal("refused handshakes", address: Self.peerAddress(wsi), "refused a WebSocket from a foreign origin",
                        metadata: ["http.origin": "\(LogText.escaped(origin ?? ""))"])
            return refuseUpgrade(wsi, status: 403, reason: "Forbidden", detail: "this page is not served by this server")
        }
        guard !draining, connections.count < configuration.maximumConnections else {
            noteRefusal("refused handshakes", address: "the whole server", "refused a WebSocket: connection limit reached",
                        metadata: ["transport.connections": "\(connections.count)"])
            return refuseUpgrade(wsi, status: 503, reason: "Service Unavailable", detail: "the server is full")
        }
        let address = Self.peerAddress(wsi)
        guard connectionsByAddress[address, default: 0] < configuration.maximumConnectionsPerAddress else {
            noteRefusal("refused handshakes", address: address, "refused a WebSocket: too many from one address",
                        metadata: ["transport.per_address": "\(configuration.maximumConnectionsPerAddress)"])
            return refuseUpgrade(wsi, status: 429, reason: "Too Many Requests",
                                 detail: "too many connections from your address")
        }
        return 0
    }

    /// Writes a plain HTTP answer in place of the 101; returning 1 then makes lws close.
    func refuseUpgrade(_ wsi: OpaquePointer, status: Int, reason: String, detail: String) -> Int32 {
        let body = detail + "\n"
        let headers = HandshakeRules.securityHeaders(door(of: wsi)).map { "\($0.0): \($0.1)\r\n" }.joined()
        let response = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\n" + headers + "Cache-Control: no-store\r\nConnection: close\r\n\r\n" + body
        let frame = SharedFrame(Array(response.utf8))
        _ = lws_write(wsi, frame.payload, frame.count, LWS_WRITE_HTTP_HEADERS)
        return 1
    }

    private func opened(_ wsi: OpaquePointer, session: UnsafeMutablePointer<UInt64>) {
        nextConnectionNumber += 1
        let wire = lws_get_protocol(wsi).flatMap { WireProtocol(rawValue: String(cString: $0.pointee.name)) } ?? .v1
        let connection = LiveConnection(id: ConnectionID(nextConnectionNumber), wsi: wsi, wire: wire,
                                        door: door(of: wsi), remoteAddress: Self.peerAddress(wsi),
                                        replyLimit: configuration.replyQueueLimit,
                                        pingIntervalSeconds: configuration.pingIntervalSeconds,
                                        limits: configuration.messageLimits)
        session.pointee = nextConnectionNumber
        connections[nextConnectionNumber] = connection
        connectionsByAddress[connection.remoteAddress, default: 0] += 1
        setConnectionCount(connections.count)
        let remoteAddress = connection.remoteAddress
        source.connectionOpened(connection.id, remoteAddress: remoteAddress, protocol: wire, door: connection.door)
    }

    private func closed(session: UnsafeMutableRawPointer?) {
        let number = session?.assumingMemoryBound(to: UInt64.self)
        guard let number, number.pointee != 0, let connection = connections.removeValue(forKey: number.pointee) else {
            return
        }
        number.pointee = 0
        releasePartial(connection)
        let left = connectionsByAddress[connection.remoteAddress, default: 1] - 1
        connectionsByAddress[connection.remoteAddress] = left > 0 ? left : nil
        if left <= 0, addressBudgets[connection.remoteAddress]?.isFull(now: Int64(DispatchTime.now().uptimeNanoseconds / 1_000_000)) == true {
            addressBudgets[connection.remoteAddress] = nil
        }
        setConnectionCount(connections.count)
        source.connectionClosed(connection.id)
        drainedConnectionClosed()
    }

    // MARK: Receiving

    /// Reassembles one message from lws's pieces, within the size cap and the server-wide budget
    /// for partial messages, and passes on valid text.
    private func received(on connection: LiveConnection, input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        let wsi = connection.wsi
        if lws_frame_is_binary(wsi) != 0 {
            return closeNow(wsi, code: CloseCode.unacceptableData, reason: "the gather protocols speak text frames only")
        }
        if lws_is_first_fragment(wsi) != 0 { releasePartial(connection) }
        guard connection.incoming.count + length <= configuration.maximumMessageBytes else {
            releasePartial(connection)
            return closeNow(wsi, code: CloseCode.messageTooBig,
                            reason: "messages are limited to \(configuration.maximumMessageBytes / 1024) KiB")
        }
        if let input, length > 0 {
            connection.incoming.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
            partialMessageBytes += length
            if partialMessageBytes > configuration.partialMessageBudget, evictLargestPartial() === connection {
                return closeNow(wsi, code: CloseCode.messageTooBig, reason: "the server is short of room for messages")
            }
        }
        guard lws_is_final_fragment(wsi) != 0, lws_remaining_packet_payload(wsi) == 0 else { return 0 }
        defer { releasePartial(connection) }
        // The message pays before anything reads it, malformed or not.
        let now = Int64(DispatchTime.now().uptimeNanoseconds / 1_000_000)
        let limits = configuration.messageLimits
        let verdict = MessageGate.judge(connection.incoming, connection: &connection.budget,
                                        address: &addressBudgets[connection.remoteAddress, default: newAddressBudget(now)],
                                        limits: limits, now: now)
        switch verdict {
        case .pass:
            break
        case .answer(let answer):
            let bytes = GateAnswers.bytes(answer, version: shared.state?.version ?? 0)
            guard connection.outbox.enqueue(SharedFrame(bytes)) else {
                return closeNow(wsi, code: CloseCode.policyViolation, reason: "too many replies waiting")
            }
            lws_callback_on_writable(wsi)
            return 0
        case .close(let code, let reason):
            noteRefusal("connections closed for what they sent", address: connection.remoteAddress,
                        "closing a connection: \(reason)", metadata: ["connection.id": "\(connection.id.rawValue)",
                                                                     "ws.close_code": "\(code)"])
            return closeNow(wsi, code: code, reason: reason)
        }
        guard let text = String(validating: connection.incoming, as: UTF8.self) else {
            return closeNow(wsi, code: CloseCode.invalidPayload, reason: "text frames must be valid UTF-8")
        }
        if lws_is_ssl(wsi) != 0 {
            guard MessageGate.admitToBacklog(bytes: connection.incoming.count, connection: &connection.budget,
                                             limits: limits) else {
                let scan = MessageScan(connection.incoming)
                let answer = GateAnswers.bytes(.rateLimited(isCommand: scan.isCommand, id: scan.id),
                                               version: shared.state?.version ?? 0)
                guard connection.outbox.enqueue(SharedFrame(answer)) else {
                    return closeNow(wsi, code: CloseCode.policyViolation, reason: "too many replies waiting")
                }
                lws_callback_on_writable(wsi)
                return 0
            }
        } else if MessageGate.handedOver(bytes: connection.incoming.count, connection: &connection.budget,
                                         limits: limits) {
            // Far enough ahead of the source: nothing more is read until it catches up.
            lws_rx_flow_control(wsi, 0)
        }
        source.received(text, from: connection.id)
        return 0
    }

    func newAddressBudget(_ now: Int64) -> TokenBucket {
        TokenBucket(capacity: configuration.messageLimits.addressBurst,
                    ratePerSecond: configuration.messageLimits.addressPerSecond, now: now)
    }

    /// Drops a connection's partial message from the budget (a small buffer is kept for reuse).
    func releasePartial(_ connection: LiveConnection) {
        partialMessageBytes -= connection.incoming.count
        if connection.incoming.capacity > 16_384 {
            connection.incoming = []
        } else {
            connection.incoming.removeAll(keepingCapacity: true)
        }
    }

    /// Over budget, the largest partial message goes and its connection is closed with 1009:
    /// twenty thousand phones each holding 64 KiB would otherwise hold over a gigabyte.
    private func evictLargestPartial() -> LiveConnection? {
        guard let largest = connections.values.max(by: { $0.incoming.count < $1.incoming.count }) else { return nil }
        releasePartial(largest)
        noteRefusal("connections closed for what they sent", address: largest.remoteAddress,
                    "closing the connection with the largest partial message: over the server's budget",
                    metadata: ["transport.partial_budget": "\(configuration.partialMessageBudget)"])
        if largest.closing == nil {
            largest.closing = (CloseCode.messageTooBig, "the server is short of room for messages")
            lws_callback_on_writable(largest.wsi)
        }
        return largest
    }

    private func closeNow(_ wsi: OpaquePointer, code: UInt16, reason: String) -> Int32 {
        var bytes = Array(reason.utf8.prefix(120))
        lws_close_reason(wsi, lws_close_status(rawValue: UInt32(code)), &bytes, bytes.count)
        return -1
    }

    // MARK: Sending

    /// Frames written together stop being added past this size (the last one may exceed it).
    static let combinedWriteBytes = 32 * 1_024

    /// One `lws_write` per writable callback: the connection's pending frames, in outbox order.
    private func writable(_ connection: LiveConnection) -> Int32 {
        let wsi = connection.wsi
        connection.waitingSince = nil  // a writable turn is progress; `upkeep` restarts the clock
        if let closing = connection.closing {
            return closeNow(wsi, code: closing.code, reason: closing.reason)
        }
        if connection.pingDue {
            connection.pingDue = false
            if lws_write(wsi, pingFrame.payload, pingFrame.count, LWS_WRITE_PING) < 0 { return -1 }
            if connection.outbox.hasPending(shared) { lws_callback_on_writable(wsi) }
            return 0
        }
        let versionBefore = connection.outbox.sentVersion
        guard case .frame(let frame) = connection.outbox.next(shared) else { return 0 }
        // Everything else already waiting goes in the same write: a sender's ack behind its
        // snapshot, a tick behind a stream of snapshots. One frame per turn made the ack wait a
        // whole fan-out turn and let busy presses starve ticks for hundreds of milliseconds.
        var frames = [frame]
        var bytes = frame.count
        while bytes < Self.combinedWriteBytes, case .frame(let more) = connection.outbox.next(shared) {
            frames.append(more)
            bytes += more.count
        }
        if frames.count == 1 {
            if lws_write(wsi, frame.payload, frame.count, LWS_WRITE_TEXT) < 0 { return -1 }
            fanOut.wrote(bytes: TextFrames.headerLength(payloadLength: frame.count) + frame.count, frames: 1,
                         wire: connection.wire)
        } else {
            // LWS_WRITE_HTTP is lws's raw write: the bytes carry their own frame headers.
            let combined = TextFrames.concatenated(frames)
            if lws_write(wsi, combined.payload, combined.count, LWS_WRITE_HTTP) < 0 { return -1 }
            fanOut.wrote(bytes: combined.count, frames: frames.count, wire: connection.wire)
        }
        // The write that brought this phone to the newest version; one that joined after the
        // publish is catching up, not part of the fan-out.
        if let version = shared.state?.version, versionBefore < version, connection.outbox.sentVersion == version,
           connection.openedAt < statePublishedAt {
            fanOut.observe(publishedAt: statePublishedAt)
        }
        if connection.outbox.hasPending(shared) || connection.closing != nil { lws_callback_on_writable(wsi) }
        return 0
    }

    // MARK: Hand-off from the Coordinator

    /// Applies what other threads queued, in order, then wakes every connection that has news.
    private func applyHandOff(context: OpaquePointer?) {
        let (deliveries, stopping) = takeHandOff()
        var sharedChanged = false
        for (delivery, handedOverAt) in deliveries {
            switch delivery {
            case .greet(let id, let bytes):
                guard let connection = connections[id.rawValue] else { continue }
                connection.outbox.greet(SharedFrame(bytes), shared: shared)
                lws_callback_on_writable(connection.wsi)
            case .send(let id, let bytes):
                guard let connection = connections[id.rawValue] else { continue }
                if !connection.outbox.enqueue(SharedFrame(bytes)) {
                    connection.closing = (CloseCode.policyViolation, "too many replies waiting")
                }
                lws_callback_on_writable(connection.wsi)
            case .publishState(let frames):
                // Within an epoch a version never goes back; a new epoch (the source decided it is
                // later) replaces the state whatever its versions.
                guard frames.epoch != shared.state?.epoch || frames.version > shared.state?.version ?? Int.min else { continue }
                shared.publish(SharedState(version: frames.version, v1Snapshot: SharedFrame(frames.v1Snapshot),
                                           v2Snapshot: SharedFrame(frames.v2Snapshot), epoch: frames.epoch),
                               patch: frames.v2Patch.map(SharedFrame.init))
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
                if MessageGate.handled(connection: &connection.budget, limits: configuration.messageLimits) {
                    lws_rx_flow_control(connection.wsi, 1)
                }
            }
        }
        if stopping, !draining {
            draining = true
            for connection in connections.values {
                connection.closing = (CloseCode.goingAway, "the server is shutting down")
            }
            sharedChanged = true
        }
        fanOut.publish(to: server.fanOut)
        if sharedChanged, let context {
            for live in liveProtocols { lws_callback_on_writable_all_protocol(context, live) }
        }
        if draining { finishIfDrained() }
    }
}

/// Reading request headers that lws has parsed.
enum HTTPHeaders {
    static func value(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0, length < 8192 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token) >= 0 else { return nil }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}

// MARK: - Which door

extension ServiceLoop {
    /// The listener a connection came through: the plain-HTTP spectator vhost, or TLS.
    func door(of wsi: OpaquePointer) -> Door {
        guard let spectatorVhost, lws_get_vhost(wsi) == spectatorVhost else { return .tls }
        return .spectator
    }
}
