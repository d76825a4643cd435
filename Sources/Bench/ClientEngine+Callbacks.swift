import CLibWebSockets
import COpenSSL
import Foundation
import GatherLWS

/// The one C entry point: recovers the engine in one helper; nothing throws through C.
let benchCallbackThunk: LWSCallback = { wsi, reason, user, input, length in
    if reason == LWS_CALLBACK_OPENSSL_LOAD_EXTRA_CLIENT_VERIFY_CERTS {
        // `user` is the client SSL_CTX: thousands of idle client connections need not keep their TLS buffers.
        if let user { _ = gather_ssl_ctx_set_mode(OpaquePointer(user), gather_ssl_mode_release_buffers()) }
        return 0
    }
    guard let wsi else { return 0 }
    return LWSContextOwner.owner(of: wsi, as: ClientEngine.self).handle(wsi, reason: reason, input: input, length: length)
}

extension ClientEngine {
    private func connection(of wsi: OpaquePointer) -> BenchConnection? {
        let number = Int(bitPattern: lws_get_opaque_user_data(wsi))
        guard number != 0, let connection = connections[number] else { return nil }
        connection.wsi = wsi
        return connection
    }

    // MARK: - Service thread

    func handle(_ wsi: OpaquePointer, reason: lws_callback_reasons, input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            applyRequests()
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            let detail = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "no detail"
            if let connection = connection(of: wsi) { settleFailure(connection, reason: "connection error: \(detail)") }
        case LWS_CALLBACK_CLIENT_RECEIVE:
            guard let connection = connection(of: wsi) else { return -1 }
            received(on: connection, wsi: wsi, input: input, length: length)
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            guard let connection = connection(of: wsi) else { return 0 }
            return writable(connection, wsi: wsi)
        case LWS_CALLBACK_CLIENT_CLOSED:
            guard let connection = connection(of: wsi) else { return 0 }
            closed(connection)
        default:
            break
        }
        return 0
    }

    func settleFailure(_ connection: BenchConnection, reason: String) {
        guard !connection.settled else { return }
        connection.settled = true
        inFlight -= 1
        handshakeSettled()
        condition.withLock {
            shared.failed += 1
            if shared.firstError == nil { shared.firstError = reason }
            condition.broadcast()
        }
    }

    private func closed(_ connection: BenchConnection) {
        connection.wsi = nil
        guard connection.settled else {
            settleFailure(connection, reason: "closed before welcome and snapshot")
            return
        }
        condition.withLock {
            shared.closedAfterReady += 1
            if connection.role == .spectator, !connection.stalled { shared.closedSpectators += 1 }
            if connection.stalled { shared.stalledClosed = true }
        }
    }

    // MARK: Receiving

    /// Reassembles a message from lws's pieces (copying only when it really came in pieces).
    private func received(on connection: BenchConnection, wsi: OpaquePointer, input: UnsafeMutableRawPointer?, length: Int) {
        let now = BenchClock.nanoseconds()
        let whole = lws_is_final_fragment(wsi) != 0 && lws_remaining_packet_payload(wsi) == 0
        if whole, connection.incoming.isEmpty || lws_is_first_fragment(wsi) != 0 {
            connection.incoming.removeAll(keepingCapacity: false)
            guard let input else { return }
            dispatch(UnsafeRawBufferPointer(start: input, count: length), on: connection, at: now)
            return
        }
        if lws_is_first_fragment(wsi) != 0 { connection.incoming.removeAll(keepingCapacity: true) }
        if let input, length > 0 { connection.incoming.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length)) }
        guard whole else { return }
        connection.incoming.withUnsafeBytes { dispatch($0, on: connection, at: now) }
        connection.incoming = []
    }

    private func dispatch(_ bytes: UnsafeRawBufferPointer, on connection: BenchConnection, at now: UInt64) {
        let summary = WireScanner.summarize(bytes)
        if connection.role == .spectator, versionReached != nil { condition.withLock { shared.spectatorMessages += 1 } }
        switch summary.type {
        case "welcome":
            connection.sawWelcome = true
        case "snapshot", "patch":
            // gather.v2: a patch brings the connection to `version` as a snapshot would; the
            // bench only follows versions, so it need not apply it.
            guard let version = summary.version else { return }
            stateArrived(version: version, isPatch: summary.type == "patch", bytes: bytes, on: connection, at: now)
        case "tick":
            guard connection.watchesTicks else { return }
            let arrival = TickArrival(arrivedAtEpochMs: BenchClock.epochMilliseconds(), bytes: Array(bytes))
            condition.withLock { shared.ticks.append(arrival) }
        case "presence":
            break
        default:
            // docs/PROTOCOL.md: a reply carries its request's id; a server that omits it is still answered.
            let id = summary.id ?? (summary.type.map(Self.replyTypes.contains) == true ? connection.awaitingReply : nil)
            if id != nil, id == connection.awaitingReply { connection.awaitingReply = nil }
            let reply = Reply(summary: summary, bytes: Array(bytes), receivedAt: now)
            condition.withLock {
                if let id {
                    shared.replies[id] = reply
                } else if summary.type == "error", shared.firstError == nil {
                    shared.firstError = "server error: " + String(decoding: bytes.prefix(200), as: UTF8.self)
                }
                condition.broadcast()
            }
        }
    }

    /// The spectator that became ready last watches ticks: both the server and the bench serve it
    /// last, so its ticks are the latest, and it exists even when not every spectator connected.
    private func watchTicks(on connection: BenchConnection) {
        tickWatcher?.watchesTicks = false
        connection.watchesTicks = true
        tickWatcher = connection
    }

    static let replyTypes: Set<String> = ["session", "ack", "rejected", "error"]

    private func stateArrived(version: Int, isPatch: Bool, bytes: UnsafeRawBufferPointer, on connection: BenchConnection,
                              at now: UInt64) {
        let isNew = version > connection.lastVersion
        let old = connection.lastVersion
        let wasReady = connection.ready
        if isNew { connection.lastVersion = version }
        let becameReady = !connection.ready && connection.sawWelcome && !isPatch
        if becameReady {
            connection.ready = true
            connection.settled = true
            inFlight -= 1
            handshakeSettled()
            watchTicks(on: connection)  // the last of this loop to be ready: served last
        }
        // Organisers speak gather.v1: their snapshots are the state the driver reads.
        let organiserCopy = connection.role == .organiser && isNew && !isPatch ? Array(bytes) : nil
        let reached: [Int] = condition.withLock {
            if connection.role == .organiser, isNew, shared.firstSeen[version] == nil { shared.firstSeen[version] = now }
            if connection.role == .spectator, wasReady {
                if isNew, old >= 0, version > old + 1 { shared.skippedVersions += version - old - 1 }
                if !isPatch { shared.resyncs += 1 }
            }
            if isPatch, connection.role == .spectator, connection.index == 0 { shared.samplePatch = Array(bytes) }
            shared.latestVersion = max(shared.latestVersion, version)
            if isPatch {
                shared.patchBytes.smallest = min(shared.patchBytes.smallest, bytes.count)
                shared.patchBytes.largest = max(shared.patchBytes.largest, bytes.count)
            } else {
                shared.snapshotBytes.smallest = min(shared.snapshotBytes.smallest, bytes.count)
                shared.snapshotBytes.largest = max(shared.snapshotBytes.largest, bytes.count)
            }
            if becameReady {
                if connection.role == .spectator { shared.readySpectators += 1 } else { shared.readyOrganisers += 1 }
                shared.lastReadyAt = now
                condition.broadcast()
            }
            if let organiserCopy {
                shared.organiserVersions[connection.index] = version
                shared.organiserSnapshots[connection.index] = organiserCopy
            }
            if connection.role == .spectator, !connection.stalled, version >= shared.round.target,
               connection.countedRound != shared.round.number
            {
                connection.countedRound = shared.round.number
                shared.arrivals[connection.index] = now
                shared.round.reached += 1
                if shared.round.reached >= shared.round.expected { condition.broadcast() }
            }
            guard versionReached != nil, connection.role == .spectator, isNew else { return [] }
            // A follower that became ready late holds its first snapshot's version.
            if becameReady { return shared.noteHolders(from: version - 1, to: version) }
            guard wasReady, old >= 0 else { return [] }
            return shared.noteHolders(from: old, to: version)
        }
        for version in reached { versionReached?(version, now) }
    }

    // MARK: Sending

    /// One `lws_write` per writable callback; a timed message notes when it left.
    private func writable(_ connection: BenchConnection, wsi: OpaquePointer) -> Int32 {
        guard !connection.outgoing.isEmpty else { return 0 }
        let (bytes, id, timed) = connection.outgoing.removeFirst()
        connection.awaitingReply = id
        let headroom = Int(gather_lws_pre())
        var frame = [UInt8](repeating: 0, count: headroom + bytes.count)
        frame.replaceSubrange(headroom..., with: bytes)
        let sentAt = BenchClock.nanoseconds()
        let written = frame.withUnsafeMutableBufferPointer {
            lws_write(wsi, $0.baseAddress! + headroom, bytes.count, LWS_WRITE_TEXT)
        }
        if timed { condition.withLock { shared.sentAt[id] = sentAt } }
        guard written >= 0 else { return -1 }
        if !connection.outgoing.isEmpty { lws_callback_on_writable(wsi) }
        return 0
    }
}
