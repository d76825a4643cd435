import CLibWebSockets
import GatherLWS

// The two C entry points libwebsockets calls, one per protocol. Each recovers the service
// thread's `ServiceLoop` in one helper and hands the rest to Swift methods; nothing throws
// through C.

/// Protocol 0: every HTTP request (pages, endpoints) and TLS set-up.
let httpCallbackThunk: LWSCallback = { wsi, reason, user, input, length in
    guard let wsi else { return 0 }
    if reason == LWS_CALLBACK_OPENSSL_LOAD_EXTRA_SERVER_VERIFY_CERTS {
        // `user` is the vhost's SSL_CTX here.
        guard let user else { return 1 }
        return LWSContextOwner.owner(of: wsi, as: ServiceLoop.self).hardenTLS(OpaquePointer(user))
    }
    return LWSContextOwner.owner(of: wsi, as: ServiceLoop.self)
        .handleHTTP(wsi, reason: reason, user: user, input: input, length: length)
}

/// Protocols 1 and 2 (`gather.v2`, `gather.v1`): the WebSocket at `/live`, and the cross-thread wake-up.
let liveCallbackThunk: LWSCallback = { wsi, reason, user, input, length in
    guard let wsi else { return 0 }
    return LWSContextOwner.owner(of: wsi, as: ServiceLoop.self).handleLive(wsi, reason: reason, session: user, input: input, length: length)
}
