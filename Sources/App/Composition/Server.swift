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

        // A folder others can write is one where someone else's listener can stand in for the
        // admin socket: refused before anything is made in it.
        if let refusal = DataFolderOwner.refusal(serving: settings.dataDirectory) {
            throw StartupFailure(description: refusal)
        }
        // Before the database is opened, and held until the process ends (never released: closing
        // it would drop SQLite's own locks too): one server per folder.
        var folderLock = try takeDataFolder(settings.dataDirectory, mayBeMissing: true)
        let store: SQLiteStore
        do {
            store = try SQLiteStore(directory: settings.dataDirectory)
        } catch {
            throw StartupFailure(description: "cannot open the data folder: \(error)")
        }
        if folderLock == nil { folderLock = try takeDataFolder(settings.dataDirectory, mayBeMissing: false) }
        defer { withExtendedLifetime(folderLock) {} }

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

        // Made at the first start, kept after: relays are told its public key once.
        let venueKey: VenueSigningKey
        do {
            venueKey = try VenueSigningKey(dataFolder: settings.dataDirectory)
        } catch {
            throw StartupFailure(description: "\(error)")
        }
        let links = ServerLinks(identity: identity, host: settings.host, hasTrustPage: certificates.caCertificatePath != nil,
                                venue: settings.stream?.venue.rawValue)
        let hasher = PasswordHasher()
        var environment = CoordinatorEnvironment(
            now: { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) },
            newGatherID: { SecureRandom.uuidString() },
            newToken: { SecureRandom.token() },
            hashToken: { Digest.sha256Hex($0) },
            // Kept across restarts by the Coordinator (a printed QR code keeps working);
            // --invite-code replaces it.
            inviteCode: settings.inviteCode,
            decoyPasswordHash: hasher.decoy(),
            organiserAddress: { [links] in links.organiserURL },
            newInviteCode: { SecureRandom.inviteCode() },
            newRefereeCode: { Base64.urlEncoded(SecureRandom.bytes(16)) }
        )
        let epoch = VenueSigningKey.newEpoch(now: environment.now())
        environment.epoch = epoch
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
            publisher = try VenueStream.make(settings: settings.stream, epoch: epoch, signingKey: venueKey.privateKey,
                                             logger: logger) { remoteWatchers.report($0) }
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
                                stream: { VenueStream.healthFields(publisher, version: $0) + venueKey.healthFields(epoch: epoch) },
                                streamMetrics: { VenueStream.metricsText(publisher) },
                                caCertificate: caCertificate,
                                caFingerprint: caCertificate == nil ? nil : certificates.fingerprintSHA256, links: links,
                                metricsReaders: settings.metricsReaders,
                                shell: ShellVersion(root: settings.publicDirectory))
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
            // A reset's new password is hashed here, by the server's own hasher.
            admin = try AdminSocketServer(dataFolder: settings.dataDirectory, logger: logger) { call in
                coordinator.admin(call.request(hashing: { hasher.hash($0) }))
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

        Banner.print(links: links, inviteCode: coordinator.inviteCode(), certificates: certificates, pitches: coordinator.pitchNames(),
                     stream: publisher.map { ($0.venue.rawValue, settings.stream?.endpoint.url ?? "", $0.isConnected) },
                     venueKey: venueKey.publicKeyBase64)
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

    /// The data folder's lock, or a `StartupFailure` naming the PID that holds it. `mayBeMissing`:
    /// before the store has made the folder, an unusable lock file is left for the store to
    /// explain (a file in the way, a read-only folder) and nil returned.
    static func takeDataFolder(_ folder: String, mayBeMissing: Bool) throws -> DataFolderLock? {
        switch DataFolderLock.take(dataFolder: folder) {
        case .success(let lock): return lock
        case .failure(.unusable) where mayBeMissing: return nil
        case .failure(let refusal): throw StartupFailure(description: refusal.sentence(dataFolder: folder))
        }
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
