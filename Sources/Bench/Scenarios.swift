import Foundation

/// What every scenario shares.
struct BenchSettings {
    var organisers = 4
    var commands = 100
    var players = 22
    var pressesPerGather = 20
    /// Presses stop early (and say so) once a phase has run this long.
    var phaseSeconds = 600.0
    var inviteCode = "BENCHCODE1"
    var progress: (String) -> Void = { _ in }
}

struct FanOutResult {
    var spectators = 0
    var connected = 0
    var failed = 0
    var firstError: String?
    var handshakesPerSecond = 0.0
    var residentKilobytesPerConnection: Double?
    var press: Distribution?
    var ack: Distribution?
    var missing = 0
    /// Ticks at the last spectator, on the loop that also parses every spectator's snapshots.
    var ticks: TickRegularity?
    /// Ticks at an organiser, on the organisers' own loop: what one phone sees.
    var organiserTicks: TickRegularity?
    var snapshotBytes = (smallest: 0, largest: 0)
    var rejections: [String: Int] = [:]
    /// The server's publish → socket histogram over the presses (bucket bounds, ms).
    var serverFanOut: FanOutHistogram?
    var serverTickLateness: FanOutHistogram?
    var pressesDone = 0
    var error: String?
}

struct StalledResult {
    var spectators = 0
    var connected = 0
    var before: Distribution?
    var during: Distribution?
    var residentGrowthKilobytes: Int?
    var stalledClosedByServer = false
    var missing = 0
    var error: String?
}

/// Runs the scenarios against one server; each gets a fresh client engine (and, when the bench
/// started the server, a fresh server process).
struct ScenarioRunner {
    let server: ServerUnderTest
    let settings: BenchSettings

    // MARK: - Fan-out

    func fanOut(spectators: Int) throws -> FanOutResult {
        var result = FanOutResult()
        result.spectators = spectators
        try withSession(spectators: spectators) { target, engine, driver in
            let before = server.residentKilobytes()
            _ = try connectSpectators(spectators, engine: engine, driver: driver, into: &result)
            Thread.sleep(forTimeInterval: 2)  // let presence settle: the memory figure is for idle connections
            // The server's own count: handshakes that finish after the connect phase still cost memory.
            let counted = FanOutHistogram.spectatorCount(target) ?? result.connected
            if let before, let after = server.residentKilobytes(), counted > 0 {
                result.residentKilobytesPerConnection = Double(after - before) / Double(counted)
            }
            var presses: [UInt64] = []
            var acks: [UInt64] = []
            let metricsBefore = FanOutHistogram.metricsText(target)
            (result.missing, result.pressesDone) = try press(settings.commands, driver: driver, presses: &presses, acks: &acks)
            engine.wait(seconds: 8) { $0.ticks.count >= 5 }
            // Snapshots are only counted during the presses; the wait adds ticks, not fan-outs.
            if let metricsBefore, let metricsAfter = FanOutHistogram.metricsText(target) {
                func change(_ metric: String) -> FanOutHistogram? {
                    guard let before = FanOutHistogram.parse(metricsBefore, metric: metric),
                          let after = FanOutHistogram.parse(metricsAfter, metric: metric) else { return nil }
                    return after.subtracting(before)
                }
                result.serverFanOut = change(FanOutHistogram.fanOutMetric)
                result.serverTickLateness = change(FanOutHistogram.tickLatenessMetric)
            }
            result.press = Distribution(nanoseconds: presses)
            result.ack = Distribution(nanoseconds: acks)
            result.ticks = TickRegularity(ticks: engine.read { $0.ticks })
            result.organiserTicks = TickRegularity(ticks: driver.organiserEngine.read { $0.ticks })
            result.snapshotBytes = engine.read { $0.snapshotBytes }
            result.rejections = driver.rejections
        }
        return result
    }

    // MARK: - One stalled spectator

