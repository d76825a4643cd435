import COpenSSL

/// OpenSSL settings: TLS 1.2 and 1.3 only, ECDHE with AEAD ciphers only.
enum TLSPolicy {
    static let tls12Ciphers = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384",
        "ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
    ].joined(separator: ":")
    static let tls13Ciphers = "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"

    /// One setting OpenSSL did not take: the server must not run without it.
    struct Failure: Error, CustomStringConvertible, Equatable {
        let setting: String
        var description: String { "OpenSSL refused to \(setting)" }
    }

    /// Applied to the server's SSL_CTX when lws offers it (on the service thread, inside an lws
    /// callback: the caller stashes the error and stops the start, nothing throws through C).
    /// Each call's result is checked; `minimumVersion` is a parameter so a test can make one fail.
    static func harden(_ context: OpaquePointer, minimumVersion: Int32 = gather_tls1_2_version()) throws(Failure) {
        guard gather_ssl_ctx_set_min_proto_version(context, minimumVersion) == 1,
              gather_ssl_ctx_min_proto_version(context) == minimumVersion
        else { throw Failure(setting: "set the minimum protocol version to TLS 1.2") }
        // Frees idle connections' TLS buffers, the largest part of a quiet spectator's memory.
        let release = gather_ssl_mode_release_buffers()
        guard gather_ssl_ctx_set_mode(context, release) & release == release else {
            throw Failure(setting: "release idle connections' buffers")
        }
        // No resumption state kept or sent: a phone on the LAN redoes a full ECDHE handshake
        // (cheap on a LAN) and thousands of idle spectators cost less memory.
        _ = gather_ssl_ctx_disable_session_cache(context)
        guard gather_ssl_ctx_session_cache_mode(context) == gather_ssl_sess_cache_off() else {
            throw Failure(setting: "turn the session cache off")
        }
        guard SSL_CTX_set_num_tickets(context, 0) == 1, SSL_CTX_get_num_tickets(context) == 0 else {
            throw Failure(setting: "turn session tickets off")
        }
    }
}
