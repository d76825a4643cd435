import Foundation
import GatherLWS

/// What one relay scenario measured, each figure from the process that did the work.
struct RelayResult {
    var followers = 0
    var relays = 0
    var tls = false
    var connected = 0
    var failed = 0
    var firstError: String?
    /// The venue during score presses with no follower, and with every follower connected.
    var venueIdle = ProcessWindow()
    var venueLoaded = ProcessWindow()
    /// Each relay's CPU during the loaded presses, and its followers.
    var relayMicroseconds: [Double] = []
    var relayFollowers: [Int] = []
    var relayKilobytesPerFollower: [Double] = []
    var natsMicroseconds = 0.0
    var workerMicroseconds = 0.0
    /// Messages the followers read during the loaded presses (patches, ticks, presence).
    var messages = 0
    var pressToDoor: [UInt64] = []
    var pressToTap: [UInt64] = []
    var pressToLast: [UInt64] = []
    /// Presses whose version some follower had not read within the wait.
    var incompletePresses = 0
    var skippedVersions = 0
    var resyncs = 0
    /// Followers not holding the last version at the end.
    var behindAtEnd = 0
    var pressesDone = 0
    var samplePatch: [UInt8] = []
    var floor: FloorResult?
    /// The state messages of the loaded presses as NATS carried them (only when nchan is compared).
    var recordedStream: [[UInt8]] = []
    /// nginx + nchan fed the same messages, to the same number of followers.
    var nchan: NchanResult?
    var error: String?

    /// Relay CPU per delivered message, µs: relay r's CPU ÷ the messages its followers read.
    func relayMicrosecondsPerMessage(_ relay: Int) -> Double? {
        guard messages > 0, connected > 0, relay < relayMicroseconds.count else { return nil }
        let share = Double(relayFollowers[relay]) / Double(connected)
        return share > 0 ? relayMicroseconds[relay] / (Double(messages) * share) : nil
    }

    var relaysMicrosecondsPerMessage: Double? {
        messages > 0 ? relayMicroseconds.reduce(0, +) / Double(messages) : nil
    }
}

/// CPU of one process over the measured windows, and the versions those windows made.
struct ProcessWindow {
    var cpuMicroseconds = 0.0
    var wallMicroseconds = 0.0
    var versions = 0
    /// `gather_stream_publish_cpu_seconds_total` over the windows (the venue's publisher thread).
    var publishMicroseconds = 0.0

    /// The venue's CPU per second with no press (its countdown ticks, presence, the relays'
    /// watcher reports), measured over a quiet 3 s just before: work that follows the clock, not
    /// the versions, and a press with followers takes longer (it waits for the last follower).
    var backgroundPerSecond = 0.0

    var microsecondsPerVersion: Double? { versions > 0 ? cpuMicroseconds / Double(versions) : nil }
    /// Per version with the background taken out: what publishing one version costs.
    var netMicrosecondsPerVersion: Double? {
        versions > 0 ? max(0, cpuMicroseconds - backgroundPerSecond * wallMicroseconds / 1_000_000) / Double(versions) : nil
    }
    var cores: Double { wallMicroseconds > 0 ? cpuMicroseconds / wallMicroseconds : 0 }
}

/// N followers over R relays fed by the venue through NATS; the venue's door holds only the organisers.
struct RelayScenario {
    let executable: String
    let publicDirectory: String
    let settings: BenchSettings
    let natsExecutable: String?
    /// Set: after the relay, nginx + nchan is fed the same messages (`NchanComparison`).
    var nchan: NchanChoice?
    /// Followers per worker process (each stays under the open-file limit).
    static let followersPerWorker = 10_000

