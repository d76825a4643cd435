import Foundation
import GatherCertificates

/// The addresses people type or scan to reach this laptop, known once the port is bound.
final class ServerLinks: @unchecked Sendable {
    private let lock = NSLock()
    private var boundPort = 0
    private var cachedQRCode: String?
    let hosts: [String]

    init(identity: MachineIdentity, host: String) {
        hosts = Self.reachableHosts(identity: identity, listeningOn: host)
    }

    var port: Int {
        get { lock.withLock { boundPort } }
        set { lock.withLock { boundPort = newValue; cachedQRCode = nil } }
    }

    /// The base URL of every reachable address, LAN first.
    var baseURLs: [String] {
        let port = self.port
        return hosts.map { "https://\(Self.bracketed($0)):\(port)" }
    }

    /// What the QR codes point at: the spectator page on the first LAN address.
    var spectatorURL: String { (baseURLs.first ?? "https://localhost:\(port)") + "/" }

    var spectatorQRCodeSVG: String? {
        lock.withLock {
            if cachedQRCode == nil {
                cachedQRCode = QRCode.svg(for: "https://\(Self.bracketed(hosts.first ?? "localhost")):\(boundPort)/")
            }
            return cachedQRCode
        }
    }

    /// LAN IPv4 first (phones join those), then the `.local` name, then loopback.
    private static func reachableHosts(identity: MachineIdentity, listeningOn host: String) -> [String] {
        if host != "0.0.0.0", host != "::" { return [host] }
        let addresses = identity.ipAddresses.filter { host == "::" || !$0.contains(":") }
        let lan = addresses.filter { $0 != "127.0.0.1" && $0 != "::1" }
        var result = lan
        result.append(identity.hostName + ".local")
        result.append(host == "::" ? "::1" : "127.0.0.1")
        return result
    }

    private static func bracketed(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }
}
