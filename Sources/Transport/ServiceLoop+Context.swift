import CLibWebSockets
import Foundation
import GatherDelivery
import GatherLWS

// MARK: - The lws context and its two listeners

extension ServiceLoop {
    struct CreatedContext {
        var context: OpaquePointer
        var usesEventLibrary: Bool
        var tlsPort: Int?
        var spectatorVhost: OpaquePointer?
        var spectatorPort: Int?
    }

    /// Allocated for every connection, though spectators never send: lws's 4 KB default would be
    /// most of an idle spectator's memory.
    static let receiveBufferBytes = 256
    /// A whole snapshot (or message) goes to OpenSSL in one call.
    static let largestSendBytes = 1 << 20

    /// One context, explicit vhosts: the TLS listener (pages, organisers, everything) and the
    /// plain-HTTP spectator door, each when configured. Both share the protocols and the service
    /// thread.
    func makeContext() throws -> CreatedContext {
        // epoll through lws's libev plugin where it is installed: poll() over every socket on
        // each wake-up costs more the more phones there are. Without the plugin the context
        // cannot be created with the option, and poll() it is.
        if let context = makeContext(eventLibrary: true) {
            return try addVhosts(to: context, usesEventLibrary: true)
        }
        logger.notice("libwebsockets' libev plugin is not installed (libwebsockets-evlib-ev): serving with poll()")
        guard let context = makeContext(eventLibrary: false) else {
            throw TransportError("libwebsockets could not create its context")
        }
        return try addVhosts(to: context, usesEventLibrary: false)
    }

    private func makeContext(eventLibrary: Bool) -> OpaquePointer? {
        var info = lws_context_creation_info()
        info.options = gather_lws_option_explicit_vhosts() | gather_lws_option_do_ssl_global_init()
            | (eventLibrary ? gather_lws_option_libev() : 0)
        // lws's libev loop takes SIGINT over for itself and would end the loop behind our back;
        // with a signal callback it hands the signal on instead (see `InterruptForwarding`).
        info.signal_cb = lwsSignalThunk
        info.server_string = storage.cString("gather")
        // No fd_limit_per_thread: below the process limit it switches lws 4.1 to a linear search of
        // every connection for each socket event. lws sizes its direct-indexed tables from the
        // open-file limit that `FileDescriptorLimit.fit` just set.
        info.count_threads = 1
        info.timeout_secs = 20
        // A header table is taken at accept time; 0 sizes the pool to the open-file limit, so
        // idle connections cannot starve page loads (the per-address cap keeps them few).
        info.max_http_header_pool = 0
        LWSContextOwner.register(self, in: &info)
        return lws_create_context(&info)
    }

    private func addVhosts(to context: OpaquePointer, usesEventLibrary: Bool) throws -> CreatedContext {
        let protocols = makeProtocols()
        var created = CreatedContext(context: context, usesEventLibrary: usesEventLibrary)
        if let listener = configuration.tls {
            let vhost = makeVhost(context, name: "tls", port: listener.port, protocols: protocols, tls: listener)
            if let failure = tlsSetupFailure {
                lws_context_destroy(context)
                throw TransportError("cannot set up TLS: \(failure)")
            }
            guard let vhost else {
                lws_context_destroy(context)
                throw TransportError("cannot listen on \(configuration.host):\(listener.port) with the given certificate "
                    + "(is the port already in use, or the certificate and key not a pair?)")
            }
            created.tlsPort = Int(lws_get_vhost_listen_port(vhost))
        }
        if let port = configuration.spectatorPort {
            guard let plain = makeVhost(context, name: "spectators", port: port, protocols: protocols, tls: nil) else {
                lws_context_destroy(context)
                throw TransportError("cannot listen for spectators on \(configuration.host):\(port) (is the port already in use?)")
            }
            created.spectatorVhost = plain
            created.spectatorPort = Int(lws_get_vhost_listen_port(plain))
        }
        return created
    }

