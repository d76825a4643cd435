import Foundation
import GatherCertificates

/// What `gather serve` prints at start: where to go, for whom, how to join, what to trust.
enum Banner {
    static func print(links: ServerLinks, inviteCode: String, certificates: CertificateBundle, pitches: [(id: Int, name: String)],
                      stream: (venue: String, url: String, connected: Bool)? = nil, venueKey: String? = nil) {
        var lines: [String] = []
        lines.append("Football Gather Live is running.")
        lines.append("")
        for (secure, spectator) in zip(links.secureBaseURLs, links.spectatorBaseURLs) {
            lines.append("  Spectators (anyone, nothing to install):  \(spectator)/")
            lines.append("  Organisers (log in, over TLS):             \(secure)/organiser.html")
            lines.append("")
        }
        if let spectator = links.spectatorBaseURLs.first {
            for pitch in pitches {
                lines.append("  Scoreboard, \(pitch.name):  \(spectator)/scoreboard.html?pitch=\(pitch.id)")
            }
            lines.append("  Venue overview (every live pitch):  \(spectator)/scoreboard.html?pitch=all")
            // A tournament day's projector is a page of its own (every pitch now and next, the
            // tables, the bracket): printed always, so nobody has to find `?tournament` in the docs.
            lines.append("  Tournament projector (groups, bracket, what is next):  \(spectator)/scoreboard.html?tournament")
            lines.append("")
        }
        lines.append("  Invite code for organisers: \(inviteCode)")
        if certificates.caCertificatePath != nil {
            lines.append("  Organisers trust the local CA once per phone: \(links.url(of: .organiser))")
            lines.append("  CA fingerprint SHA-256: \(certificates.fingerprintSHA256)")
            lines.append("  Short check (first and last 8): \(FingerprintCheck.short(certificates.fingerprintSHA256))")
        } else {
            lines.append("  Certificate fingerprint SHA-256: \(certificates.fingerprintSHA256)")
        }
        if let stream {
            lines.append("  Venue stream \(stream.venue) on \(stream.url): "
                         + (stream.connected ? "connected, relays can follow it"
                                             : "NATS not reachable yet; retrying (the Wi-Fi is served as always)"))
        }
        if let venueKey {
            lines.append("  Venue key (give relays --venue-key with it): \(venueKey)")
        }
        let spectatorURL = links.spectatorURL()
        if let qr = QRCode.terminal(for: spectatorURL) {
            lines.append("")
            lines.append("  SPECTATORS scan this to follow the match: \(spectatorURL)")
            lines.append(qr)
        }
        // The first co-organiser needs no typing either: trust the server once, then Register
        // with the invite code already filled in.
        let inviteURL = links.url(of: inviteTarget(inviteCode))
        if let qr = QRCode.terminal(for: inviteURL) {
            lines.append("")
            lines.append("  ORGANISERS scan this to join (trust the server, then Register): \(inviteURL)")
            lines.append(qr)
        }
        // Tests and scripts read the bound ports from these lines; the TLS one comes last.
        if let plain = links.plainPort { lines.append("gather: spectator port \(plain)") }
        lines.append("gather: listening on port \(links.port)")
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    /// The invite QR code carries the code when it is one a URL can carry as it is, else it
    /// leads to the trust steps and the code is typed from this screen.
    static func inviteTarget(_ inviteCode: String) -> ServerLinks.QRTarget {
        let target = ServerLinks.qrTarget(query: "invite=" + inviteCode)
        return target == .organiserInvite(inviteCode) ? target : .organiser
    }
}
