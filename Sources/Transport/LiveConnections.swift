import CLibWebSockets
import Dispatch
import GatherDelivery

/// The WebSocket at the live path (`/live`): every open connection, the frames they share, the budgets their
/// addresses share and the fan-out counters. Owned by the `ServiceLoop` and touched only on its
/// service thread. Each connection's logic is its `ConnectionMachine`; this type carries out
/// what the machines decide with lws calls, and does the work that spans connections (the
/// hand-off from the source, the budget for partial messages).
final class LiveConnections {
    let configuration: TransportConfiguration
    let source: any TransportSource
    let refusals: RefusalLog
    /// Where the fan-out counters are published for `/metrics`.
    let metrics: FanOutMetrics

    private(set) var connections: [UInt64: LiveConnection] = [:]
    private var nextConnectionNumber: UInt64 = 0
    var shared = SharedFrames()
    /// What organiser connections follow instead, while the Coordinator publishes an organisers'
    /// view (referee links exist); nil: they follow `shared`.
    var organiserShared: SharedFrames?
    /// When the current shared state version was handed over, for the fan-out histogram.
    var statePublishedAt: UInt64 = 0
    var tickSerial = 0
    var presenceSerial = 0
    var fanOut = FanOutCounter()
    /// Set once a shutdown began: every connection is closing, and no handshake is let in.
    var draining = false
    /// Bytes held in partly received messages, across every connection.
    private(set) var partialMessageBytes = 0
    /// Each address's message budget, shared by its connections.
    private var addressBudgets: [String: TokenBucket] = [:]
    /// The ping's payload is not empty on purpose: lws 4.1 does not report an empty pong
    /// (`LWS_CALLBACK_RECEIVE_PONG`), and the echo is how `KeepAlive` hears the peer.
    let pingFrame = SharedFrame(Array("alive?".utf8))

    init(configuration: TransportConfiguration, source: any TransportSource, refusals: RefusalLog, metrics: FanOutMetrics) {
        self.configuration = configuration
        self.source = source
        self.refusals = refusals
        self.metrics = metrics
    }

    func connection(for session: UnsafeMutableRawPointer?) -> LiveConnection? {
        guard let number = session?.assumingMemoryBound(to: UInt64.self).pointee, number != 0 else { return nil }
        return connections[number]
    }

    // MARK: Handshake

    /// Last look before the 101: right path, same-origin browsers only, room for one more.
    func filterUpgrade(_ wsi: OpaquePointer, door: Door, admission: Admission<OpaquePointer>) -> Int32 {
        let path = HTTPHeaders.value(wsi, WSI_TOKEN_GET_URI) ?? ""
        guard path == configuration.livePath else {
            return LWSAnswers.refuseUpgrade(wsi, door: door, status: 404, reason: "Not Found",
                                            detail: "the live endpoint is \(configuration.livePath)")
        }
        let origin = HTTPHeaders.value(wsi, WSI_TOKEN_ORIGIN)
        let address = PeerAddress.of(wsi)
        // Behind a proxy the browser's scheme is the proxy's, which it says in X-Forwarded-Proto.
        let forwardedProto = door == .spectator && configuration.plainListener == .behindProxy
            ? HTTPHeaders.customValue(wsi, "x-forwarded-proto") : nil
        guard HandshakeRules.originAllowed(origin: origin, host: HTTPHeaders.value(wsi, WSI_TOKEN_HOST), door: door,
                                           forwardedProto: forwardedProto) else {
            refusals.note("refused handshakes", address: address, "refused a WebSocket from a foreign origin",
                          metadata: ["http.origin": "\(LogText.escaped(origin ?? ""))"])
            return LWSAnswers.refuseUpgrade(wsi, door: door, status: 403, reason: "Forbidden",
                                            detail: "this page is not served by this server")
        }
        switch admission.judgeHandshake(from: address, draining: draining) {
        case .admit:
            break
        case .serverFull:
            refusals.note("refused handshakes", address: "the whole server", "refused a WebSocket: connection limit reached",
                          metadata: ["transport.connections": "\(connections.count)"])
            return LWSAnswers.refuseUpgrade(wsi, door: door, status: 503, reason: "Service Unavailable",
                                            detail: "the server is full")
        case .addressFull:
            refusals.note("refused handshakes", address: address, "refused a WebSocket: too many from one address",
                          metadata: ["transport.per_address": "\(configuration.maximumConnectionsPerAddress)"])
            return LWSAnswers.refuseUpgrade(wsi, door: door, status: 429, reason: "Too Many Requests",
                                            detail: "too many connections from your address")
        }
        return 0
    }

