import ArgumentParser
import Foundation
import GatherSecurity
import GatherStream
import Logging

/// `gather relay`: serve a venue's stream, read from NATS, to read-only spectators anywhere.
struct RelayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay",
        abstract: "Follow a venue's stream on NATS and serve it to spectators anywhere (read-only, gather.v2, no database)."
    )

    @OptionGroup var nats: NATSOptions

    @Option(name: .customLong("venue"), help: "The venue to follow (its --venue; a-z, 0-9, '-').")
    var venueOption: String

    @Option(name: .customLong("venue-key"),
            help: "The venue's public key (base64, from its banner or /healthz venueKey), or @FILE holding it.")
    var venueKeyOption: String?

    @Option(name: .customLong("stream"), help: "The JetStream stream to read (default GATHER_<venue>; on a hub, the mirror's name).")
    var streamOption: String?

    @Option(help: "Address to listen on.")
    var host = "0.0.0.0"

    @Option(help: "Port of the pages and /live (plain ws://, or wss:// with --tls-cert; 0 picks a free port).")
    var port = 8080

    @Option(name: .customLong("tls-cert"), help: "Certificate (PEM) to serve over TLS; needs --tls-key.")
    var certificatePath: String?

    @Option(name: .customLong("tls-key"), help: "The private key of --tls-cert (PEM).")
    var privateKeyPath: String?

    @Option(name: .customLong("public"), help: "Folder of the static pages.")
    var publicDirectory = "Public"

    @Option(name: .customLong("relay-id"), help: "This relay's name in its watcher reports (default: host name and process id).")
    var relayIDOption: String?

    @Option(name: .customLong("max-connections"), help: "Most WebSocket connections at once.")
    var maximumConnections = 20_000

    @Option(name: .customLong("max-connections-per-address"), help: "Most connections one address may hold.")
    var maximumConnectionsPerAddress = 100

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    var venue: VenueName { VenueName(venueOption)! }
    /// Checked by `validate`, so present and usable by the time `run` asks.
    var venueKey: Ed25519PublicKey { try! parseVenueKey(venueKeyOption) }
    var streamName: String { streamOption ?? venue.streamName }
    var relayID: String {
        relayIDOption ?? "\(VenueName.fromHostName()?.rawValue ?? "relay")-\(ProcessInfo.processInfo.processIdentifier)"
    }

    func validate() throws {
        guard nats.url != nil else { throw ValidationError("gather relay needs --nats URL: the NATS server that holds the venue's stream.") }
        _ = try parseVenue(venueOption)
        if let streamOption {
            guard (1...64).contains(streamOption.utf8.count),
                  streamOption.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x2E && $0 != 0x2A && $0 != 0x3E && $0 != 0x2F })
            else { throw ValidationError("--stream must be a JetStream stream name (no spaces, '.', '*', '>' or '/').") }
        }
        if let relayIDOption {
            guard VenueName(relayIDOption) != nil else { throw ValidationError("--relay-id must be \(VenueName.rule).") }
        }
        try requireInRange(port, 0...65_535, option: "--port")
        guard (certificatePath == nil) == (privateKeyPath == nil) else {
            throw ValidationError("--tls-cert and --tls-key go together.")
        }
        try requireInRange(maximumConnections, 1...1_000_000, option: "--max-connections")
        try requireInRange(maximumConnectionsPerAddress, 1...100_000, option: "--max-connections-per-address")
        try requireReadableFolder(publicDirectory)
        _ = try parseVenueKey(venueKeyOption)
    }

    func run() throws {
        do {
            try Relay.run(options: self)
        } catch let failure as StartupFailure {
            FileHandle.standardError.write(Data("gather: \(failure.description)\n".utf8))
            throw ExitCode(failure.exitCode)
        }
    }
}

/// `--venue-key KEY` of `gather relay`: the venue's Ed25519 public key, 32 bytes in standard base64,
/// given as is or as `@FILE` holding that text. A relay without it would believe anyone.
func parseVenueKey(_ text: String?) throws -> Ed25519PublicKey {
    guard let text else {
        throw ValidationError("gather relay needs --venue-key KEY: the venue's public key, from its banner or its /healthz "
                              + "(venueKey); a relay believes only what that key signed.")
    }
    return try parsePublicKey(text, option: "--venue-key", whose: "the venue's", shownBy: "the venue's banner and /healthz")
}

/// An Ed25519 public key as `--venue-key` and `--club-key` take it: 32 bytes in standard base64,
/// as is or as `@FILE` holding that text.
func parsePublicKey(_ text: String, option: String, whose: String, shownBy: String) throws -> Ed25519PublicKey {
    var encoded = text
    if text.hasPrefix("@") {
        let path = String(text.dropFirst())
        guard let data = FileManager.default.contents(atPath: path), data.count <= 1_024 else {
            throw ValidationError("\(option) @\(path.prefix(256)): not a readable file of at most 1 KiB.")
        }
        encoded = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
    guard let raw = Base64.decoded(encoded), raw.count == 32, let key = Ed25519PublicKey(rawBytes: raw) else {
        throw ValidationError("\(option) is not \(whose) key: it must be 32 bytes in base64 (44 characters ending in "
                              + "'='), as \(shownBy) show it.")
    }
    return key
}
