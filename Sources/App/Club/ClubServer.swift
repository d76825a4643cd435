import ClubCoordinator
import ClubMail
import ClubStore
import Dispatch
import Foundation
import GatherSecurity
import GatherTransport
import Logging

/// The composition root of `gather club serve`: the PostgreSQL store, the club's scope, the
/// Transport (pages, the API, `/club/live`) and the clock that expires offers. Nothing on disk:
/// everything the club knows is in the database, so any number of instances can serve it.
enum ClubServer {
    static func run(options: ClubServeCommand) throws {
        let signals = SignalWaiter(signals: [SIGINT, SIGTERM])
        InterruptForwarding.install { signals.deliver($0) }
        let logger = ServerLogging.makeLogger(level: options.logLevel)

        let store: ClubStore
        let settings: ClubSettings
        do {
            store = try ClubStore(url: options.postgresURL, logger: logger)
            settings = try store.ensureClub(ClubSettings(
                name: "Club", timeZone: options.timeZone ?? defaultTimeZone(), language: "en",
                inviteCode: options.inviteCode ?? SecureRandom.inviteCode(), linkSecret: MemberLinks.newSecret(),
                signingKeyPEM: String(decoding: try Ed25519PrivateKey.generate().pem(), as: UTF8.self)))
        } catch {
            throw StartupFailure(description: "cannot open the club's database: \(error)")
        }
        let smtp: SMTPSettings?
        let sender: SMTPSender?
        do {
            smtp = try options.smtpSettings()
            sender = try smtp.map { settings throws in try SMTPSender(settings: settings) }
        } catch {
            throw StartupFailure(description: "cannot mail: \(error)")
        }
        let mail = smtp.map { _ in
            ClubService.MailConfiguration(fromAddress: options.mailFrom ?? "", messageHost: messageHost(options))
        }
        let serviceConfiguration = ClubService.Configuration(publicURL: options.publicURL, testClock: options.testClock,
                                                             mail: mail)
        let service = ClubService(store: store, configuration: serviceConfiguration, logger: logger)
        let live = ClubLive(store: store, logger: logger)
        // Back from the pitch: the venue's results through the hub (nil without --venue).
        let results = try ClubResults.make(options: options, service: service, logger: logger)
        let routes = ClubRoutes(publicDirectory: options.publicDirectory, publicURL: options.publicURL,
                                shell: ShellVersion(root: options.publicDirectory),
                                health: { [venue = options.venueResults.venueOption] in ClubResults.healthFields(results, venue: venue) })

        let tls = options.certificatePath.flatMap { certificate in
            options.privateKeyPath.map { TLSListener(port: options.port, certificatePath: certificate, privateKeyPath: $0) }
        }
        var configuration = TransportConfiguration(
            host: options.host, tls: tls, spectatorPort: tls == nil ? options.port : nil, protocols: [.club],
            publicDirectory: options.publicDirectory, dynamicRoutes: { routes.respond(to: $0) })
        configuration.livePath = "/club/live"
        configuration.plainListener = .behindProxy
        // Bodies up to 64 KiB are read and refused by the scope as `invalid` (the contract's error
        // shape, 16 KiB at most is valid); beyond that the Transport answers 413 unread.
        var api = APIRoutes(
            prefix: ClubRoute.apiPrefix, maximumBodyBytes: 65_536, maximumPendingPerAddress: 64, timeoutSeconds: 30,
            handle: { request, reply in
                service.handle(ClubRoutes.clubRequest(request)) { response in
                    _ = reply.send(HTTPResponse(status: response.status, contentType: response.contentType, body: response.body,
                                                extraHeaders: [("Cache-Control", "no-store")]))
                }
            })
        api.alsoAnswers = ClubRoutes.isCalendar
        configuration.api = api
        let server = LiveServer(configuration: configuration, logger: logger, source: live)
        live.attach(server)

        let lists = try startListPublisher(options: options, service: service, settings: settings, logger: logger)

        let listener: PostgresListener
        do {
            // A payload is date ids joined by ",", or "*" when the club itself changed; after a
            // lost connection every page reads again (notifications may have been missed).
            listener = try store.listen(queue: DispatchQueue(label: "club.notifications")) { event in
                switch event {
                case .notification(_, let payload):
                    let ids = payload == "*" ? [] : payload.split(separator: ",").map(String.init)
                    live.datesChanged(ids)
                    lists?.datesChanged(ids)
                case .listening(reconnected: true):
                    live.datesChanged([])
                    lists?.datesChanged([])
                case .listening(reconnected: false): break
                }
            }
        } catch {
            throw StartupFailure(description: "cannot listen for the club's changes: \(error)")
        }
        let ports: ListeningPorts
        do {
            ports = try server.start()
        } catch {
            throw StartupFailure(description: "cannot start the club: \(error)")
        }
        do {
            try results?.start()
        } catch {
            throw StartupFailure(description: "cannot follow the venue's results: \(error)")
        }
        let port = ports.tls ?? ports.spectator ?? options.port
        let linkBase = "\(tls == nil ? "http" : "https")://\(ClubBanner.shownHost(options.host)):\(port)"
        let mailer = sender.flatMap { ClubMailer(service: service, transport: $0, linkBase: linkBase, logger: logger) }
        let clock = ClubClock(service: service, mailer: mailer, logger: logger)
        clock.start()
        if let smtp {
            // The host and the TLS mode only: the URL may hold a password.
            logger.info("club mail on", metadata: ["club.smtp.host": "\(smtp.host)", "club.smtp.security": "\(smtp.security)"])
        }
        ClubBanner.print(port: port, tls: tls != nil, options: options, settings: settings)
        logger.info("club serving", metadata: ["club.port": "\(port)", "club.timeZone": "\(settings.timeZone)"])

        let received = signals.wait()
        logger.notice("shutting down", metadata: ["signal": "\(received)"])
        clock.stop()
        results?.stop()
        lists?.stop()
        server.shutdown()
        listener.stop()
        store.close()
    }

