import ArgumentParser
import Foundation
import GatherStream
import Logging

/// `gather serve`: start the server with the options of the README.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the pages and the live WebSocket over TLS, and a read-only plain-HTTP door for spectators."
    )

    @Option(help: "Address to listen on (0.0.0.0 for every IPv4 interface, :: for IPv6 too).")
    var host = "0.0.0.0"

    @Option(help: "TLS port for the pages and wss://HOST:PORT/live (0 picks a free port).")
    var port = 8443

    @Option(name: .customLong("spectator-port"),
            help: "Plain-HTTP port where spectators watch without installing anything (read-only; 0 turns it off, auto picks a free one).")
    var spectatorPort: SpectatorPort = .port(8080)

    @OptionGroup var data: DataOptions

    @OptionGroup var certificateFolder: CertificateOptions
    var certificateDirectory: String { certificateFolder.certificateDirectory }

    @Option(name: .customLong("tls-cert"), help: "Your own server certificate (PEM); needs --tls-key.")
    var tlsCertificatePath: String?

    @Option(name: .customLong("tls-key"), help: "The private key of --tls-cert (PEM).")
    var tlsPrivateKeyPath: String?

    /// The first spelling, kept working for scripts written before `serve` and `relay` shared one.
    @Option(name: .customLong("cert"), help: .hidden)
    var shortCertificatePath: String?

    @Option(name: .customLong("key"), help: .hidden)
    var shortPrivateKeyPath: String?

    var certificatePath: String? { tlsCertificatePath ?? shortCertificatePath }
    var privateKeyPath: String? { tlsPrivateKeyPath ?? shortPrivateKeyPath }

    @Option(name: .customLong("public"), help: "Folder of the static pages.")
    var publicDirectory = "Public"

    @Option(name: .customLong("invite-code"),
            help: """
                Code organisers need to register, 8–64 characters; replaces the kept one (default: \
                --invite-code-file, else GATHER_INVITE_CODE, else the kept code, made once). Other users \
                of this computer see it in `ps`; --invite-code-file and GATHER_INVITE_CODE keep it out.
                """)
    var inviteCodeOption: String?

    @Option(name: .customLong("invite-code-file"),
            help: "A file holding the invite code (its text, line end ignored); unlike --invite-code, it stays out of `ps`.")
    var inviteCodeFile: String?

    @Option(name: .customLong("max-connections"), help: "Most WebSocket connections at once.")
    var maximumConnections = 20_000

    @Option(name: .customLong("max-connections-per-address"),
            help: "Most connections one address may hold; a WebSocket handshake beyond it is answered 429.")
    var maximumConnectionsPerAddress = 100

    @Option(name: .customLong("metrics-from"),
            help: "Also answer /metrics to this network (CIDR, e.g. 192.168.1.0/24); by default loopback only.")
    var metricsFrom: String?

    @Option(name: .customLong("ping-interval"),
            help: "Seconds of silence before a connection is pinged; it is closed if it stays silent as long again.")
    var pingIntervalSeconds = 30

    @Option(name: .customLong("stall-timeout"),
            help: "Seconds a connection may leave its messages unread before it is closed.")
    var stallTimeoutSeconds = 30

    @OptionGroup var nats: NATSOptions

    @Option(name: .customLong("venue"), help: "The venue's name on the NATS stream (default: the host name; a-z, 0-9, '-').")
    var venueOption: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    @Option(name: .customLong("club"),
            help: "Read the club NAME's lists (its stream CLUB_NAME, mirrored on --nats's leaf); needs --nats and --club-key.")
    var clubOption: String?

    @Option(name: .customLong("club-key"),
            help: "The club's public key (base64, from `gather club serve`'s banner or clubKey), or @FILE holding it.")
    var clubKeyOption: String?

    @Option(name: .customLong("club-domain"), help: "The hub's JetStream domain the club's stream is in.")
    var clubDomain = "hub"

    func validate() throws {
        _ = try serverConfiguration()
    }

    func run() throws {
        do {
            try Server.run(configuration: serverConfiguration())
        } catch let failure as StartupFailure {
            FileHandle.standardError.write(Data("gather: \(failure.description)\n".utf8))
            throw ExitCode(failure.exitCode)
        }
    }

    /// The options checked and turned into the one value the server is built from; each bad
    /// option is a `ValidationError` that names it and the values it takes.
    func serverConfiguration() throws -> ServerConfiguration {
        try requireInRange(port, 0...65_535, option: "--port")
        if case .port(let number) = spectatorPort, number == port, port != 0 {
            throw ValidationError("--spectator-port must differ from --port.")
        }
        try requireInRange(maximumConnectionsPerAddress, 1...100_000, option: "--max-connections-per-address")
        var metricsReaders: [AddressRange] = []
        if let metricsFrom {
            guard let range = AddressRange(cidr: metricsFrom) else {
                throw ValidationError("--metrics-from must be a network such as 192.168.1.0/24 or fd00::/8.")
            }
            metricsReaders.append(range)
        }
        if tlsCertificatePath != nil && shortCertificatePath != nil || tlsPrivateKeyPath != nil && shortPrivateKeyPath != nil {
            throw ValidationError("--cert and --key are the old names of --tls-cert and --tls-key: give each once.")
        }
        let certificates: ServerConfiguration.Certificates
        switch (certificatePath, privateKeyPath) {
        case (nil, nil): certificates = .localCA(directory: certificateDirectory)
        case (let certificate?, let key?): certificates = .supplied(certificatePath: certificate, privateKeyPath: key)
        default:
            // Named as typed: the old spelling's user reads the old names.
            let names = shortCertificatePath != nil || shortPrivateKeyPath != nil ? "--cert and --key" : "--tls-cert and --tls-key"
            throw ValidationError("\(names) go together: give both, or neither to use the local CA.")
        }
        let inviteCode = try InviteCodeSource.resolve(option: inviteCodeOption, file: inviteCodeFile,
                                                      environment: ProcessInfo.processInfo.environment)
        if let inviteCode {
            guard (8...64).contains(inviteCode.count),
                  inviteCode.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
            else {
                throw ValidationError("""
                    The invite code (--invite-code, --invite-code-file or GATHER_INVITE_CODE) must be 8–64 letters, \
                    digits, '-' or '_'.
                    """)
            }
        }
        try requireInRange(maximumConnections, 1...1_000_000, option: "--max-connections")
        try requireInRange(stallTimeoutSeconds, 1...3_600, option: "--stall-timeout", unit: " seconds")
        try requireInRange(pingIntervalSeconds, 1...3_600, option: "--ping-interval", unit: " seconds")
        try requireReadableFolder(publicDirectory)
        guard host.utf8.count <= 255, !host.isEmpty else { throw ValidationError("--host must be an address.") }
        return ServerConfiguration(
            host: host, port: port, spectatorPort: spectatorPort.bindPort, dataDirectory: data.dataDirectory,
            certificates: certificates, publicDirectory: publicDirectory, inviteCode: inviteCode,
            maximumConnections: maximumConnections, maximumConnectionsPerAddress: maximumConnectionsPerAddress,
            metricsReaders: metricsReaders, pingIntervalSeconds: pingIntervalSeconds,
            stallTimeoutSeconds: stallTimeoutSeconds, logLevel: logLevel, stream: try streamSettings(),
            club: try clubSettings())
    }
}

