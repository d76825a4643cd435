import CLibWebSockets
import Dispatch
import GatherDelivery
import Foundation

// MARK: - Who may connect: per-address accounting from accept to close (service thread only)

extension ServiceLoop {
    /// Every TCP connection is counted by its peer's address from accept to destruction, so one
    /// host cannot hold the header tables (taken at accept) that every page load needs. A
    /// connection that became a WebSocket is counted apart, under its own cap (429).
    func admitNetworkConnection(_ arguments: UnsafeMutableRawPointer?) -> Int32 {
        guard let arguments else { return 0 }
        let args = arguments.assumingMemoryBound(to: lws_filter_network_conn_args.self)
        let address = Self.numericAddress(&args.pointee.cli_addr, length: args.pointee.clilen)
        let pending = tcpConnectionsByAddress[address, default: 0] - connectionsByAddress[address, default: 0]
        guard pending < configuration.maximumPendingPerAddress else {
            refusedAtAccept += 1
            if refusedAtAccept == 1 || refusedAtAccept.isMultiple(of: 1000) {
                logger.notice("refusing connections at accept: too many open from one address",
                              metadata: ["transport.pending_per_address": "\(configuration.maximumPendingPerAddress)",
                                         "transport.refused_total": "\(refusedAtAccept)"])
            }
            return 1
        }
        return 0
    }

    func accepted(_ wsi: OpaquePointer) {
        let address = Self.peerAddress(wsi)
        acceptedPeers[wsi] = address
        tcpConnectionsByAddress[address, default: 0] += 1
        awaitingHeaders[wsi] = DispatchTime.now().uptimeNanoseconds
    }

    /// The request's headers are all in (a request, or an upgrade to judge).
    func headersArrived(_ wsi: OpaquePointer) {
        awaitingHeaders[wsi] = nil
    }

    func destroyed(_ wsi: OpaquePointer) {
        awaitingHeaders[wsi] = nil
        guard let address = acceptedPeers.removeValue(forKey: wsi) else { return }
        let left = tcpConnectionsByAddress[address, default: 1] - 1
        tcpConnectionsByAddress[address] = left > 0 ? left : nil
    }

    /// The address as `lws_get_peer_simple` spells it later, with IPv4-mapped IPv6 unwrapped.
    static func numericAddress(_ storage: UnsafeMutablePointer<sockaddr_storage>, length: socklen_t) -> String {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let result = storage.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            getnameinfo($0, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST)
        }
        guard result == 0 else { return "unknown" }
        let text = String(cString: host)
        return text.hasPrefix("::ffff:") && text.contains(".") ? String(text.dropFirst(7)) : text
    }

    // MARK: Upgrades

    /// Only WebSocket upgrades pass. lws 4.1.6 would answer `Upgrade: h2c` with 101 and speak
    /// HTTP/2 (its parser has a known out-of-bounds write) whatever ALPN said, so h2c gets a
    /// plain 400. The Upgrade header is read through lws's header table, never through `in`:
    /// with no Upgrade header `in` is stale on a kept-alive connection (the use-after-free of
    /// CVE-2025-11677), which is why a request without one is closed at once.
    func confirmUpgrade(_ wsi: OpaquePointer) -> Int32 {
        assertOnServiceThread()
        headersArrived(wsi)
        guard lws_hdr_total_length(wsi, WSI_TOKEN_UPGRADE) > 0,
              let upgrade = HTTPHeaders.value(wsi, WSI_TOKEN_UPGRADE)?.lowercased()
        else { return -1 }
        if upgrade == "websocket" {
            let offer = HTTPHeaders.value(wsi, WSI_TOKEN_PROTOCOL)
            guard HandshakeRules.offersAny(of: configuration.protocols, in: offer) else {
                return refuseUpgrade(wsi, status: 400, reason: "Bad Request", detail: subprotocolAdvice)
            }
            return 0
        }
        noteRefusal("refused handshakes", address: Self.peerAddress(wsi), "refused an HTTP upgrade that is not a WebSocket",
                    metadata: ["http.upgrade": "\(LogText.escaped(upgrade.prefix(32)))"])
        return refuseUpgrade(wsi, status: 400, reason: "Bad Request", detail: "this server speaks HTTP/1.1 and WebSockets only")
    }
}

extension ServiceLoop {
    /// What a refused handshake is told to do instead.
    var subprotocolAdvice: String {
        "connect to /live with the " + configuration.protocols.map(\.rawValue).joined(separator: " or ") + " subprotocol"
    }
}
