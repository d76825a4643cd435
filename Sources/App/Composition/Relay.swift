import Dispatch
import Foundation
import GatherStream
import GatherTransport
import Logging

/// The composition root of `gather relay`: the Transport (pages, `/live`, outboxes, limits) fed
/// by the venue's stream instead of a Coordinator. No database, nothing on disk.
enum Relay {
    static func run(options: RelayCommand) throws {
        let signals = SignalWaiter(signals: [SIGINT, SIGTERM])
        InterruptForwarding.install { signals.deliver($0) }
        let logger = ServerLogging.makeLogger(level: options.logLevel)
        if let warning = options.nats.passwordWarning {
            FileHandle.standardError.write(Data("gather: warning: \(warning)\n".utf8))
        }
        guard let endpoint = options.nats.endpoint(clientName: "gather relay \(options.relayID)") else {
            throw StartupFailure(description: "gather relay needs --nats URL")
        }
        let transport = TransportBox()
        let stream = RelayStream(
            configuration: RelayStream.Configuration(endpoint: endpoint, venue: options.venue,
                                                     streamName: options.streamName, relayID: options.relayID,
                                                     venueKey: options.venueKey),
            logger: logger, deliver: { transport.server?.deliver($0) })
        let routes = RelayRoutes(venue: options.venue, stream: stream, shell: ShellVersion(root: options.publicDirectory))

        let tls = options.certificatePath.flatMap { certificate in
            options.privateKeyPath.map { TLSListener(port: options.port, certificatePath: certificate, privateKeyPath: $0) }
        }
        var configuration = TransportConfiguration(
            host: options.host, tls: tls, spectatorPort: tls == nil ? options.port : nil, protocols: [.v2],
            publicDirectory: options.publicDirectory, dynamicRoutes: { routes.respond(to: $0) })
        configuration.maximumConnections = options.maximumConnections
        configuration.maximumConnectionsPerAddress = options.maximumConnectionsPerAddress
        // Behind a load balancer every follower arrives from its address, and a relay that dies
        // sends all of its followers to the others at once: raising the per-address cap for that
        // raises how many may be mid-handshake together (else they are refused at accept, and
        // nginx takes this relay out of its rotation too).
        configuration.maximumPendingPerAddress = max(configuration.maximumPendingPerAddress,
                                                     options.maximumConnectionsPerAddress / 10)
        let server = LiveServer(configuration: configuration, logger: logger, source: stream)
        transport.server = server

        do {
            try stream.start()
        } catch {
            throw StartupFailure(description: "\(error)")
        }
        let ports: ListeningPorts
        do {
            ports = try server.start()
        } catch {
            throw StartupFailure(description: "cannot start the relay: \(error)")
        }
        let port = ports.tls ?? ports.spectator ?? options.port
        let scheme = tls == nil ? "http" : "https"
        let shownHost = options.host == "0.0.0.0" || options.host == "::" ? (ProcessInfo.processInfo.hostName) : options.host
        let lines = [
            "Football Gather Live relay: following \(options.venue) (stream \(options.streamName) on \(options.nats.url ?? "")).",
            "",
            "  Followers (read-only, anywhere):  \(scheme)://\(shownHost):\(port)/",
            "  Venue overview:                   \(scheme)://\(shownHost):\(port)/scoreboard.html?pitch=all",
            "  Organisers use the venue's own address; this one is for following.",
            stream.reading().nats == "connected" ? "" : "  Waiting for the venue: NATS or the stream is not there yet; the pages are served meanwhile.",
            "gather: listening on port \(port)",
        ]
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        logger.info("relaying", metadata: ["relay.port": "\(port)", "relay.venue": "\(options.venue)",
                                           "relay.id": "\(options.relayID)"])

        let received = signals.wait()
        logger.notice("shutting down", metadata: ["signal": "\(received)"])
        server.shutdown()
        stream.stop()
    }
}

/// The relay's dynamic endpoints: `/healthz`, and the pages' version for the service worker
/// (no database, so no other `/api/*`).
struct RelayRoutes: Sendable {
    let venue: VenueName
    let stream: RelayStream
    let shell: ShellVersion

    func respond(to request: HTTPRequest) -> HTTPResponse? {
        if request.path == ShellVersion.path { return shell.response() }
        guard request.path == "/healthz" else { return nil }
        let health = stream.reading()
        let now = RelayStream.nowMs()
        let body = "{\"status\":\"ok\",\"relay\":true,\"venue\":\"\(venue)\",\"version\":\(health.version.map(String.init) ?? "null"),"
            + "\"lastHeardMs\":\(health.lastHeardMs.map { String(max(0, now - $0)) } ?? "null"),"
            + "\"spectators\":\(health.spectators),\"nats\":\"\(health.nats)\",\"dropped\":\(health.dropped),"
            + "\"epoch\":\(health.epoch.map { "\"\($0)\"" } ?? "null"),\"behind\":\(health.behind),"
            + "\"venueVersion\":\(health.venueVersion.map(String.init) ?? "null")}"
        return HTTPResponse(status: 200, contentType: "application/json; charset=utf-8", body: Array(body.utf8))
    }
}