extension ServeCommand {
    /// `--nats` and `--venue` checked: nil without `--nats` (a `--venue` alone is still checked).
    func streamSettings() throws -> VenueStreamSettings? {
        try nats.validate()
        let venue = nats.url != nil || venueOption != nil ? try parseVenue(venueOption) : nil
        guard let venue, let endpoint = nats.endpoint(clientName: "gather serve \(venue)") else { return nil }
        return VenueStreamSettings(endpoint: endpoint, venue: venue, passwordWarning: nats.passwordWarning)
    }
}

extension ServeCommand {
    /// `--club`, `--club-key` and `--club-domain` checked: nil without `--club`.
    func clubSettings() throws -> VenueClubSettings? {
        guard let clubOption else {
            if clubKeyOption != nil { throw ValidationError("--club-key needs --club NAME.") }
            return nil
        }
        guard let club = ClubName(clubOption) else {
            throw ValidationError("--club \(clubOption.prefix(64)) is not a club name: \(ClubName.rule).")
        }
        guard let endpoint = nats.endpoint(clientName: "gather serve club \(club)") else {
            throw ValidationError("--club needs --nats URL: the lists come through the laptop's NATS leaf.")
        }
        guard let clubKeyOption else {
            throw ValidationError("--club needs --club-key KEY: the club's public key; the venue believes only what it signed.")
        }
        guard VenueName(clubDomain) != nil || clubDomain.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }),
              (1...32).contains(clubDomain.utf8.count)
        else { throw ValidationError("--club-domain must be a JetStream domain name (1–32 letters, digits or '-').") }
        let key = try parsePublicKey(clubKeyOption, option: "--club-key", whose: "the club's",
                                     shownBy: "`gather club serve`'s banner and clubKey")
        return VenueClubSettings(endpoint: endpoint, club: club, key: key, hubDomain: clubDomain)
    }
}

/// `--spectator-port`: a port number, `0` for no spectator door, or `auto` for a free port (the
/// banner's `gather: spectator port N` line says which; tests use it instead of guessing one).
enum SpectatorPort: ExpressibleByArgument, Equatable {
    case off
    case port(Int)
    case auto

    init?(argument: String) {
        if argument == "auto" { self = .auto; return }
        guard let number = Int(argument), (0...65_535).contains(number) else { return nil }
        self = number == 0 ? .off : .port(number)
    }

    /// What the Transport binds: nil for none, 0 for a free port.
    var bindPort: Int? {
        switch self {
        case .off: nil
        case .port(let number): number
        case .auto: 0
        }
    }

    var defaultValueDescription: String { "8080" }
}
