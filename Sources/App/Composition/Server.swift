import Dispatch
import Foundation
import GatherCertificates
import GatherCoordinator
import GatherSecurity
import GatherStore
import GatherStream
import GatherTransport
import Logging
import Synchronization

/// The composition root of `gather serve`: builds every part, wires them, runs until a signal.
enum Server {
    static func run(configuration settings: ServerConfiguration) throws {
        // Before anything can print the ready line: a signal right after it must shut down cleanly.
        let signals = SignalWaiter(signals: [SIGINT, SIGTERM])
        InterruptForwarding.install { signals.deliver($0) }
        let logger = ServerLogging.makeLogger(level: settings.logLevel)

        let store: SQLiteStore
        do {
            store = try SQLiteStore(directory: settings.dataDirectory)
        } catch {
            throw StartupFailure(description: "cannot open the data folder: \(error)")
        }

        for warning in store.warnings {
            FileHandle.standardError.write(Data("gather: warning: \(warning)\n".utf8))
        }

        let identity = MachineIdentity.current()
        let certificates: CertificateBundle
        do {
            switch settings.certificates {
            case .supplied(let certificatePath, let privateKeyPath):
                certificates = try CertificateAuthority.userSupplied(certificatePath: certificatePath,
                                                                     privateKeyPath: privateKeyPath)
            case .localCA(let directory):
                certificates = try CertificateAuthority.ensure(in: directory, identity: identity)
            }
        } catch {
            throw StartupFailure(description: "certificate problem: \(error)")
        }
        // Once, before the banner: a CA phones trust is never replaced without the operator.
        for warning in certificates.warnings {
            FileHandle.standardError.write(Data("gather: warning: \(warning)\n".utf8))
        }

        // Kept across restarts (a printed QR code keeps working); --invite-code replaces it.
        let inviteCode: String
        do {
            inviteCode = try keptInviteCode(store: store, replacement: settings.inviteCode)
        } catch {
            throw StartupFailure(description: "cannot keep the invite code: \(error)")
        }
        let links = ServerLinks(identity: identity, host: settings.host, hasTrustPage: certificates.caCertificatePath != nil,
                                venue: settings.stream?.venue.rawValue)
        let hasher = PasswordHasher()
        let environment = CoordinatorEnvironment(
            now: { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) },
            newGatherID: { SecureRandom.uuidString() },
            newToken: { SecureRandom.token() },
            hashToken: { Digest.sha256Hex($0) },
            inviteCode: inviteCode,
            decoyPasswordHash: hasher.hash(SecureRandom.token()),
            organiserAddress: { [links] in links.organiserURL },
            newInviteCode: { SecureRandom.inviteCode() }
        )
        let passwords = PasswordService(hash: { hasher.hash($0) }, verify: { hasher.verify($0, against: $1) })

        // The Transport and the Coordinator need each other: the Coordinator's deliveries go to the
        // server, the server's events to the Coordinator. The server is made second, so the first
        // deliveries (the start-up snapshot) wait in this box until it exists.
        let transport = TransportBox()
        // The stream's publisher only takes the deliveries into its bounded queue: NATS never
        // slows the Coordinator or the Wi-Fi.
        let remoteWatchers = RemoteWatchersBox()
        let publisher: VenuePublisher?
        do {
            publisher = try VenueStream.make(settings: settings.stream, logger: logger) { remoteWatchers.report($0) }
        } catch {
            throw StartupFailure(description: "\(error)")
        }
        let coordinator: GatherCoordinator
        do {
            coordinator = try GatherCoordinator(store: store, environment: environment, passwords: passwords,
                                                logger: logger, deliver: { deliveries in
                                                    transport.server?.deliver(deliveries)
                                                    publisher?.enqueue(deliveries)
                                                })
        } catch {
            throw StartupFailure(description: "cannot load the saved gather: \(error)")
        }

