import ArgumentParser
import Foundation
import GatherCertificates

/// `gather ca …`: maintenance of the local CA that phones trust.
struct CACommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ca",
        abstract: "Maintain the local certificate authority that organisers' phones trust.",
        subcommands: [RenewCommand.self]
    )
}

/// `gather ca renew`: the one way a CA phones may trust is ever replaced (never silently at start),
/// e.g. a CA made before it carried name constraints, or one that no longer covers this laptop.
struct RenewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "renew",
        abstract: "Make a new local CA and server certificate; the old files are kept as *.old.",
        discussion: "Every phone that trusted the old CA must trust the new one (open /trust.html again). "
            + "A running `gather serve` keeps the old certificate until it is restarted."
    )

    @OptionGroup var certificates: CertificateOptions

    func run() throws {
        let directory = certificates.certificateDirectory
        let renewal: CertificateRenewal
        do {
            renewal = try CertificateAuthority.renew(in: directory, identity: MachineIdentity.current())
        } catch {
            FileHandle.standardError.write(Data("gather: could not renew the local CA: \(error)\n".utf8))
            throw ExitCode(1)
        }
        var lines = ["gather: made a new local CA and server certificate in \(directory).",
                     "  New CA fingerprint SHA-256: \(renewal.bundle.fingerprintSHA256)"]
        if !renewal.keptFiles.isEmpty {
            lines.append("  The old files are kept as: \(renewal.keptFiles.joined(separator: ", "))")
            lines.append("  Restart `gather serve`; every phone must then trust the NEW CA once (open /trust.html "
                + "on the phone) and may delete the old one.")
        } else {
            lines.append("  Phones trust it once, from /trust.html once `gather serve` runs.")
        }
        lines += renewal.bundle.warnings.map { "gather: warning: \($0)" }
        print(lines.joined(separator: "\n"))
    }
}
