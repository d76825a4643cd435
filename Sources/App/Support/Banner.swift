import Foundation
import GatherCertificates

/// What `gather serve` prints at start: where to go, how to join, what to trust.
enum Banner {
    static func print(links: ServerLinks, inviteCode: String, certificates: CertificateBundle) {
        var lines: [String] = []
        lines.append("Football Gather Live is running.")
        lines.append("")
        for base in links.baseURLs {
            lines.append("  Spectators:  \(base)/")
            lines.append("  Organisers:  \(base)/organiser.html")
            lines.append("  Scoreboard:  \(base)/scoreboard.html")
            lines.append("")
        }
        lines.append("  Invite code for organisers: \(inviteCode)")
        if certificates.caCertificatePath != nil {
            lines.append("  Local CA (trust it once per phone): \(links.baseURLs.first ?? "")/ca.pem")
            lines.append("  CA fingerprint SHA-256: \(certificates.fingerprintSHA256)")
        } else {
            lines.append("  Certificate fingerprint SHA-256: \(certificates.fingerprintSHA256)")
        }
        if let qr = QRCode.terminal(for: links.spectatorURL) {
            lines.append("")
            lines.append("  Scan to follow the match: \(links.spectatorURL)")
            lines.append(qr)
        }
        // Tests and scripts read the bound port from this line.
        lines.append("gather: listening on port \(links.port)")
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}