        let caCertificate = try certificates.caCertificatePath.map { path in
            guard let pem = FileManager.default.contents(atPath: path) else {
                throw StartupFailure(description: "cannot read the local CA certificate \(path)")
            }
            return [UInt8](pem)
        }
        let routes = HTTPRoutes(metrics: coordinator.metrics, exports: coordinator.exports,
                                connections: { transport.server?.connectionCount ?? 0 },
                                fanOut: { transport.server?.fanOut.read() ?? FanOutMetrics.Reading() },
                                stream: { VenueStream.healthFields(publisher) },
                                streamMetrics: { VenueStream.metricsText(publisher) },
                                caCertificate: caCertificate,
                                caFingerprint: caCertificate == nil ? nil : certificates.fingerprintSHA256, links: links,
                                metricsReaders: settings.metricsReaders)
        var configuration = TransportConfiguration(
            host: settings.host, port: settings.port,
            certificatePath: certificates.certificatePath, privateKeyPath: certificates.privateKeyPath,
            publicDirectory: settings.publicDirectory,
            dynamicRoutes: { request in routes.respond(to: request) })
        configuration.maximumConnections = settings.maximumConnections
        configuration.maximumConnectionsPerAddress = settings.maximumConnectionsPerAddress
        configuration.spectatorPort = settings.spectatorPort
        configuration.pingIntervalSeconds = settings.pingIntervalSeconds
        configuration.stalledTimeoutSeconds = settings.stallTimeoutSeconds
        let server = LiveServer(configuration: configuration, logger: logger, source: coordinator)
        transport.server = server

        // The laptop's `gather organisers …` reaches this running server here.
        let admin: AdminSocketServer
        do {
            admin = try AdminSocketServer(dataFolder: settings.dataDirectory, logger: logger) { request in
                coordinator.admin(request)
            }
        } catch {
            throw StartupFailure(description: "\(error)")
        }

        coordinator.start()
        remoteWatchers.connect { coordinator.remoteSpectatorsCounted($0) }
        do {
            try publisher?.start()
        } catch {
            throw StartupFailure(description: "\(error)")
        }
        admin.start()
        let ports: ListeningPorts
        do {
            ports = try server.start()
        } catch {
            admin.stop()
            throw StartupFailure(description: "cannot start the server: \(error)")
        }
        links.bind(tlsPort: ports.tls ?? 0, spectatorPort: ports.spectator)

        Banner.print(links: links, inviteCode: inviteCode, certificates: certificates, pitches: coordinator.pitchNames(),
                     stream: publisher.map { ($0.venue.rawValue, settings.stream?.endpoint.url ?? "", $0.isConnected) })
        logger.info("serving", metadata: ["server.host": "\(settings.host)", "server.port": "\(ports.tls ?? 0)",
                                          "server.spectator_port": "\(ports.spectator.map(String.init) ?? "off")",
                                          "store.version": "\(coordinator.metrics.read().version)"])

        let received = signals.wait()
        logger.notice("shutting down", metadata: ["signal": "\(received)"])
        admin.stop()
        server.shutdown()
        coordinator.stop()
        publisher?.stop()
    }

    /// The stored invite code, replaced by `replacement` when one was given; a new random one the
    /// first time.
    static func keptInviteCode(store: SQLiteStore, replacement: String?) throws -> String {
        if let replacement {
            try store.setInviteCode(replacement)
            return replacement
        }
        if let kept = try store.inviteCode() { return kept }
        let fresh = SecureRandom.inviteCode()
        try store.setInviteCode(fresh)
        return fresh
    }
}

/// The relays' spectator count, heard by the publisher before the Coordinator exists.
private final class RemoteWatchersBox: Sendable {
    private let state = Mutex<(sink: (@Sendable (Int) -> Void)?, last: Int)>((nil, 0))

    func report(_ count: Int) {
        let sink = state.withLock { value in
            value.last = count
            return value.sink
        }
        sink?(count)
    }

    func connect(_ sink: @escaping @Sendable (Int) -> Void) {
        let count = state.withLock { value in
            value.sink = sink
            return value.last
        }
        if count > 0 { sink(count) }
    }
}
