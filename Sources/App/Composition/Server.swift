import Dispatch
import Foundation
import GatherCertificates
import GatherCoordinator
import GatherSecurity
import GatherStore
import GatherTransport
import Logging

/// The composition root of `gather serve`: builds every part, wires them, runs until a signal.
enum Server {
    static func run(options: ServeCommand) throws {
        // Before anything can print the ready line: a signal right after it must shut down cleanly.
        let signals = SignalWaiter(signals: [SIGINT, SIGTERM])
        let logger = ServerLogging.makeLogger(level: ServerLogging.level(named: options.logLevel) ?? .info)

        let store: SQLiteStore
        do {
            store = try SQLiteStore(directory: options.dataDirectory)
        } catch {
            throw StartupFailure(description: "cannot open the data folder: \(error)")
        }

        let identity = MachineIdentity.current()
        let certificates: CertificateBundle
        do {
            if let certificatePath = options.certificatePath, let privateKeyPath = options.privateKeyPath {
                certificates = try CertificateAuthority.userSupplied(certificatePath: certificatePath,
                                                                     privateKeyPath: privateKeyPath)
            } else {
                certificates = try CertificateAuthority.ensure(in: options.certificateDirectory, identity: identity)
            }
        } catch {
            throw StartupFailure(description: "certificate problem: \(error)")
        }

        let inviteCode = options.inviteCode ?? SecureRandom.inviteCode()
        let hasher = PasswordHasher()
        let environment = CoordinatorEnvironment(
            now: { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) },
            newGatherID: { SecureRandom.uuidString() },
            newToken: { SecureRandom.token() },
            hashToken: { Digest.sha256Hex($0) },
            inviteCode: inviteCode,
            decoyPasswordHash: hasher.hash(SecureRandom.token())
        )
        let passwords = PasswordService(hash: { hasher.hash($0) }, verify: { hasher.verify($0, against: $1) })

        let bridge = TransportBridge()
        let coordinator: GatherCoordinator
        do {
            coordinator = try GatherCoordinator(store: store, environment: environment, passwords: passwords,
                                                logger: logger, deliver: bridge.deliver)
        } catch {
            throw StartupFailure(description: "cannot load the saved gather: \(error)")
        }
        bridge.coordinator = coordinator

        let links = ServerLinks(identity: identity, host: options.host)
        let routes = HTTPRoutes(store: store, metrics: coordinator.metrics, connections: { bridge.connectionCount },
                                fanOut: { bridge.server?.fanOut.read() ?? FanOutMetrics.Reading() },
                                caCertificatePath: certificates.caCertificatePath, links: links)
        var configuration = TransportConfiguration(
            host: options.host, port: options.port,
            certificatePath: certificates.certificatePath, privateKeyPath: certificates.privateKeyPath,
            publicDirectory: options.publicDirectory,
            dynamicRoutes: { request in routes.respond(to: request) })
        configuration.maximumConnections = options.maximumConnections
        configuration.pingIntervalSeconds = options.pingIntervalSeconds
        configuration.stalledTimeoutSeconds = options.stallTimeoutSeconds
        let server = LiveServer(configuration: configuration, logger: logger, delegate: bridge)
        bridge.server = server

        coordinator.start()
        let port: Int
        do {
            port = try server.start()
        } catch {
            throw StartupFailure(description: "cannot start the server: \(error)")
        }
        links.port = port

        Banner.print(links: links, inviteCode: inviteCode, certificates: certificates)
        logger.info("serving", metadata: ["server.host": "\(options.host)", "server.port": "\(port)",
                                          "store.version": "\(coordinator.metrics.read().version)"])

        let received = signals.wait()
        logger.notice("shutting down", metadata: ["signal": "\(received)"])
        server.shutdown()
        coordinator.stop()
    }
}

/// Joins the Transport and the Coordinator without either importing the other: connection ids
/// map 1:1, deliveries map onto transport commands.
final class TransportBridge: TransportDelegate, @unchecked Sendable {
    weak var coordinator: GatherCoordinator?
    weak var server: LiveServer?

    var connectionCount: Int { server?.connectionCount ?? 0 }

    func connectionOpened(_ id: ConnectionID, remoteAddress: String) {
        coordinator?.clientConnected(ClientID(id.rawValue), address: remoteAddress)
    }

    func connectionClosed(_ id: ConnectionID) {
        coordinator?.clientDisconnected(ClientID(id.rawValue))
    }

    func received(_ text: String, from id: ConnectionID) {
        coordinator?.messageReceived(text, from: ClientID(id.rawValue))
    }

    var deliver: @Sendable ([Delivery]) -> Void {
        { [weak self] deliveries in
            guard let server = self?.server else { return }
            server.perform(deliveries.map(Self.command))
        }
    }

    private static func command(_ delivery: Delivery) -> TransportCommand {
        switch delivery {
        case .greet(let client, let bytes): .greet(ConnectionID(rawValue: client.rawValue), bytes)
        case .send(let client, let bytes): .send(ConnectionID(rawValue: client.rawValue), bytes)
        case .publishSnapshot(let version, let bytes): .publishSnapshot(version: version, bytes: bytes)
        case .publishTick(let bytes): .publishTick(bytes)
        case .publishPresence(let bytes): .publishPresence(bytes)
        case .close(let client, let code, let reason): .close(ConnectionID(rawValue: client.rawValue), code: code,
                                                              reason: reason)
        }
    }
}
