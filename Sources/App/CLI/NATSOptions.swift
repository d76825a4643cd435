import ArgumentParser
import Foundation
import GatherStream

/// `--nats URL` and its credentials, shared by `serve` and `relay`. Secrets: a `.creds` file, or a
/// password from `GATHER_NATS_PASSWORD` (which `ps` does not show); `--nats-password` exists for
/// the contract's sake and says why not to use it.
struct NATSOptions: ParsableArguments {
    @Option(name: .customLong("nats"),
            help: "NATS server to publish/read the venue's stream (e.g. nats://127.0.0.1:4222); several, comma-separated, for a cluster.")
    var url: String?

    @Option(name: .customLong("nats-creds"), help: "NATS credentials file (.creds).")
    var credentialsFile: String?

    @Option(name: .customLong("nats-user"), help: "NATS user; the password comes from GATHER_NATS_PASSWORD.")
    var user: String?

    @Option(name: .customLong("nats-password"),
            help: "NATS password (visible in `ps`: prefer GATHER_NATS_PASSWORD).")
    var passwordOption: String?

    var password: String? {
        passwordOption ?? ProcessInfo.processInfo.environment["GATHER_NATS_PASSWORD"].flatMap { $0.isEmpty ? nil : $0 }
    }

    func validate() throws {
        if let url {
            try validateNATSAddresses(url, option: "--nats")
        }
        if credentialsFile != nil, user != nil {
            throw ValidationError("--nats-creds and --nats-user are two ways to log in to NATS: give one.")
        }
        if let credentialsFile, !FileManager.default.isReadableFile(atPath: credentialsFile) {
            throw ValidationError("--nats-creds \(credentialsFile) is not a readable file.")
        }
        if user != nil, password == nil {
            throw ValidationError("--nats-user needs a password: set GATHER_NATS_PASSWORD.")
        }
        if url == nil, credentialsFile != nil || user != nil {
            throw ValidationError("NATS credentials need --nats URL.")
        }
    }

    /// nil without `--nats`.
    func endpoint(clientName: String) -> NATSEndpoint? {
        guard let url else { return nil }
        return NATSEndpoint(url: url, credentials: natsCredentials(file: credentialsFile, user: user, password: password),
                            clientName: clientName)
    }

    /// Printed once at start when the password came from the command line.
    var passwordWarning: String? {
        passwordOption == nil ? nil : "--nats-password shows in `ps`; set GATHER_NATS_PASSWORD instead"
    }
}

/// A `.creds` file first, else a user with its password, else none: the one rule for every
/// command that logs in to NATS (`serve`, `relay`, `nats mirror`).
func natsCredentials(file: String?, user: String?, password: String?) -> NATSCredentials {
    if let file { return .credentialsFile(file) }
    if let user, let password { return .userPassword(user: user, password: password) }
    return .none
}

/// `--venue NAME`, checked once: the default is the host name.
func parseVenue(_ text: String?) throws -> VenueName {
    if let text {
        guard let venue = VenueName(text) else {
            throw ValidationError("--venue \(text.prefix(64)) is not a venue name: \(VenueName.rule).")
        }
        return venue
    }
    guard let venue = VenueName.fromHostName() else {
        throw ValidationError("This machine's host name is not a venue name (\(VenueName.rule)): give --venue NAME.")
    }
    return venue
}

/// One NATS address, or up to 16 separated by commas (the nodes of a cluster): each
/// `nats://`, `tls://` or a bare loopback host:port, the whole at most 1 KiB.
func validateNATSAddresses(_ text: String, option: String) throws {
    let addresses = NATSEndpoint(url: text, credentials: .none, clientName: "").urls
    let looksRight = { (address: String) in
        address.hasPrefix("nats://") || address.hasPrefix("tls://") || address.hasPrefix("127.") || address.hasPrefix("localhost")
    }
    guard text.utf8.count <= 1_024, (1...16).contains(addresses.count), addresses.allSatisfy(looksRight) else {
        throw ValidationError("\(option) must be a NATS address such as nats://127.0.0.1:4222, or several separated by commas.")
    }
}
