import ArgumentParser
import Foundation
import GatherLWS

/// The run itself, kept out of `main.swift` and out of any actor: its threads and Dispatch
/// handlers must not inherit the main actor.
struct BenchRun {
    let options: BenchCommand

    func execute() throws {
        let descriptorLimit = FileDescriptorLimit.raiseToHardLimit()
        let largest = max(options.spectators.max() ?? 0, options.stalledSpectators) + options.organisers
        if descriptorLimit < largest + 64 {
            log("the open-file limit is \(descriptorLimit); \(largest) connections may not all open")
        }
        if options.scenario == .club {
            var report = BenchReport(settings: settings())
            report.club = runClub()
            print(options.json ? report.json() : report.clubLines().joined(separator: "\n"))
            if report.club?.passed != true { throw ExitCode.failure }
            return
        }
        if options.scenario == .relays || options.scenario == .nchan {
            var report = BenchReport(settings: settings())
            report.relays = options.scenario == .nchan ? runNchan(descriptorLimit: descriptorLimit)
                : runRelays(descriptorLimit: descriptorLimit)
            print(options.json ? report.json() : report.table())
            return
        }
        let server = try makeServer()
        defer { server.finish() }
        let settings = settings()
        let runner = ScenarioRunner(server: server, settings: settings)
        var report = BenchReport(settings: settings)
        if options.scenario == .fanout || options.scenario == .all {
            for count in options.spectators {
                for wire in options.wire.map(\.rawValue) {
                    log("fan-out to \(count) \(wire) spectators")
                    do {
                        report.fanOuts.append(try runner.fanOut(spectators: count, wire: wire))
                    } catch {
                        log("fan-out to \(count) \(wire) failed: \(error)")
                        var failed = FanOutResult()
                        failed.spectators = count
                        failed.wire = wire
                        failed.error = "\(error)"
                        report.fanOuts.append(failed)
                    }
                }
            }
        }
        if options.scenario == .stalled || options.scenario == .all {
            let wire = options.stalledWire.rawValue
            log("one stalled \(wire) spectator among \(options.stalledSpectators)")
            do {
                report.stalled = try runner.stalled(spectators: options.stalledSpectators, wire: wire)
            } catch {
                log("the stalled scenario failed: \(error)")
                report.stalled = StalledResult(spectators: options.stalledSpectators, wire: wire, error: "\(error)")
            }
        }
        if options.scenario == .tournament || options.scenario == .all {
            let count = options.tournamentSpectators
            let v2 = WireChoice.v2.rawValue
            if !report.fanOuts.contains(where: { $0.spectators == count && $0.wire == v2 && $0.error == nil }) {
                log("fan-out to \(count) \(v2) spectators: the plain match next to the tournament day")
                do { report.fanOuts.append(try runner.fanOut(spectators: count, wire: v2)) } catch {
                    log("the plain match's fan-out failed: \(error)")
                }
            }
            report.tournament = runTournament(server: server)
        }
        if options.scenario == .all {
            report.relays = runRelays(descriptorLimit: descriptorLimit) + runNchan(descriptorLimit: descriptorLimit)
        }
        print(options.json ? report.json() : report.table())
    }

    private func settings() -> BenchSettings {
        var settings = BenchSettings()
        settings.organisers = options.organisers
        settings.commands = options.commands
        settings.players = options.players
        settings.pressesPerGather = options.pressesPerGather
        settings.inviteCode = options.inviteCode
        settings.phaseSeconds = Double(options.phaseSeconds)
        settings.runDeadline = Date(timeIntervalSinceNow: Double(options.budgetSeconds))
        settings.progress = log
        return settings
    }

    /// The relay scenarios (and their floors): they start their own processes, so they need --server.
    private func runRelays(descriptorLimit: Int) -> [RelayResult] {
        guard let executable = options.server else {
            log("the relay scenarios start their own venue and relays: they need --server, not --url")
            return []
        }
        return options.relayTransport.map { transport in
            var settings = settings()
            // Each its own budget: the scenarios before may have spent the run's.
            settings.runDeadline = Date(timeIntervalSinceNow: Double(options.budgetSeconds))
            let scenario = RelayScenario(executable: URL(fileURLWithPath: executable).standardizedFileURL.path,
                                         publicDirectory: URL(fileURLWithPath: options.public).standardizedFileURL.path,
                                         settings: settings, natsExecutable: options.natsServer)
            log("relays: \(options.followers) followers over \(options.relays) \(transport.rawValue) relay(s)")
            // The floor holds both ends of each connection in this process.
            return scenario.run(followers: options.followers, relays: options.relays, tls: transport == .tls,
                                floorRounds: options.floorRounds, floorConnectionLimit: max(1, (descriptorLimit - 300) / 2))
        }
    }

