import CLibWebSockets

// The two C entry points libwebsockets calls, one per protocol. Each recovers the `LiveServer`
// in one helper and hands the rest to Swift methods; nothing throws through C.

/// The signature of `lws_protocols.callback`.
typealias LWSCallback = @convention(c) (OpaquePointer?, lws_callback_reasons, UnsafeMutableRawPointer?,
                                        UnsafeMutableRawPointer?, Int) -> Int32

/// Protocol 0: every HTTP request (pages, endpoints) and TLS set-up.
let httpCallbackThunk: LWSCallback = { wsi, reason, user, input, length in
    guard let wsi else { return 0 }
    if reason == LWS_CALLBACK_OPENSSL_LOAD_EXTRA_SERVER_VERIFY_CERTS {
        // `user` is the vhost's SSL_CTX here.
        if let user { TLSPolicy.harden(OpaquePointer(user)) }
        return 0
    }
    guard let server = LiveServer.recover(from: wsi) else { return 0 }
    return server.handleHTTP(wsi, reason: reason, input: input, length: length)
}

/// Protocol 1 (`gather.v1`): the WebSocket at `/live`, and the cross-thread wake-up.
let liveCallbackThunk: LWSCallback = { wsi, reason, user, input, length in
    guard let wsi, let server = LiveServer.recover(from: wsi) else { return 0 }
    return server.handleLive(wsi, reason: reason, session: user, input: input, length: length)
}

extension LiveServer {
    /// The server registered as the context's user pointer in `start()`. Unretained: the server
    /// outlives its context, which is destroyed on the service thread before `shutdown()` returns.
    static func recover(from wsi: OpaquePointer) -> LiveServer? {
        guard let context = lws_get_context(wsi), let user = lws_context_user(context) else { return nil }
        return Unmanaged<LiveServer>.fromOpaque(user).takeUnretainedValue()
    }
}