    /// Where the connection opening on `wsi` says it is, read from its own request as it opens
    /// (lws keeps the headers until `ESTABLISHED` returns). Nothing is kept between the upgrade's
    /// filter and the open: a handshake that never opens (reset, refused by lws after our filter)
    /// leaves nothing behind for the next connection lws puts at the same address. A query longer
    /// than any valid one is not even copied.
    private func resumePoint(of wsi: OpaquePointer) -> ResumePoint? {
        guard lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_URI_ARGS) > 0,
              let parameters = HTTPHeaders.fragments(wsi, WSI_TOKEN_HTTP_URI_ARGS, maximumCount: ResumeQuery.maximumParameters,
                                                     maximumBytes: ResumeQuery.maximumBytes)
        else { return nil }
        return ResumeQuery.parse(parameters: parameters)
    }

    /// The handshake is done: the connection is numbered and its source told.
    func opened(_ wsi: OpaquePointer, session: UnsafeMutablePointer<UInt64>, door: Door, address: String) {
        nextConnectionNumber += 1
        let wire = Self.wire(of: wsi)
        let machine = ConnectionMachine(wire: wire, door: door, remoteAddress: address,
                                        resume: wire == .v2 ? resumePoint(of: wsi) : nil,
                                        replyLimit: configuration.replyQueueLimit,
                                        pingIntervalSeconds: configuration.pingIntervalSeconds,
                                        limits: configuration.messageLimits, now: DispatchTime.now().uptimeNanoseconds)
        let socket = lws_get_socket_fd(wsi)
        let connection = LiveConnection(id: ConnectionID(nextConnectionNumber), wsi: wsi, machine: machine,
                                        plainSocket: lws_is_ssl(wsi) == 0 && socket >= 0 ? socket : nil)
        session.pointee = nextConnectionNumber
        connections[nextConnectionNumber] = connection
        source.connectionOpened(connection.id, remoteAddress: address, protocol: wire, door: door)
    }

    /// The subprotocol lws bound the connection to (only ones this server speaks are bound).
    static func wire(of wsi: OpaquePointer) -> WireProtocol {
        lws_get_protocol(wsi).flatMap { WireProtocol(rawValue: String(cString: $0.pointee.name)) } ?? .v1
    }

    /// The connection of `session` has closed; returns it, once, for the caller's accounting.
    func closed(session: UnsafeMutableRawPointer?) -> LiveConnection? {
        let number = session?.assumingMemoryBound(to: UInt64.self)
        guard let number, number.pointee != 0, let connection = connections.removeValue(forKey: number.pointee) else {
            return nil
        }
        number.pointee = 0
        releasePartial(connection)
        source.connectionClosed(connection.id)
        return connection
    }

    /// The address has no connection left: its budget goes once it is full again.
    func addressLeft(_ address: String, now: UInt64) {
        if addressBudgets[address]?.isFull(now: Int64(now / 1_000_000)) == true { addressBudgets[address] = nil }
    }

    /// Stale budgets of addresses gone quiet, so the table stays small.
    func pruneBudgets(now: UInt64, keeping inUse: (String) -> Bool) {
        guard addressBudgets.count > 10_000 else { return }
        let millis = Int64(now / 1_000_000)
        addressBudgets = addressBudgets.filter { inUse($0.key) || !$0.value.isFull(now: millis) }
    }

    // MARK: Receiving

    /// Reassembles one message from lws's pieces, within the size cap and the server-wide budget
    /// for partial messages, and carries out what the connection's machine decides.
    func received(on connection: LiveConnection, input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        let wsi = connection.wsi
        let now = DispatchTime.now().uptimeNanoseconds
        connection.machine.heard(at: now)
        let fragment = ConnectionMachine.Fragment(
            isBinary: lws_frame_is_binary(wsi) != 0, isFirst: lws_is_first_fragment(wsi) != 0,
            isLast: lws_is_final_fragment(wsi) != 0 && lws_remaining_packet_payload(wsi) == 0)
        let held = connection.machine.incoming.count
        let step = connection.machine.received(UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length),
                                               fragment, maximumBytes: configuration.maximumMessageBytes)
        partialMessageBytes += connection.machine.incoming.count - held
        if case .close(let close) = step { return LWSAnswers.closeNow(wsi, close) }
        if partialMessageBytes > configuration.partialMessageBudget, evictLargestPartial() === connection {
            return LWSAnswers.closeNow(wsi, .init(code: CloseCode.messageTooBig, reason: "the server is short of room for messages"))
        }
        guard step == .messageComplete else { return 0 }
        let complete = connection.machine.incoming.count
        let outcome = connection.machine.finishMessage(
            address: &addressBudgets[connection.machine.remoteAddress, default: newAddressBudget(now)],
            limits: configuration.messageLimits, isTLS: lws_is_ssl(wsi) != 0, version: shared.state?.version ?? 0, now: now)
        partialMessageBytes -= complete
        switch outcome {
        case .deliver(let text, let pauseReading):
            // Far enough ahead of the source: nothing more is read until it catches up.
            if pauseReading { lws_rx_flow_control(wsi, 0) }
            source.received(text, from: connection.id)
        case .answered:
            lws_callback_on_writable(wsi)
        case .close(let close):
            // Invalid UTF-8 closes quietly, as a binary frame does; the gate's closes are logged.
            if close.code != CloseCode.invalidPayload {
                refusals.note("connections closed for what they sent", address: connection.machine.remoteAddress,
                              "closing a connection: \(close.reason)",
                              metadata: ["connection.id": "\(connection.id.rawValue)", "ws.close_code": "\(close.code)"])
            }
            return LWSAnswers.closeNow(wsi, close)
        }
        return 0
    }

    private func newAddressBudget(_ now: UInt64) -> TokenBucket {
        TokenBucket(capacity: configuration.messageLimits.addressBurst,
                    ratePerSecond: configuration.messageLimits.addressPerSecond, now: Int64(now / 1_000_000))
    }

    /// Drops a connection's partial message from the budget.
    private func releasePartial(_ connection: LiveConnection) {
        partialMessageBytes -= connection.machine.incoming.count
        connection.machine.dropPartial()
    }

    /// Over budget, the largest partial message goes and its connection is closed with 1009:
    /// twenty thousand phones each holding 64 KiB would otherwise hold over a gigabyte.
    private func evictLargestPartial() -> LiveConnection? {
        guard let largest = connections.values.max(by: { $0.machine.incoming.count < $1.machine.incoming.count })
        else { return nil }
        releasePartial(largest)
        refusals.note("connections closed for what they sent", address: largest.machine.remoteAddress,
                      "closing the connection with the largest partial message: over the server's budget",
                      metadata: ["transport.partial_budget": "\(configuration.partialMessageBudget)"])
        largest.machine.close(.init(code: CloseCode.messageTooBig, reason: "the server is short of room for messages"),
                              replacing: false)
        lws_callback_on_writable(largest.wsi)
        return largest
    }
}

/// One open WebSocket: the lws handle, the id its source knows it by, and its logic.
final class LiveConnection {
    let id: ConnectionID
    let wsi: OpaquePointer
    var machine: ConnectionMachine
    /// The machine's protocol, kept here so counting a write is not one more access to it.
    let wire: WireProtocol
    /// The socket the fan-out writes to itself; nil with TLS, which writes through lws.
    let plainSocket: Int32?
    /// Written since the socket was last seen writable (`LiveConnections.bytesBetweenPolls`).
    var bytesSinceSeenWritable = 0
    /// Signed in as an organiser: follows the organisers' frames when there are any.
    var organiserAudience = false

    init(id: ConnectionID, wsi: OpaquePointer, machine: ConnectionMachine, plainSocket: Int32?) {
        self.id = id
        self.wsi = wsi
        self.machine = machine
        self.wire = machine.wire
        self.plainSocket = plainSocket
    }
}

@available(*, unavailable)
extension LiveConnection: Sendable {}

@available(*, unavailable)
extension LiveConnections: Sendable {}
