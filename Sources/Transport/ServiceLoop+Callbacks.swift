import CLibWebSockets
import Dispatch
import GatherDelivery

// MARK: - Every lws callback, handed to the part that owns its state (service thread only)

extension ServiceLoop {
    /// Protocol 0: accepting, plain HTTP, and the upgrades that never bind a WebSocket protocol.
    func handleHTTP(_ wsi: OpaquePointer, reason: lws_callback_reasons, user: UnsafeMutableRawPointer?,
                    input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        preconditionOnServiceThread()
        switch reason {
        case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
            return admitNetworkConnection(user)
        case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED:
            admission.accepted(wsi, from: PeerAddress.of(wsi), at: DispatchTime.now().uptimeNanoseconds)
        case LWS_CALLBACK_WSI_DESTROY:
            admission.destroyed(wsi)
            http.closed(wsi)
        case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
            return confirmUpgrade(wsi)
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            admission.headersArrived(wsi)
            // An upgrade that offered no subprotocol binds to protocol 0: not ours to accept.
            return LWSAnswers.refuseUpgrade(wsi, door: door(of: wsi), status: 400, reason: "Bad Request",
                                            detail: HTTPResponder.subprotocolAdvice(configuration))
        case LWS_CALLBACK_HTTP:
            admission.headersArrived(wsi)
            return http.serve(wsi, door: door(of: wsi))
        case LWS_CALLBACK_HTTP_BODY:
            return http.receivedBody(wsi, door: door(of: wsi), input: input, length: length)
        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            return http.bodyComplete(wsi)
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            // Once per vhost: the first call takes every queued API reply, the next finds none.
            http.deliver(takeAPIReplies())
        case LWS_CALLBACK_HTTP_WRITEABLE:
            defer { drainedConnectionClosed() }
            return http.writePendingBody(wsi)
        case LWS_CALLBACK_HTTP_FILE_COMPLETION:
            return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
        case LWS_CALLBACK_CLOSED_HTTP:
            http.closed(wsi)
            drainedConnectionClosed()
        default:
            break
        }
        return 0
    }

    /// The WebSocket protocols (`gather.v2`, `gather.v1`, or `club.v1`): the WebSocket at the
    /// live path, and the cross-thread wake-up.
    func handleLive(_ wsi: OpaquePointer, reason: lws_callback_reasons, session: UnsafeMutableRawPointer?,
                    input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        preconditionOnServiceThread()
        switch reason {
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            return live.filterUpgrade(wsi, door: door(of: wsi), admission: admission)
        case LWS_CALLBACK_ESTABLISHED:
            guard let session else { return -1 }
            let address = PeerAddress.of(wsi)
            admission.webSocketOpened(from: address)
            live.opened(wsi, session: session.assumingMemoryBound(to: UInt64.self), door: door(of: wsi), address: address)
            publishConnectionCount()
        case LWS_CALLBACK_RECEIVE:
            guard let connection = live.connection(for: session) else { return -1 }
            return live.received(on: connection, input: input, length: length)
        case LWS_CALLBACK_RECEIVE_PONG:
            live.connection(for: session)?.machine.heard(at: DispatchTime.now().uptimeNanoseconds)
        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let connection = live.connection(for: session) else { return 0 }
            return live.writable(connection)
        case LWS_CALLBACK_CLOSED:
            guard let connection = live.closed(session: session) else { break }
            let address = connection.machine.remoteAddress
            if admission.webSocketClosed(from: address) == 0 {
                live.addressLeft(address, now: DispatchTime.now().uptimeNanoseconds)
            }
            publishConnectionCount()
            drainedConnectionClosed()
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            let (deliveries, stopping) = takeHandOff()
            live.apply(deliveries, stopping: stopping)
            // Every API request still open is answered 503 now: none is left waiting at the close.
            if stopping { http.expireAPIRequests(now: 0, everything: true) }
            if live.draining { finishIfDrained() }
        case LWS_CALLBACK_WSI_DESTROY:
            admission.destroyed(wsi)
        default:
            break
        }
        return 0
    }

    /// Once a second: overdue request headers, unanswered API requests, the refusal counts, then
    /// every connection.
    func upkeep(now: UInt64) {
        preconditionOnServiceThread()
        // lws's own header timeout holds on the plain door; on the TLS port a header trickle
        // stayed 20 s, so every not-yet-requested connection is swept here.
        for wsi in admission.overdueHeaders(now: now) {
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
        }
        http.expireAPIRequests(now: now)
        http.dropHungUpAPIRequests()
        live.pruneBudgets(now: now) { [admission] in admission.hasWebSockets(from: $0) }
        refusals.summarise(now: now)
        live.upkeep(now: now)
    }

    // MARK: Admission's lws side

    /// Every TCP connection is counted by its peer's address from accept to destruction (429 for
    /// WebSockets is counted apart): beyond the pending cap it is closed at accept.
    private func admitNetworkConnection(_ arguments: UnsafeMutableRawPointer?) -> Int32 {
        guard let arguments else { return 0 }
        let args = arguments.assumingMemoryBound(to: lws_filter_network_conn_args.self)
        let address = PeerAddress.numeric(&args.pointee.cli_addr, length: args.pointee.clilen)
        guard admission.admitAtAccept(from: address) else {
            if admission.refusalWorthLogging {
                logger.notice("refusing connections at accept: too many open from one address",
                              metadata: ["transport.pending_per_address": "\(configuration.maximumPendingPerAddress)",
                                         "transport.refused_total": "\(admission.refusedAtAccept)"])
            }
            return 1
        }
        return 0
    }

    /// Only WebSocket upgrades pass. lws 4.1.6 would answer `Upgrade: h2c` with 101 and speak
    /// HTTP/2 (its parser has a known out-of-bounds write) whatever ALPN said, so h2c gets a
    /// plain 400. The Upgrade header is read through lws's header table, never through `in`:
    /// with no Upgrade header `in` is stale on a kept-alive connection (the use-after-free of
    /// CVE-2025-11677), which is why a request without one is closed at once.
    private func confirmUpgrade(_ wsi: OpaquePointer) -> Int32 {
        admission.headersArrived(wsi)
        guard lws_hdr_total_length(wsi, WSI_TOKEN_UPGRADE) > 0,
              let upgrade = HTTPHeaders.value(wsi, WSI_TOKEN_UPGRADE)?.lowercased()
        else { return -1 }
        let door = door(of: wsi)
        if upgrade == "websocket" {
            guard HandshakeRules.offersAny(of: configuration.protocols, in: HTTPHeaders.value(wsi, WSI_TOKEN_PROTOCOL)) else {
                return LWSAnswers.refuseUpgrade(wsi, door: door, status: 400, reason: "Bad Request",
                                                detail: HTTPResponder.subprotocolAdvice(configuration))
            }
            return 0
        }
        refusals.note("refused handshakes", address: PeerAddress.of(wsi), "refused an HTTP upgrade that is not a WebSocket",
                      metadata: ["http.upgrade": "\(LogText.escaped(upgrade.prefix(32)))"])
        return LWSAnswers.refuseUpgrade(wsi, door: door, status: 400, reason: "Bad Request",
                                        detail: "this server speaks HTTP/1.1 and WebSockets only")
    }
}
