import CLibWebSockets
import Dispatch
import GatherDelivery
#if canImport(Glibc)
import Glibc
#endif

// MARK: - The API's requests: read whole, handed over, answered later (service thread only)

extension HTTPResponder {
    /// `LWS_CALLBACK_HTTP` for a path under the API's prefix: judged on its headers, copied out
    /// while lws holds them, then handed over now or once its body is read. Every refusal closes
    /// the connection, so a body it announced is never read.
    func beginAPIRequest(_ wsi: OpaquePointer, method: String, path: String, door: Door) -> Int32 {
        guard let routes = configuration.api, apiBook != nil else { return -1 }
        let expectedBytes: Int
        let bodyFollows: Bool
        switch APIRequestBook<OpaquePointer>.judge(
            method: method, contentLength: HTTPHeaders.value(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH),
            transferEncoding: HTTPHeaders.value(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING),
            maximumBodyBytes: routes.maximumBodyBytes) {
        case .refuse(let status, let message):
            return refuseAPIRequest(wsi, door: door, status: status, message: message)
        case .handOverNow:
            (expectedBytes, bodyFollows) = (0, false)
        case .readBody(let bytes):
            // lws calls back with the body, even for a POST of an explicit 0.
            (expectedBytes, bodyFollows) = (bytes, true)
        }
        let request = HTTPRequest(method: method, path: path, query: HTTPHeaders.value(wsi, WSI_TOKEN_HTTP_URI_ARGS),
                                  remoteAddress: PeerAddress.of(wsi), door: door, headers: HTTPHeaders.requestHeaders(wsi))
        switch apiBook!.admit(wsi, request: request, expectedBytes: expectedBytes) {
        case .addressFull:
            return refuseAPIRequest(wsi, door: door, status: 429, message: "Too many requests at once from your address.")
        case .serverFull:
            return refuseAPIRequest(wsi, door: door, status: 503, message: "The server is busy; try again in a moment.")
        case .admitted:
            break
        }
        guard !bodyFollows else { return 0 }
        return bodyComplete(wsi)
    }

    /// `LWS_CALLBACK_HTTP_BODY`: a piece of an API request's body (other requests' are ignored).
    func receivedBody(_ wsi: OpaquePointer, door: Door, input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        guard apiBook != nil else { return 0 }
        switch apiBook!.received(UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length), for: wsi) {
        case .keepReading, .notOurs:
            return 0
        case .tooLarge:
            let limit = configuration.api?.maximumBodyBytes ?? 0
            return refuseAPIRequest(wsi, door: door, status: 413, message: "A request body is limited to \(limit) bytes.")
        }
    }

    /// `LWS_CALLBACK_HTTP_BODY_COMPLETION`: the request is whole; the handler has it.
    func bodyComplete(_ wsi: OpaquePointer) -> Int32 {
        guard let routes = configuration.api,
              let (serial, request) = apiBook?.handOver(wsi, now: DispatchTime.now().uptimeNanoseconds)
        else { return 0 }
        routes.handle(request, APIReply(serial: serial, server: replies))
        return 0
    }

    /// The replies other threads queued: each to its connection's next writable turn, or
    /// dropped when its request is gone (closed, timed out, or answered already).
    func deliver(_ replies: [(serial: UInt64, response: HTTPResponse)]) {
        for (serial, response) in replies {
            guard let (wsi, door) = apiBook?.answer(serial) else { continue }
            apiResponses[wsi] = (response, door)
            lws_callback_on_writable(wsi)
        }
    }

    /// Once a second: requests unanswered past the timeout are answered 503. `everything`: a
    /// shutdown, which answers every request now rather than leave its connection waiting.
    func expireAPIRequests(now: UInt64, everything: Bool = false) {
        guard let overdue = everything ? apiBook?.expireAll() : apiBook?.expire(now: now), !overdue.isEmpty else { return }
        for (wsi, door) in overdue {
            apiResponses[wsi] = (.text(503, "No answer in time; try again."), door)
            lws_callback_on_writable(wsi)
        }
    }

    /// Once a second: a client that hung up while its request waits is not noticed by lws (it
    /// reads nothing from a connection until the answer is written), so each waiting socket is
    /// asked whether its peer has gone. Its request is forgotten at once (the place it held is
    /// free, a later reply dropped) and lws closes the connection on its next turn.
    func dropHungUpAPIRequests() {
        guard let pending = apiBook?.pending, !pending.isEmpty else { return }
        for entry in pending.values where entry.handedOverAt != nil {
            let descriptor = lws_get_socket_fd(entry.handle)
            guard descriptor >= 0 else { continue }
            // POLLRDHUP: the peer shut down its side (a client that half-closes and still
            // waits for its answer is treated as gone; browsers and HTTP libraries do not).
            var probe = pollfd(fd: descriptor, events: Int16(Self.peerHungUp), revents: 0)
            guard poll(&probe, 1, 0) > 0, Int32(probe.revents) & (Self.peerHungUp | POLLHUP | POLLERR) != 0 else { continue }
            apiBook?.closed(entry.handle)
            lws_set_timeout(entry.handle, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
        }
    }

    /// Linux's `POLLRDHUP` (a GNU extension the Glibc module does not export).
    static let peerHungUp: Int32 = 0x2000

    private func refuseAPIRequest(_ wsi: OpaquePointer, door: Door, status: Int, message: String) -> Int32 {
        apiBook?.closed(wsi)
        refusals.note("refused API requests", address: PeerAddress.of(wsi), "refused an API request",
                      metadata: ["http.status": "\(status)"])
        return LWSAnswers.answerAndClose(wsi, door: door, status: status, reason: LWSAnswers.reasonPhrase(status),
                                         detail: message)
    }
}