    /// The tournament day, with its own time budget; with relays (a real nats-server and a venue
    /// that publishes to it) when the bench starts the server itself.
    private func runTournament(server: ServerUnderTest) -> TournamentResult {
        var settings = settings()
        settings.runDeadline = Date(timeIntervalSinceNow: Double(options.budgetSeconds))
        let spectators = options.tournamentSpectators
        log("tournament day: \(spectators) spectators, \(options.tournamentRelays) relay(s)")
        do {
            if options.tournamentRelays > 0, let executable = options.server {
                let rig = try RelayRig(executable: URL(fileURLWithPath: executable).standardizedFileURL.path,
                                       publicDirectory: URL(fileURLWithPath: options.public).standardizedFileURL.path,
                                       inviteCode: options.inviteCode, relays: options.tournamentRelays, tls: false,
                                       maximumFollowers: 100, natsExecutable: options.natsServer, progress: log)
                defer {
                    rig.stop()
                    rig.removeFiles()
                }
                var day = TournamentDay(server: ServerUnderTest(target: rig.venueTarget, pid: rig.venue.pid),
                                        target: rig.venueTarget, settings: settings)
                day.relaysHold = { rig.relaysHold(version: $0, seconds: 30) }
                day.relayPIDs = rig.relays.map(\.pid)
                return try day.run(spectators: spectators)
            }
            if options.tournamentRelays > 0 { log("the tournament's relays need --server: the day is played without them") }
            let target = try server.begin()
            defer { server.end() }
            return try TournamentDay(server: server, target: target, settings: settings).run(spectators: spectators)
        } catch {
            log("the tournament day failed: \(error)")
            var failed = TournamentResult()
            failed.spectators = spectators
            failed.error = "\(error)"
            return failed
        }
    }

    /// One relay over plain ws, then nginx + nchan (one worker) fed the messages the relay's
    /// followers read, to as many followers.
    private func runNchan(descriptorLimit: Int) -> [RelayResult] {
        guard let executable = options.server else {
            log("the nchan comparison starts its own venue, relay and nginx: it needs --server, not --url")
            return []
        }
        var settings = settings()
        settings.runDeadline = Date(timeIntervalSinceNow: Double(options.budgetSeconds))
        var scenario = RelayScenario(executable: URL(fileURLWithPath: executable).standardizedFileURL.path,
                                     publicDirectory: URL(fileURLWithPath: options.public).standardizedFileURL.path,
                                     settings: settings, natsExecutable: options.natsServer)
        scenario.nchan = NchanChoice(nginx: options.nginx)
        log("nchan comparison: \(options.nchanFollowers) followers of one ws relay, then of nginx + nchan")
        return [scenario.run(followers: options.nchanFollowers, relays: 1, tls: false, floorRounds: options.floorRounds,
                             floorConnectionLimit: max(1, (descriptorLimit - 300) / 2))]
    }

    /// The club's busiest minute (ClubScenario): its own PostgreSQL and instances, so --server only.
    private func runClub() -> ClubResult {
        let options = ClubScenario.Options(
            executable: URL(fileURLWithPath: self.options.server ?? "").standardizedFileURL.path,
            publicDirectory: URL(fileURLWithPath: self.options.public).standardizedFileURL.path,
            postgresBin: self.options.postgresBin, members: self.options.clubMembers, instances: self.options.clubInstances,
            windowSeconds: Double(self.options.clubWindowSeconds))
        log("club: \(options.members) members over \(options.instances) instances on a private PostgreSQL")
        return ClubScenario(options: options, progress: log).run()
    }

    private func makeServer() throws -> ServerUnderTest {
        if let executable = options.server {
            let publicPath = URL(fileURLWithPath: options.public).standardizedFileURL.path
            let process = try ServerProcess(executable: URL(fileURLWithPath: executable).standardizedFileURL.path,
                                            publicDirectory: publicPath, inviteCode: options.inviteCode)
            return ServerUnderTest(process: process)
        }
        guard let url = options.url, let components = URLComponents(string: url), components.scheme == "wss",
              let host = components.host, let port = components.port
        else { throw BenchError("--url must look like wss://127.0.0.1:8443") }
        guard ["127.0.0.1", "localhost", "::1"].contains(host) || host.hasPrefix("127.") else {
            throw BenchError("gather-bench only measures servers on loopback")
        }
        let address = host == "localhost" ? "127.0.0.1" : host
        return ServerUnderTest(target: ServerTarget(address: address, port: port, host: host, caPath: options.ca ?? ""),
                               pid: options.serverPID)
    }

    /// Progress goes to stderr so `--json` stays one clean object on stdout.
    private func log(_ line: String) {
        FileHandle.standardError.write(Data("gather-bench: \(line)\n".utf8))
    }
}
