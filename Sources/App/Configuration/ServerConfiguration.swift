import GatherSecurity
import GatherStream
import Logging

/// Everything `gather serve` was asked for, checked once: the command line (and its environment)
/// becomes this value, and the composition root reads only this value. Tests build it from
/// `ServeCommand.parse([...])` without starting anything.
struct ServerConfiguration: Sendable, Equatable {
    /// Where the TLS certificate comes from.
    enum Certificates: Sendable, Equatable {
        /// The local CA (made on first start) and its server certificate, in this folder.
        case localCA(directory: String)
        /// The operator's own certificate and key (PEM); no CA to trust, no /ca.pem.
        case supplied(certificatePath: String, privateKeyPath: String)
    }

    var host: String
    /// 0 picks a free port.
    var port: Int
    /// nil for no spectator door, 0 for a free port.
    var spectatorPort: Int?
    var dataDirectory: String
    var certificates: Certificates
    var publicDirectory: String
    /// nil: the kept code (made once, on the first start); a code here replaces it.
    var inviteCode: String?
    var maximumConnections: Int
    var maximumConnectionsPerAddress: Int
    /// Who may read `/metrics` besides loopback.
    var metricsReaders: [AddressRange]
    var pingIntervalSeconds: Int
    var stallTimeoutSeconds: Int
    var logLevel: Logger.Level
    /// `--nats`: the venue stream's publisher; nil without it.
    var stream: VenueStreamSettings? = nil
    /// `--club`: the club's lists read from the leaf's mirror; nil without it.
    var club: VenueClubSettings? = nil
}

/// Which club's lists `gather serve --club` reads, and whose key it believes.
struct VenueClubSettings: Sendable, Equatable {
    var endpoint: NATSEndpoint
    var club: ClubName
    var key: Ed25519PublicKey
    var hubDomain: String

    static func == (lhs: VenueClubSettings, rhs: VenueClubSettings) -> Bool {
        lhs.endpoint == rhs.endpoint && lhs.club == rhs.club && lhs.key.rawBytes == rhs.key.rawBytes
            && lhs.hubDomain == rhs.hubDomain
    }
}

/// Where and as which venue `gather serve --nats` publishes.
struct VenueStreamSettings: Sendable, Equatable {
    var endpoint: NATSEndpoint
    var venue: VenueName
    /// Said once at start when the password came from the command line.
    var passwordWarning: String?
}