    /// The same presses twice over `spectators`: first all reading, then with the last one
    /// no longer reading. Only the others' latencies are compared.
    func stalled(spectators: Int) throws -> StalledResult {
        var result = StalledResult()
        result.spectators = spectators
        try withSession(spectators: spectators) { _, engine, driver in
            var fanOut = FanOutResult()
            let numbers = try connectSpectators(spectators, engine: engine, driver: driver, into: &fanOut)
            result.connected = fanOut.connected
            let stalledIndex = spectators - 1
            driver.excludedSpectator = stalledIndex
            var samples: [UInt64] = []
            var acks: [UInt64] = []
            result.missing = try press(settings.commands, driver: driver, presses: &samples, acks: &acks).missing
            result.before = Distribution(nanoseconds: samples)

            let memoryBefore = server.residentKilobytes()
            engine.post([.stall(number: numbers[stalledIndex])])
            driver.activeSpectators -= 1
            settings.progress("spectator \(stalledIndex) stopped reading")
            samples = []
            result.missing += try press(settings.commands, driver: driver, presses: &samples, acks: &acks).missing
            result.during = Distribution(nanoseconds: samples)
            if let memoryBefore, let after = server.residentKilobytes() { result.residentGrowthKilobytes = after - memoryBefore }
            result.stalledClosedByServer = engine.read { $0.stalledClosed }
        }
        return result
    }

    // MARK: - Pieces

    private func withSession(spectators: Int, _ body: (ServerTarget, ClientEngine, GatherDriver) throws -> Void) throws {
        let target = try server.begin()
        defer { server.end() }
        let organiserEngine = try ClientEngine(target: target, manySockets: false)
        defer { organiserEngine.shutdown() }
        let engine = try ClientEngine(target: target, manySockets: true)
        defer { engine.shutdown() }
        let tag = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let driver = GatherDriver(organiserEngine: organiserEngine, spectatorEngine: engine, inviteCode: settings.inviteCode,
                                  tag: tag)
        try driver.connectOrganisers(settings.organisers)
        try driver.startFreshGather(players: settings.players)
        try body(target, engine, driver)
    }

    /// Opens `count` spectators; returns their connection numbers.
    private func connectSpectators(_ count: Int, engine: ClientEngine, driver: GatherDriver,
                                   into result: inout FanOutResult) throws -> [Int] {
        settings.progress("connecting \(count) spectators")
        let startedAt = BenchClock.nanoseconds()
        let numbers = engine.open(.spectator, count: count)
        engine.wait(seconds: max(60, Double(count) / 50)) { $0.readySpectators + $0.failed >= count }
        let (ready, failed, lastReadyAt, firstError) = engine.read {
            ($0.readySpectators, $0.failed, $0.lastReadyAt, $0.firstError)
        }
        result.connected = ready
        result.failed = failed
        result.firstError = firstError
        if lastReadyAt > startedAt { result.handshakesPerSecond = Double(ready) / (Double(lastReadyAt - startedAt) / 1e9) }
        guard ready > 0 else { throw BenchError("no spectator could connect: \(firstError ?? "timed out")") }
        driver.activeSpectators = ready
        settings.progress("\(ready) spectators connected (\(failed) failed), \(Int(result.handshakesPerSecond))/s")
        return numbers
    }

    /// `count` measured presses of +1/−1 on team A, a fresh gather every `pressesPerGather`.
    /// Returns how many spectator deliveries never arrived, and how many presses were made.
    private func press(_ count: Int, driver: GatherDriver, presses: inout [UInt64], acks: inout [UInt64]) throws
        -> (missing: Int, done: Int)
    {
        var missing = 0
        let deadline = Date(timeIntervalSinceNow: settings.phaseSeconds)
        for number in 0..<count {
            guard Date() < deadline else {
                settings.progress("stopping after \(number) presses: the phase ran \(Int(settings.phaseSeconds)) s")
                return (missing, number)
            }
            if number > 0, number % settings.pressesPerGather == 0 {
                try driver.startFreshGather(players: settings.players)
            }
            let delta = number % settings.pressesPerGather % 2 == 0 ? 1 : -1
            let outcome = try driver.command(["kind": "score", "team": "A", "delta": delta],
                                             organiser: number % driver.organisers.count)
            if let ack = outcome.ackNanoseconds { acks.append(ack) }
            presses.append(contentsOf: outcome.spectatorNanoseconds)
            missing += outcome.missingSpectators
            if number % 20 == 19 { settings.progress("\(number + 1)/\(count) presses") }
        }
        return (missing, count)
    }
}
