import ClubStore
import Foundation
import GatherCertificates
import GatherSecurity

/// What `gather club serve` prints at start: where organisers go, the invite code (and a QR code
/// of the organisers' page with it), and the line tests read the port from.
enum ClubBanner {
    static func print(port: Int, tls: Bool, options: ClubServeCommand, settings: ClubSettings) {
        let scheme = tls ? "https" : "http"
        let base = options.publicURL ?? "\(scheme)://\(shownHost(options.host)):\(port)"
        let invite = "\(base)/club/#invite=\(settings.inviteCode)"
        var lines = [
            "Football Gather Live club: \(settings.name) (\(settings.timeZone)).",
            "",
            "  Organisers (sign in, add members and the weekly match):  \(base)/club/",
            "  Members answer from the personal link the organisers' page gives each of them.",
            "",
            "Invite code for organisers: \(settings.inviteCode)",
            "ORGANISERS scan this to register: \(invite)",
        ]
        if let code = QRCode.terminal(for: invite) { lines.append(code) }
        if let key = clubKey(settings) { lines.append("Club key (the venue's --club-key): \(key)") }
        if let venue = options.venueResults.venueOption {
            // Which results the club believes: the operator checks the stream and the key here.
            let stream = options.venueResults.streamOption ?? "GATHER_\(venue)"
            lines.append("Results from the pitch: venue \(venue), stream \(stream) on the hub, believed with its key only.")
        }
        lines.append("gather club: listening on port \(port)")
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    /// The public half of the key that signs the lists sent to the venue, base64 (as `clubKey`).
    static func clubKey(_ settings: ClubSettings) -> String? {
        guard let key = Ed25519PrivateKey.load(pem: Data(settings.signingKeyPEM.utf8)),
              let raw = try? key.publicKeyBytes() else { return nil }
        return Base64.encoded(raw)
    }

    /// The machine's first LAN address for a wildcard host, so the printed link works on a phone.
    static func shownHost(_ host: String) -> String {
        guard host == "0.0.0.0" || host == "::" else { return host.contains(":") ? "[\(host)]" : host }
        let first = MachineIdentity.current().ipAddresses.first
        return first.map { $0.contains(":") ? "[\($0)]" : $0 } ?? ProcessInfo.processInfo.hostName
    }
}