    /// `LWS_CALLBACK_OPENSSL_LOAD_EXTRA_SERVER_VERIFY_CERTS`, while the TLS vhost is being made:
    /// a setting OpenSSL refuses is stashed for `addVhosts` and fails the vhost (non-zero).
    func hardenTLS(_ sslContext: OpaquePointer) -> Int32 {
        preconditionOnServiceThread()
        do {
            try TLSPolicy.harden(sslContext)
            return 0
        } catch {
            tlsSetupFailure = error
            return 1
        }
    }

    private func makeVhost(_ context: OpaquePointer, name: String, port: Int, protocols: UnsafePointer<lws_protocols>,
                           tls: TLSListener?) -> OpaquePointer? {
        let secure = tls != nil
        var info = lws_context_creation_info()
        info.vhost_name = storage.cString(name)
        info.port = Int32(port)
        if configuration.host != "0.0.0.0", configuration.host != "::" { info.iface = storage.cString(configuration.host) }
        // lws 4.1 makes a vhost TLS only when DO_SSL_GLOBAL_INIT is among ITS options too.
        info.options = Self.vhostOptions(host: configuration.host) | (secure ? gather_lws_option_do_ssl_global_init() : 0)
            | gather_lws_option_fail_upon_unable_to_bind()
        info.protocols = protocols
        // A connection that opened and sent nothing gives its header table back after this long.
        info.timeout_secs_ah_idle = 5
        // lws's own validity pings are off: `upkeep(now:)` pings with a `KeepAlive` per connection
        // instead, because lws 4.1 files each validity timer in one sorted list.
        info.retry_and_idle_policy = storage.retryPolicy(secondsSinceValidPing: 0, secondsSinceValidHangup: 0)
        info.timeout_secs = 20
        if let tls {
            info.ssl_cert_filepath = storage.cString(tls.certificatePath)
            info.ssl_private_key_filepath = storage.cString(tls.privateKeyPath)
            info.alpn = storage.cString("http/1.1")  // never h2 (CVE in 4.1.6's HTTP/2 header parser)
            info.ssl_cipher_list = storage.cString(TLSPolicy.tls12Ciphers)
            info.tls1_3_plus_cipher_list = storage.cString(TLSPolicy.tls13Ciphers)
        }
        guard let vhost = lws_create_vhost(context, &info), lws_get_vhost_listen_port(vhost) > 0 else { return nil }
        return vhost
    }

    /// lws checks UTF-8, IPv6 only when asked for, and plain HTTP never shares the TLS port.
    static func vhostOptions(host: String) -> UInt64 {
        var options = gather_lws_option_validate_utf8()
        if host == "0.0.0.0" || (!host.contains(":") && host != "localhost") {
            options |= gather_lws_option_disable_ipv6()
        }
        return options
    }

    private func makeProtocols() -> UnsafePointer<lws_protocols> {
        // rx_buffer_size is a buffer per connection (commands are small; longer messages come in
        // pieces that `received` reassembles). tx_packet_size must be set apart from it: at 0, lws
        // caps each send at rx_buffer_size, splitting every snapshot and buffering the rest.
        // lws 4.1.6 binds the first subprotocol in the CLIENT's offer that it knows, whatever this order.
        // Only the protocols this server speaks (a relay: gather.v2 alone); `confirmUpgrade` has
        // already refused a handshake that offers none of them.
        let live = configuration.protocols.map { wire in
            lws_protocols(name: storage.cString(wire.rawValue), callback: liveCallbackThunk,
                          per_session_data_size: MemoryLayout<UInt64>.size,
                          rx_buffer_size: Self.receiveBufferBytes, id: 0, user: nil,
                          tx_packet_size: Self.largestSendBytes)
        }
        return storage.protocolList([
            lws_protocols(name: storage.cString("http"), callback: httpCallbackThunk,
                          per_session_data_size: 0, rx_buffer_size: 0, id: 0, user: nil, tx_packet_size: 0),
        ] + live)
    }
}
