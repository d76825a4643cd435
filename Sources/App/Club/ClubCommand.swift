import ArgumentParser
import ClubMail
import ClubModel
import Foundation
import GatherStream
import Logging

/// `gather club`: the club service that keeps the group's week (who is coming on Sunday), always
/// on, on PostgreSQL; several instances may serve one club behind a load balancer.
struct ClubCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "club",
        abstract: "The club's week on PostgreSQL: members answer from a personal link, guests, a waitlist, offers.",
        subcommands: [ClubServeCommand.self, ClubOrganisersCommand.self]
    )
}

/// `gather club serve`.
struct ClubServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the club's pages, its JSON API under /club/api/ and /club/live (plain HTTP without --tls-cert, for behind nginx)."
    )

    @Option(name: .customLong("postgres"),
            help: "PostgreSQL connection URL (postgresql://USER@HOST:PORT/DB); the password from PGPASSWORD keeps it out of `ps`.")
    var postgresURL: String

    @Option(help: "Address to listen on.")
    var host = "0.0.0.0"

    @Option(help: "Port of the pages, the API and /club/live (0 picks a free port).")
    var port = 8444

    @Option(name: .customLong("tls-cert"), help: "Certificate (PEM) to serve over TLS; needs --tls-key.")
    var certificatePath: String?

    @Option(name: .customLong("tls-key"), help: "The private key of --tls-cert (PEM).")
    var privateKeyPath: String?

    @Option(name: .customLong("public"), help: "Folder of the static pages (the club's are in its club/ folder).")
    var publicDirectory = "Public"

    @Option(name: .customLong("public-url"),
            help: "The address members and organisers open, e.g. https://club.example.org (default: each request's Host).")
    var publicURL: String?

    @Option(name: .customLong("time-zone"), help: "The club's IANA time zone at its first start (default $TZ, else the system's).")
    var timeZone: String?

    @Option(name: .customLong("invite-code"),
            help: "Organisers' invite code at the first start (visible in `ps`: prefer GATHER_INVITE_CODE).")
    var inviteCodeOption: String?

    @Option(name: .customLong("smtp"),
            help: "Mail through this SMTP server: smtp://[USER:PASS@]HOST[:PORT] (STARTTLS required) or smtps://… (a password is visible in `ps`: prefer GATHER_SMTP_URL).")
    var smtpOption: String?

    @Option(name: .customLong("mail-from"), help: "The address the club's mail comes from (with --smtp).")
    var mailFrom: String?

    @Option(name: .customLong("smtp-ca"), help: "A CA certificate (PEM) trusted for the SMTP server besides the system's.")
    var smtpCA: String?

    @Flag(name: .customLong("smtp-plain"), help: "SMTP without TLS (a relay on this machine only); refused with a user or password.")
    var smtpPlain = false

    @Flag(name: .customLong("test-clock"), help: "For tests: POST /club/api/test/clock moves the club's clock (loopback --host only).")
    var testClock = false

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    /// The hub's NATS, where the club publishes each date's list (with --club).
    @OptionGroup var nats: NATSOptions

    @Option(name: .customLong("club"),
            help: "The club's name on NATS (\(ClubName.rule)): its stream CLUB_NAME and subjects club.NAME.dates.DID; needs --nats.")
    var clubText: String?

    /// `--club`, checked by `validate`.
    var clubName: ClubName? { clubText.flatMap(ClubName.init) }

    /// `--venue`, `--venue-key`, `--venue-stream`: the venue whose results the club follows.
    @OptionGroup var venueResults: ClubVenueOptions

    var inviteCode: String? {
        inviteCodeOption ?? ProcessInfo.processInfo.environment["GATHER_INVITE_CODE"].flatMap { $0.isEmpty ? nil : $0 }
    }

    var smtpURL: String? {
        smtpOption ?? ProcessInfo.processInfo.environment["GATHER_SMTP_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The SMTP link, checked (nil without --smtp).
    func smtpSettings() throws -> SMTPSettings? {
        guard let smtpURL else { return nil }
        do {
            return try SMTPSettings(url: smtpURL, caFile: smtpCA, plain: smtpPlain)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func validate() throws {
        _ = try smtpSettings()
        if smtpURL != nil {
            guard let mailFrom, (try? ClubInput.email(mailFrom)) != nil, mailFrom == mailFrom.trimmingCharacters(in: .whitespaces) else {
                throw ValidationError("--smtp needs --mail-from ADDRESS (one plain address, e.g. club@example.org).")
            }
        } else if mailFrom != nil || smtpCA != nil || smtpPlain {
            throw ValidationError("--mail-from, --smtp-ca and --smtp-plain go with --smtp.")
        }
        guard postgresURL.hasPrefix("postgresql://") || postgresURL.hasPrefix("postgres://"), postgresURL.utf8.count <= 1_024 else {
            throw ValidationError("--postgres must be a postgresql:// URL of at most 1,024 characters.")
        }
        try requireInRange(port, 0...65_535, option: "--port")
        guard (certificatePath == nil) == (privateKeyPath == nil) else { throw ValidationError("--tls-cert and --tls-key go together.") }
        try requireReadableFolder(publicDirectory)
        if testClock, !Self.isLoopback(host) {
            throw ValidationError("--test-clock moves the club's clock for anyone who asks: it needs a loopback --host (127.0.0.1 or ::1).")
        }
        if let publicURL {
            guard let url = URL(string: publicURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil,
                  url.query == nil, !publicURL.hasSuffix("/"), publicURL.utf8.count <= 200
            else { throw ValidationError("--public-url must be an http(s) address without a trailing '/', e.g. https://club.example.org.") }
        }
        if venueResults.venueOption != nil, nats.url == nil {
            throw ValidationError("--venue needs --nats URL: the hub that holds the mirror of the venue's stream.")
        }
        if let clubText, ClubName(clubText) == nil {
            throw ValidationError("--club \(clubText.prefix(64)) is not a club name: \(ClubName.rule).")
        }
        guard (clubText == nil) == (nats.url == nil) else {
            throw ValidationError("--nats and --club go together: the club publishes its lists on NATS under its name.")
        }
        if let timeZone, TimeZone(identifier: timeZone) == nil {
            throw ValidationError("--time-zone \(timeZone.prefix(64)) is not an IANA time zone (e.g. Europe/Madrid).")
        }
        if let inviteCode {
            guard (8...64).contains(inviteCode.count),
                  inviteCode.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
            else { throw ValidationError("The invite code (--invite-code or GATHER_INVITE_CODE) must be 8–64 letters, digits, '-' or '_'.") }
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "::1" || host == "localhost" || host.hasPrefix("127.")
    }

    func run() throws {
        do {
            try ClubServer.run(options: self)
        } catch let failure as StartupFailure {
            FileHandle.standardError.write(Data("gather club: \(failure.description)\n".utf8))
            throw ExitCode(failure.exitCode)
        }
    }
}