    /// The scenario, then (every process stopped) the floor over as many connections as one
    /// relay served, with the frame the followers read.
    func run(followers: Int, relays: Int, tls: Bool, floorRounds: Int, floorConnectionLimit: Int) -> RelayResult {
        var result = RelayResult()
        result.followers = followers
        result.relays = relays
        result.tls = tls
        do {
            let rig = try RelayRig(executable: executable, publicDirectory: publicDirectory, inviteCode: settings.inviteCode,
                                   relays: relays, tls: tls, maximumFollowers: followers, natsExecutable: natsExecutable,
                                   progress: settings.progress)
            defer { rig.removeFiles() }
            do {
                try measure(rig: rig, into: &result)
            } catch {
                settings.progress("relay scenario failed: \(error)")
                result.error = "\(error)"
            }
            rig.stop()
            if !result.samplePatch.isEmpty {
                let payload = result.samplePatch
                let header: [UInt8] = payload.count < 126 ? [0x81, UInt8(payload.count)]
                    : [0x81, 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
                let connections = min(max(1, (result.connected + relays - 1) / relays), floorConnectionLimit)
                settings.progress("the floor: \(floorRounds) frames of \(header.count + payload.count) B to each of "
                    + "\(connections) \(tls ? "TLS" : "plain") connections")
                result.floor = Floor(connections: connections, frame: header + payload, rounds: floorRounds,
                                     certificate: tls ? rig.certificate : nil).measure()
            }
            if let nchan {
                result.nchan = NchanComparison(nginx: nchan.nginx, followers: followers, caPath: rig.venue.caPath,
                                               settings: settings).run(recorded: result.recordedStream)
                result.recordedStream = []
            }
        } catch {
            settings.progress("relay scenario failed: \(error)")
            result.error = "\(error)"
        }
        return result
    }

    private func measure(rig: RelayRig, into result: inout RelayResult) throws {
        let target = rig.venueTarget
        let organiserEngine = try ClientEngine(target: target, manySockets: false, wire: BenchSettings.organiserWire,
                                               sources: SourceAddresses(firstBlock: 0, connections: settings.organisers))
        defer { organiserEngine.shutdown() }
        // The venue's door holds no spectator: the driver's spectator engine stays empty.
        let emptyDoor = try ClientEngine(target: target, manySockets: false, wire: WireChoice.v2.rawValue,
                                         sources: SourceAddresses(firstBlock: 0, connections: 1))
        defer { emptyDoor.shutdown() }
        let tap = try NATSTap(url: rig.natsURL, subject: "gather.\(RelayRig.venue).state")
        defer { tap.close() }
        let driver = GatherDriver(organiserEngine: organiserEngine, spectatorEngine: emptyDoor,
                                  inviteCode: settings.inviteCode, tag: String(UInt32.random(in: 0...UInt32.max), radix: 36))
        try driver.connectOrganisers(settings.organisers)
        try driver.startFreshGather(players: settings.players)

        result.venueIdle.backgroundPerSecond = quietVenueCPU(rig)
        settings.progress("relays: \(settings.commands) presses with no follower")
        var unused = RelayResult()
        try press(driver: driver, rig: rig, workers: [], tap: tap, venue: &result.venueIdle, into: &unused, loaded: false)

        _ = rig.relaysHold(version: driver.currentVersion, seconds: 20)
        let before = rig.relays.map { ResidentMemory.kilobytes(of: $0.pid) ?? 0 }
        let workers = try startWorkers(result.followers, rig: rig, into: &result)
        defer { workers.forEach { $0.stop() } }
        // Idle: the memory figure is for connected, quiet followers; meanwhile the venue's background.
        let background = quietVenueCPU(rig)
        let after = rig.relays.map { ResidentMemory.kilobytes(of: $0.pid) ?? 0 }
        result.relayFollowers = (0..<result.relays).map { relay in
            (0..<result.connected).filter { $0 % result.relays == relay }.count
        }
        result.relayKilobytesPerFollower = (0..<result.relays).map { relay in
            result.relayFollowers[relay] > 0 ? Double(after[relay] - before[relay]) / Double(result.relayFollowers[relay]) : 0
        }

        settings.progress("relays: \(settings.commands) presses with \(result.connected) followers")
        var venue = ProcessWindow()
        venue.backgroundPerSecond = background
        if nchan != nil { tap.startRecording() }
        try press(driver: driver, rig: rig, workers: workers, tap: tap, venue: &venue, into: &result, loaded: true)
        if nchan != nil { result.recordedStream = tap.stopRecording() }
        result.venueLoaded = venue
        let last = driver.currentVersion
        for worker in workers {
            _ = worker.reachedAt(last, seconds: 30)
            if let mark = worker.mark(version: last) {
                result.skippedVersions += mark.skipped
                result.resyncs += mark.resyncs
                result.behindAtEnd += max(0, mark.ready - mark.holders)
            }
        }
        result.samplePatch = workers.first?.samplePatch() ?? []
    }

    /// Worker w holds followers w, w+W, …: follower i connects to relay i % R wherever it lives.
    private func startWorkers(_ followers: Int, rig: RelayRig, into result: inout RelayResult) throws -> [WorkerProcess] {
        let count = max(1, (followers + Self.followersPerWorker - 1) / Self.followersPerWorker)
        var workers: [WorkerProcess] = []
        var assigned = 0
        for index in 0..<count {
            let share = followers / count + (index < followers % count ? 1 : 0)
            // Rotate the relays so worker w's follower j is global follower `assigned + j`.
            let targets = (0..<rig.relayTargets.count).map { rig.relayTargets[($0 + assigned) % rig.relayTargets.count] }
            workers.append(try WorkerProcess(targets: targets, followers: share, firstBlock: 1 + index * 4))
            assigned += share
        }
        settings.progress("connecting \(followers) followers to \(rig.relayTargets.count) relay(s) from \(count) process(es)")
        let startedAt = Date()
        for worker in workers {
            guard let ready = worker.waitReady(seconds: max(120, Double(worker.followers) / 35)) else {
                throw BenchError("a follower process did not report (see its errors above)")
            }
            result.connected += ready.ready
            result.failed += ready.failed
            if result.firstError == nil { result.firstError = ready.error }
        }
        settings.progress("\(result.connected) followers connected (\(result.failed) failed) in "
            + "\(Int(Date().timeIntervalSince(startedAt))) s")
        guard result.connected > 0 else { throw BenchError("no follower connected: \(result.firstError ?? "?")") }
        return workers
    }

    /// The venue's CPU per second over 3 quiet seconds (µs/s).
    private func quietVenueCPU(_ rig: RelayRig) -> Double {
        let pid = rig.venue.pid ?? 0
        let start = (ProcessCPU.preciseMicroseconds(of: pid) ?? 0, BenchClock.nanoseconds())
        Thread.sleep(forTimeInterval: 3)
        let cpu = (ProcessCPU.preciseMicroseconds(of: pid) ?? 0) - start.0
        return cpu / (Double(BenchClock.nanoseconds() - start.1) / 1e9)
    }

    // MARK: - Presses

    private struct Mark {
        var venue = 0.0
        var publish = 0.0
        var relays: [Double] = []
        var nats = 0.0
        var workers = 0.0
        var messages = 0
        var at = BenchClock.nanoseconds()
    }

    private func mark(_ rig: RelayRig, _ workers: [WorkerProcess], version: Int, start: Bool) -> Mark {
        var mark = Mark()
        let publish = { Self.publishSeconds(FanOutHistogram.metricsText(rig.venueTarget)) * 1_000_000 }
        if start { mark.publish = publish() }
        mark.messages = workers.compactMap { $0.mark(version: version)?.messages }.reduce(0, +)
        mark.venue = ProcessCPU.preciseMicroseconds(of: rig.venue.pid ?? 0) ?? 0
        mark.relays = rig.relays.map { ProcessCPU.preciseMicroseconds(of: $0.pid) ?? 0 }
        mark.nats = ProcessCPU.preciseMicroseconds(of: rig.nats.pid) ?? 0
        mark.workers = workers.compactMap { ProcessCPU.preciseMicroseconds(of: $0.pid) }.reduce(0, +)
        mark.at = BenchClock.nanoseconds()
        if !start { mark.publish = publish() }
        return mark
    }

    static func publishSeconds(_ text: String?) -> Double {
        let line = text?.split(separator: "\n").first { $0.hasPrefix("gather_stream_publish_cpu_seconds_total ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
    }

    /// `settings.commands` score presses; windows of score presses only (a fresh gather's set-up
    /// falls between them). Loaded: each press waits for every follower, the tap and the door.
    private func press(driver: GatherDriver, rig: RelayRig, workers: [WorkerProcess], tap: NATSTap,
                       venue: inout ProcessWindow, into result: inout RelayResult, loaded: Bool) throws {
        let deadline = min(Date(timeIntervalSinceNow: settings.phaseSeconds), settings.runDeadline)
        var open: (mark: Mark, versions: Int)?
        func closeWindow() {
            guard let started = open else { return }
            let end = mark(rig, workers, version: driver.currentVersion, start: false)
            venue.cpuMicroseconds += end.venue - started.mark.venue
            venue.publishMicroseconds += end.publish - started.mark.publish
            venue.wallMicroseconds += Double(end.at - started.mark.at) / 1_000
            venue.versions += started.versions
            if result.relayMicroseconds.count != end.relays.count { result.relayMicroseconds = end.relays.map { _ in 0 } }
            for index in end.relays.indices { result.relayMicroseconds[index] += end.relays[index] - started.mark.relays[index] }
            result.natsMicroseconds += end.nats - started.mark.nats
            result.workerMicroseconds += end.workers - started.mark.workers
            result.messages += end.messages - started.mark.messages
            open = nil
        }
        defer { closeWindow() }
        for number in 0..<settings.commands {
            guard Date() < deadline else {
                settings.progress("stopping after \(number) presses: the phase's time is up")
                return
            }
            if number > 0, number % settings.pressesPerGather == 0 {
                closeWindow()
                try driver.startFreshGather(players: settings.players)
                if loaded { for worker in workers { _ = worker.reachedAt(driver.currentVersion, seconds: 30) } }
            }
            if open == nil { open = (mark(rig, workers, version: driver.currentVersion, start: true), 0) }
            let delta = number % settings.pressesPerGather % 2 == 0 ? 1 : -1
            let outcome = try driver.command(["kind": "score", "team": "A", "delta": delta],
                                             organiser: number % driver.organisers.count)
            guard outcome.replyType == "ack" else { continue }
            open?.versions += 1
            result.pressesDone += 1
            guard loaded else { continue }
            let version = driver.currentVersion
            let arrivals = workers.map { $0.reachedAt(version, seconds: 30) }
            if arrivals.contains(where: { $0 == nil }) {
                result.incompletePresses += 1
            } else if let last = arrivals.compactMap({ $0 }).max(), last >= outcome.sentAt {
                result.pressToLast.append(last - outcome.sentAt)
            }
            if let tapped = tap.arrival(of: version, seconds: 5), tapped >= outcome.sentAt {
                result.pressToTap.append(tapped - outcome.sentAt)
            }
            driver.organiserEngine.wait(seconds: 5) { $0.firstSeen[version] != nil }
            if let door = driver.organiserEngine.read({ $0.firstSeen[version] }), door >= outcome.sentAt {
                result.pressToDoor.append(door - outcome.sentAt)
            }
            if number % 20 == 19 { settings.progress("\(number + 1)/\(settings.commands) presses") }
        }
    }
}

/// The nchan comparison's settings: which nginx to start (nil: Debian's).
struct NchanChoice {
    var nginx: String?
}
