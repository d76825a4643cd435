import Foundation

/// Runs the scenarios against one server; each gets fresh client engines (and, when the bench
/// started the server, a fresh server process).
struct ScenarioRunner {
    let server: ServerUnderTest
    let settings: BenchSettings

    // MARK: - Fan-out

    func fanOut(spectators: Int, wire: String) throws -> FanOutResult {
        var result = FanOutResult()
        result.spectators = spectators
        result.wire = wire
        try withSession(spectators: spectators, wire: wire) { target, engine, driver in
            let before = server.residentKilobytes()
            _ = try connectSpectators(spectators, engine: engine, driver: driver, into: &result)
            Thread.sleep(forTimeInterval: 2)  // let presence settle: the memory figure is for idle connections
            // The server's own count: handshakes that finish after the connect phase still cost memory.
            result.counted = FanOutHistogram.spectatorCount(target) ?? result.connected
            if let before, let after = server.residentKilobytes(), result.counted > 0 {
                result.residentKilobytesPerConnection = Double(after - before) / Double(result.counted)
            }
            var presses: [UInt64] = []
            var acks: [UInt64] = []
            (result.missing, result.pressesDone) = try press(settings.commands, driver: driver, presses: &presses,
                                                             acks: &acks, measuring: target, into: &result.server)
            engine.wait(seconds: min(8, secondsLeft())) { $0.ticks.count >= 5 }
            result.press = Distribution(nanoseconds: presses)
            result.ack = Distribution(nanoseconds: acks)
            let ticks = engine.read { $0.ticks }
            result.ticks = TickRegularity(ticks: ticks)
            result.tickFrameBytes = ticks.last.map { $0.bytes.count + frameHeaderBytes(payload: $0.bytes.count) }
            result.organiserTicks = TickRegularity(ticks: driver.organiserEngine.read { $0.ticks })
            (result.snapshotBytes, result.patchBytes) = engine.read { ($0.snapshotBytes, $0.patchBytes) }
            result.rejections = driver.rejections
        }
        return result
    }

    // MARK: - One stalled spectator

    /// The same presses twice over `spectators`: first all reading, then with the last one
    /// no longer reading. Only the others' latencies are compared.
    func stalled(spectators: Int, wire: String) throws -> StalledResult {
        var result = StalledResult()
        result.spectators = spectators
        result.wire = wire
        try withSession(spectators: spectators, wire: wire) { _, engine, driver in
            var fanOut = FanOutResult()
            let numbers = try connectSpectators(spectators, engine: engine, driver: driver, into: &fanOut)
            result.connected = fanOut.connected
            let stalledIndex = spectators - 1
            driver.excludedSpectator = stalledIndex
            var samples: [UInt64] = []
            var acks: [UInt64] = []
            var unmeasured = ServerWindow()
            result.missing = try press(settings.commands, driver: driver, presses: &samples, acks: &acks,
                                       measuring: nil, into: &unmeasured).missing
            result.before = Distribution(nanoseconds: samples)

            let memoryBefore = server.residentKilobytes()
            engine.post([.stall(number: numbers[stalledIndex])])
            driver.activeSpectators -= 1
            settings.progress("spectator \(stalledIndex) stopped reading")
            samples = []
            result.missing += try press(settings.commands, driver: driver, presses: &samples, acks: &acks,
                                        measuring: nil, into: &unmeasured).missing
            result.during = Distribution(nanoseconds: samples)
            if let memoryBefore, let after = server.residentKilobytes() { result.residentGrowthKilobytes = after - memoryBefore }
            result.stalledClosedByServer = engine.read { $0.stalledClosed }
        }
        return result
    }

    // MARK: - Pieces

    private func secondsLeft() -> Double { max(0, settings.runDeadline.timeIntervalSinceNow) }

    private func withSession(spectators: Int, wire: String,
                             _ body: (ServerTarget, ClientEngine, GatherDriver) throws -> Void) throws {
        guard secondsLeft() > 0 else { throw BenchError("the run's time budget is spent") }
        let target = try server.begin()
        defer { server.end() }
        let organiserEngine = try ClientEngine(target: target, manySockets: false, wire: BenchSettings.organiserWire,
                                               sources: SourceAddresses(firstBlock: 0, connections: settings.organisers))
        defer { organiserEngine.shutdown() }
        let engine = try ClientEngine(target: target, manySockets: true, wire: wire,
                                      sources: SourceAddresses(firstBlock: 1, connections: spectators))
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
        settings.progress("connecting \(count) \(engine.wire) spectators")
        let startedAt = BenchClock.nanoseconds()
        let numbers = engine.open(.spectator, count: count)
        engine.wait(seconds: min(max(60, Double(count) / 100), secondsLeft())) { $0.readySpectators + $0.failed >= count }
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
    /// With a target to measure, the server's counters are read around each run of score presses (the
    /// fresh gathers' set-up falls outside). Returns how many spectator deliveries never arrived,
    /// and how many presses were made.
    private func press(_ count: Int, driver: GatherDriver, presses: inout [UInt64], acks: inout [UInt64],
                       measuring target: ServerTarget?, into window: inout ServerWindow) throws
        -> (missing: Int, done: Int)
    {
        var missing = 0
        let deadline = min(Date(timeIntervalSinceNow: settings.phaseSeconds), settings.runDeadline)
        var open: (mark: ServerWindow.Mark, presses: Int, replyBytes: Int)?
        func closeWindow() {
            guard let target, let started = open else { return }
            window.add(from: started.mark, to: ServerWindow.endMark(server, target), presses: started.presses,
                       replyBytes: started.replyBytes)
            open = nil
        }
        defer { closeWindow() }
        for number in 0..<count {
            guard Date() < deadline else {
                settings.progress("stopping after \(number) presses: the phase's time is up")
                return (missing, number)
            }
            if number > 0, number % settings.pressesPerGather == 0 {
                closeWindow()
                try driver.startFreshGather(players: settings.players)
            }
            if let target, open == nil { open = (ServerWindow.startMark(server, target), 0, 0) }
            let delta = number % settings.pressesPerGather % 2 == 0 ? 1 : -1
            let outcome = try driver.command(["kind": "score", "team": "A", "delta": delta],
                                             organiser: number % driver.organisers.count)
            open?.presses += 1
            open?.replyBytes += outcome.replyBytes
            if let ack = outcome.ackNanoseconds { acks.append(ack) }
            presses.append(contentsOf: outcome.spectatorNanoseconds)
            missing += outcome.missingSpectators
            if number % 20 == 19 { settings.progress("\(number + 1)/\(count) presses") }
        }
        return (missing, count)
    }
}
