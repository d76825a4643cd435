import Foundation

/// The processes of one relay scenario, all real and on loopback: `nats-server` (JetStream, a
/// temporary store, a free port), the venue `gather serve --nats … --venue bench` and R
/// `gather relay --nats … --venue bench --port 0` (plain ws://, or wss:// with the venue's own
/// generated certificate).
final class RelayRig {
    static let venue = "bench"

    let nats: ChildProcess
    let natsURL: String
    let venue: ServerProcess
    let venueTarget: ServerTarget
    private(set) var relays: [ChildProcess] = []
    private(set) var relayTargets: [ServerTarget] = []
    private let storeDirectory: URL

    init(executable: String, publicDirectory: String, inviteCode: String, relays count: Int, tls: Bool,
         maximumFollowers: Int, natsExecutable given: String?, progress: (String) -> Void) throws {
        storeDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("gather-bench-nats-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: storeDirectory, withIntermediateDirectories: true)
        let natsExecutable = [given ?? "", "/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let natsExecutable else { throw BenchError("nats-server is not installed (make deps-test installs it)") }
        nats = try ChildProcess(name: "nats-server", executable: natsExecutable,
                                arguments: ["-a", "127.0.0.1", "-p", "-1", "-js", "-sd", storeDirectory.path])
        var started: [ChildProcess] = []
        var venueProcess: ServerProcess?
        do {
            let natsPort = try nats.waitFor(seconds: 20) { ChildProcess.port(after: "client connections on 127.0.0.1:", in: $0) }
            _ = try nats.waitFor(seconds: 20) { $0.contains("Server is ready") ? true : nil }
            natsURL = "nats://127.0.0.1:\(natsPort)"
            progress("nats-server on \(natsURL)")
            let venue = try ServerProcess(executable: executable, publicDirectory: publicDirectory, inviteCode: inviteCode)
            venueProcess = venue
            venue.extraArguments = ["--nats", natsURL, "--venue", Self.venue]
            venueTarget = ServerTarget(port: try venue.start(), caPath: venue.caPath)
            self.venue = venue
            let certificates = venue.workDirectory.appendingPathComponent("certs")
            // Relays believe only what the venue signed: they are given its public key.
            guard let venueKey = Self.venueKey(venueTarget) else { throw BenchError("the venue's /healthz has no venueKey") }
            for number in 1...count {
                var arguments = ["relay", "--host", "127.0.0.1", "--port", "0", "--public", publicDirectory,
                                 "--nats", natsURL, "--venue", Self.venue, "--venue-key", venueKey, "--relay-id", "bench-\(number)",
                                 "--log-level", "warning", "--max-connections", "\(max(20_000, maximumFollowers + 100))"]
                if tls {
                    arguments += ["--tls-cert", certificates.appendingPathComponent("server.pem").path,
                                  "--tls-key", certificates.appendingPathComponent("server-key.pem").path]
                }
                let relay = try ChildProcess(name: "gather relay \(number)", executable: executable, arguments: arguments)
                started.append(relay)
            }
            for relay in started {
                let port = try relay.waitFor(seconds: 60) { ChildProcess.port(after: "gather: listening on port", in: $0) }
                relayTargets.append(ServerTarget(port: port, caPath: venue.caPath, tls: tls))
            }
            relays = started
            progress("venue on \(venueTarget.port), \(count) relay(s) on \(relayTargets.map(\.port)) (\(tls ? "wss" : "ws"))")
        } catch {
            started.forEach { $0.stop() }
            venueProcess?.stop()
            venueProcess?.removeFiles()
            nats.stop(signal: SIGTERM)
            try? FileManager.default.removeItem(at: storeDirectory)
            throw error
        }
    }

    /// The relays' own `/healthz` version: every relay has heard the venue's `version`.
    func relaysHold(version: Int, seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while Date() < deadline {
            let versions = relayTargets.map { Self.healthVersion($0) }
            if versions.allSatisfy({ ($0 ?? -1) >= version }) { return true }
            usleep(100_000)
        }
        return false
    }

    private static func venueKey(_ target: ServerTarget) -> String? {
        guard let (_, data) = runCurl(["--max-time", "10", "--cacert", target.caPath,
                                       "https://127.0.0.1:\(target.port)/healthz"]) else { return nil }
        return ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?["venueKey"] as? String
    }

    private static func healthVersion(_ target: ServerTarget) -> Int? {
        guard let (_, data) = runCurl(["--max-time", "10", "--cacert", target.caPath,
                                       "\(target.tls ? "https" : "http")://127.0.0.1:\(target.port)/healthz"]) else { return nil }
        let health = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        return health?["version"] as? Int
    }

    /// The venue's generated certificate and key (the TLS relays and the TLS floor serve them).
    var certificate: (chain: String, key: String) {
        let certificates = venue.workDirectory.appendingPathComponent("certs")
        return (certificates.appendingPathComponent("server.pem").path, certificates.appendingPathComponent("server-key.pem").path)
    }

    /// Stops every process; the files stay until `removeFiles` (the floor still reads the certificate).
    func stop() {
        relays.forEach { $0.stop() }
        venue.stop()
        nats.stop(signal: SIGTERM)
    }

    func removeFiles() {
        venue.removeFiles()
        try? FileManager.default.removeItem(at: storeDirectory)
    }
}
