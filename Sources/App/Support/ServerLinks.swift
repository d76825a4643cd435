import Foundation
import GatherCertificates
import Synchronization

/// The addresses people type or scan to reach this laptop, known once the ports are bound:
/// organisers always over TLS; spectators through the plain-HTTP door when it is open (no
/// certificate to install), else over TLS too.
final class ServerLinks: Sendable {
    private struct Bound {
        var tlsPort = 0
        var spectatorPort: Int?
        var cachedQRCodes: [String: String] = [:]
    }

    private let bound = Mutex(Bound())
    let hosts: [String]
    /// A local CA to trust: co-organisers start at its trust page (false with `--cert`/`--key`).
    let hasTrustPage: Bool
    /// The venue's name on the stream (`--venue`), which a shared result card names instead of
    /// this laptop's address; nil without a venue stream.
    let venue: String?

    init(identity: MachineIdentity, host: String, hasTrustPage: Bool = true, venue: String? = nil) {
        hosts = Self.reachableHosts(identity: identity, listeningOn: host)
        self.hasTrustPage = hasTrustPage
        self.venue = venue
    }

    /// `/api/join.json`: the spectator address, and the venue's name when there is one (a venue
    /// name is `a-z`, `0-9` and `-`: nothing to escape).
    var joinJSON: String {
        "{\"spectatorURL\":\"\(spectatorURL())\"" + (venue.map { ",\"venue\":\"\($0)\"" } ?? "") + "}"
    }

    func bind(tlsPort: Int, spectatorPort: Int?) {
        bound.withLock { $0 = Bound(tlsPort: tlsPort, spectatorPort: spectatorPort) }
    }

    var port: Int { bound.withLock { $0.tlsPort } }
    var plainPort: Int? { bound.withLock { $0.spectatorPort } }

    /// The TLS base URL of every reachable address, LAN first.
    var secureBaseURLs: [String] { hosts.map(secureBase) }

    /// Where spectators go, on every reachable address.
    var spectatorBaseURLs: [String] { hosts.map(spectatorBase) }

    /// What the spectator QR codes point at: the spectator page on the first LAN address.
    func spectatorURL(pitch: Int? = nil) -> String {
        spectatorBase(hosts.first ?? "localhost") + "/" + (pitch.map { "?pitch=\($0)" } ?? "")
    }

    /// Where organisers log in (always TLS).
    var organiserURL: String { secureBase(hosts.first ?? "localhost") + "/organiser.html" }

    /// Where a new co-organiser starts: the trust steps on the spectator door (plain HTTP, so the
    /// first sight is not a certificate warning), which then lead to the organiser page (an
    /// invite code after '#' is handed on by trust.js). Without a local CA there is nothing to
    /// trust: the organiser page itself.
    var inviteURL: String {
        hasTrustPage ? spectatorBase(hosts.first ?? "localhost") + "/trust.html" : organiserURL
    }

    /// `/qr.svg`: the spectator page (of one pitch), the invite for co-organisers, or a referee's
    /// link. Drawn once per target and port; a referee's code is drawn every time and never kept:
    /// the server keeps only its hash.
    func qrCodeSVG(query: String?) -> String? {
        let target = Self.qrTarget(query: query)
        let url = url(of: target)
        if case .referee = target { return QRCode.svg(for: url) }
        return bound.withLock { bound in
            if let cached = bound.cachedQRCodes[url] { return cached }
            let svg = QRCode.svg(for: url)
            if bound.cachedQRCodes.count < 64 { bound.cachedQRCodes[url] = svg }
            return svg
        }
    }

    /// Where a QR code of this target leads.
    func url(of target: QRTarget) -> String {
        switch target {
        case .organiser: inviteURL
        case .organiserInvite(let code): inviteURL + "#invite=" + code
        case .referee(let code): inviteURL + "#referee=" + code
        case .spectator(let pitch): spectatorURL(pitch: pitch)
        case .team(let team): spectatorBase(hosts.first ?? "localhost") + "/?team=\(team)"
        }
    }

    enum QRTarget: Equatable {
        case organiser
        /// The organiser page with the invite code after '#' (the page fills it in; the code never
        /// travels in a request).
        case organiserInvite(String)
        case spectator(pitch: Int?)
        /// The spectator page following one team of the tournament (the organiser's tab prints one per team).
        case team(Int)
        /// A referee's link (`createRefereeLink`): like the invite, the trust steps first (the
        /// referee's phone talks to the TLS port), then the organiser page with the code after '#',
        /// which opens the one-pitch scoring view; the code never travels in a request from there.
        case referee(String)
    }

    /// `invite=CODE` (8–64 letters, digits, '-' or '_': the organiser page with the code),
    /// `page=organiser`, `pitch=N` (1–9999), `team=N` (1–64, a tournament's team), or `referee=CODE`
    /// (16–64 of base64url's letters: a referee link's code); anything else is the spectator page.
    static func qrTarget(query: String?) -> QRTarget {
        let pairs = (query ?? "").split(separator: "&").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }
        // One argument on its own: the transport hands over a single query argument reliably.
        if let code = pairs.first(where: { $0.first == "invite" && $0.count == 2 })?[1], (8...64).contains(code.count),
           code.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) {
            return .organiserInvite(code)
        }
        if let code = pairs.first(where: { $0.first == "referee" && $0.count == 2 })?[1], (16...64).contains(code.count),
           code.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) {
            return .referee(code)
        }
        if pairs.contains(["page", "organiser"]) { return .organiser }
        if let pitch = pairs.first(where: { $0.first == "pitch" && $0.count == 2 }).flatMap({ Int($0[1]) }),
           (1...9999).contains(pitch) {
            return .spectator(pitch: pitch)
        }
        if let team = pairs.first(where: { $0.first == "team" && $0.count == 2 }).flatMap({ Int($0[1]) }), (1...64).contains(team) {
            return .team(team)
        }
        return .spectator(pitch: nil)
    }

    private func secureBase(_ host: String) -> String {
        "https://\(Self.bracketed(host)):\(port)"
    }

    private func spectatorBase(_ host: String) -> String {
        guard let plainPort else { return secureBase(host) }
        return "http://\(Self.bracketed(host)):\(plainPort)"
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
