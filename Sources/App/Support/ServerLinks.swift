import Foundation
import GatherCertificates

/// The addresses people type or scan to reach this laptop, known once the port is bound.
final class ServerLinks: @unchecked Sendable {
    private let lock = NSLock()
    private var boundPort = 0
    private var cachedQRCodes: [String: String] = [:]
    let hosts: [String]

    init(identity: MachineIdentity, host: String) {
        hosts = Self.reachableHosts(identity: identity, listeningOn: host)
    }

    var port: Int {
        get { lock.withLock { boundPort } }
        set { lock.withLock { boundPort = newValue; cachedQRCodes = [:] } }
    }

    /// The base URL of every reachable address, LAN first.
    var baseURLs: [String] {
        let port = self.port
        return hosts.map { "https://\(Self.bracketed($0)):\(port)" }
    }

    /// What the QR codes point at: the spectator page on the first LAN address.
    var spectatorURL: String { (baseURLs.first ?? "https://localhost:\(port)") + "/" }

    /// The QR code of a page on the first LAN address: `/` for spectators, or the organiser page
    /// so a co-organiser can join. Drawn once per page and port.
    func qrCodeSVG(path: String) -> String? {
        lock.withLock {
            if let cached = cachedQRCodes[path] { return cached }
            let svg = QRCode.svg(for: "https://\(Self.bracketed(hosts.first ?? "localhost")):\(boundPort)\(path)")
            cachedQRCodes[path] = svg
            return svg
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