    /// The Message-ID's right side: the host of `--public-url`, else `--host`.
    static func messageHost(_ options: ClubServeCommand) -> String {
        let host = options.publicURL.flatMap { URL(string: $0)?.host } ?? options.host
        return host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host  // an IPv6 literal, bracketed
    }

    /// With `--nats` and `--club`: the club's NATS link and the lists it publishes (nil without).
    private static func startListPublisher(options: ClubServeCommand, service: ClubService, settings: ClubSettings,
                                           logger: Logger) throws -> ClubListPublisher? {
        guard let club = options.clubName, let endpoint = options.nats.endpoint(clientName: "gather-club-\(club)") else {
            return nil
        }
        if let warning = options.nats.passwordWarning { logger.warning("\(warning)") }
        guard let key = Ed25519PrivateKey.load(pem: Data(settings.signingKeyPEM.utf8)) else {
            throw StartupFailure(description: "the club's signing key in the database cannot be read")
        }
        let publisher = try ClubListPublisher(service: service, endpoint: endpoint, club: club, key: key, logger: logger)
        do {
            try publisher.start()
        } catch {
            throw StartupFailure(description: "cannot use NATS: \(error)")
        }
        logger.info("publishing the club's lists", metadata: ["club.stream": "\(club.streamName)"])
        return publisher
    }

    /// `$TZ`, else the zone `/etc/localtime` names, else UTC.
    static func defaultTimeZone() -> String {
        if let zone = ProcessInfo.processInfo.environment["TZ"], TimeZone(identifier: zone) != nil { return zone }
        return TimeZone.current.identifier
    }
}

/// Moves the club on with time, on every instance: about twice a second, expired offers become
/// `out` and the walk goes on (Precision 9: within 1 s), reminders that have come are claimed and
/// the mail due is sent; the dates' window is kept filled.
final class ClubClock: @unchecked Sendable {
    private let service: ClubService
    private let mailer: ClubMailer?
    private let logger: Logger
    private let queue = DispatchQueue(label: "club.clock")
    private var timer: DispatchSourceTimer?

    init(service: ClubService, mailer: ClubMailer?, logger: Logger) {
        self.service = service
        self.mailer = mailer
        self.logger = logger
    }

    func start() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .milliseconds(500), repeating: .milliseconds(500), leeway: .milliseconds(100))
        var sweeps = 0
        timer.setEventHandler { [service, mailer, logger] in
            // The window's new dates once a minute (every 120th sweep), the offers every sweep.
            defer { sweeps += 1 }
            do {
                try service.sweep(fillingWindow: sweeps % 120 == 0)
            } catch {
                logger.warning("club clock: sweep failed", metadata: ["club.error": "\(error)"])
            }
            // Mail claimed by this sweep, a change or another instance: sent off the clock's
            // queue (an SMTP conversation may take seconds).
            mailer?.poke()
        }
        self.timer = timer
        timer.resume()
    }

    func stop() {
        timer?.cancel()
        timer = nil
    }
}
