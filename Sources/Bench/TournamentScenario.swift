import Foundation

/// What the tournament day measured.
struct TournamentResult {
    var teams = 0
    var groups = 0
    var pitches = 0
    var spectators = 0
    var wire = WireChoice.v2.rawValue
    var connected = 0
    var counted = 0
    var relays = 0
    /// Relays holding the day's last version at the end (each read from its `/healthz`).
    var relaysCaughtUp = 0
    var relayMicroseconds: [Double] = []
    var matchesPlayed = 0
    var matchesPlanned = 0
    var champion: String?
    var goals = 0
    var commands = 0
    /// `/api/tournament.json` when the day is drawn and when it is over.
    var tournamentJSONBytes = (drawn: 0, finished: 0)
    /// The spectators' snapshot on connecting (the drawn day), and an organiser's gather.v1
    /// snapshot (the whole state) at the end.
    var spectatorSnapshotBytes = 0
    var organiserSnapshotBytesAtEnd = 0
    /// Patch sizes at a spectator, per kind of change.
    var goalPatchBytes: [Int] = []
    var kickOffPatchBytes: [Int] = []
    var fullTimePatchBytes: [Int] = []
    /// The server over the goal presses only, and over the whole day of play.
    var goalWindow = ServerWindow()
    var dayWindow = ServerWindow()
    var tickFrameBytes: Int?
    var goalPress: Distribution?
    var ack: Distribution?
    var missing = 0
    var rejections: [String: Int] = [:]
    var seconds = 0.0
    var error: String?

    /// Bytes written per goal per spectator, ticks taken out (organisers speak gather.v1, apart).
    var bytesPerGoal: Double? {
        goalWindow.bytesPerChangePerSpectator(wire: wire, connections: counted, organisersShareProtocol: false,
                                              tickFrameBytes: tickFrameBytes)?.bytes
    }
}

/// 32 teams (by default) in 8 groups on 8 pitches, `matchMinutes` 1, every match kicked off,
/// scored and ended over the wire by the organisers while the spectators follow; with relays when
/// the run starts them. Measured on the server: CPU per delivered message and bytes per goal per
/// spectator in the goal presses (as the fan-out scenario measures its score presses), and over
/// the whole day.
struct TournamentDay {
    let server: ServerUnderTest
    let target: ServerTarget
    let settings: BenchSettings
    var teams = 32
    var groups = 8
    var advance = 2
    var pitches = 8
    var thirdPlace = true
    var relaysHold: ((Int) -> Bool)?
    var relayPIDs: [Int32] = []

    func run(spectators: Int) throws -> TournamentResult {
        var result = TournamentResult()
        (result.teams, result.groups, result.pitches, result.spectators) = (teams, groups, pitches, spectators)
        result.relays = relayPIDs.count
        let startedAt = Date()
        let organiserEngine = try ClientEngine(target: target, manySockets: false, wire: BenchSettings.organiserWire,
                                               sources: SourceAddresses(firstBlock: 0, connections: settings.organisers))
        defer { organiserEngine.shutdown() }
        let engine = try ClientEngine(target: target, manySockets: true, wire: result.wire,
                                      sources: SourceAddresses(firstBlock: 1, connections: spectators))
        defer { engine.shutdown() }
        let driver = GatherDriver(organiserEngine: organiserEngine, spectatorEngine: engine, inviteCode: settings.inviteCode,
                                  tag: String(UInt32.random(in: 0...UInt32.max), radix: 36))
        try driver.connectOrganisers(settings.organisers)
        let pitchIDs = try driver.ensurePitches(pitches)
        if let current = driver.tournament(), current["phase"] as? String != "finished" {
            try driver.require(["kind": "cancelTournament"])
        }
        try driver.require(["kind": "createTournament", "name": "Bench Cup", "teams": (1...teams).map { "Bench team \($0)" },
                            "groups": groups, "advance": advance, "matchMinutes": 1, "breakMinutes": 0,
                            "pitches": pitchIDs, "thirdPlace": thirdPlace])
        result.tournamentJSONBytes.drawn = tournamentJSONBytes()
        result.matchesPlanned = (driver.tournament()?["matches"] as? [Any])?.count ?? 0

        settings.progress("tournament: \(teams) teams, \(result.matchesPlanned) matches; connecting \(spectators) spectators")
        _ = engine.open(.spectator, count: spectators)
        engine.wait(seconds: min(max(60, Double(spectators) / 100), secondsLeft())) { $0.readySpectators + $0.failed >= spectators }
        result.connected = engine.read { $0.readySpectators }
        guard result.connected > 0 else { throw BenchError("no spectator could connect") }
        Thread.sleep(forTimeInterval: 1)
        result.counted = FanOutHistogram.spectatorCount(target) ?? result.connected
        driver.activeSpectators = result.connected
        result.spectatorSnapshotBytes = engine.read { $0.snapshotBytes.largest }

        var presses: [UInt64] = []
        var acks: [UInt64] = []
        let dayStart = ServerWindow.startMark(server, target)
        let relaysBefore = relayPIDs.map { ProcessCPU.microseconds(of: $0) ?? 0 }
        var organiser = 0
        func send(_ action: [String: Any], patches: inout [Int]) throws -> PressOutcome {
            engine.update { $0.patchBytes = (Int.max, 0) }
            let outcome = try driver.command(action, organiser: organiser % driver.organisers.count)
            organiser += 1
            result.commands += 1
            if let ack = outcome.ackNanoseconds { acks.append(ack) }
            result.missing += outcome.missingSpectators
            let largest = engine.read { $0.patchBytes.largest }
            if outcome.replyType == "ack", largest > 0 { patches.append(largest) }
            return outcome
        }
        var slots = 0
        while let tournament = driver.tournament(), tournament["phase"] as? String != "finished" {
            guard secondsLeft() > 0 else { throw BenchError("the run's time budget is spent after \(result.matchesPlayed) matches") }
            let kickOffs = GatherDriver.nextKickOffs(tournament)
            guard !kickOffs.isEmpty else { throw BenchError("no match can kick off in phase \(tournament["phase"] ?? "?")") }
            var live: [(id: Int, pitch: Int, knockout: Bool, home: Int, away: Int)] = []
            for match in kickOffs {
                guard let id = match["id"] as? Int, let pitch = match["pitch"] as? Int else { continue }
                guard try send(["kind": "startMatch", "match": id], patches: &result.kickOffPatchBytes).replyType == "ack" else {
                    throw BenchError("startMatch \(id) was refused: \(driver.rejections)")
                }
                _ = try send(["kind": "startTimer", "pitch": pitch], patches: &result.kickOffPatchBytes)
                let score = GatherDriver.plannedScore(match: id)
                live.append((id, pitch, match["stage"] as? String != "group", score.home, score.away))
            }
            // Goals pitch after pitch, as they fall on a real day; the server's counters around them only.
            var window: (mark: ServerWindow.Mark, presses: Int, replyBytes: Int) = (ServerWindow.startMark(server, target), 0, 0)
            for round in 0..<3 {
                for match in live {
                    for (team, goals) in [("A", match.home), ("B", match.away)] where round < goals {
                        let outcome = try send(["kind": "score", "team": team, "delta": 1, "pitch": match.pitch, "confirmed": true],
                                               patches: &result.goalPatchBytes)
                        window.presses += 1
                        window.replyBytes += outcome.replyBytes
                        presses.append(contentsOf: outcome.spectatorNanoseconds)
                        result.goals += outcome.replyType == "ack" ? 1 : 0
                    }
                }
            }
            result.goalWindow.add(from: window.mark, to: ServerWindow.endMark(server, target), presses: window.presses,
                                  replyBytes: window.replyBytes)
            for match in live {
                var end: [String: Any] = ["kind": "endGather", "pitch": match.pitch]
                if match.knockout, match.home == match.away { end["penalties"] = match.id % 2 == 0 ? ["A": 5, "B": 4] : ["A": 3, "B": 4] }
                guard try send(end, patches: &result.fullTimePatchBytes).replyType == "ack" else {
                    throw BenchError("full time of match \(match.id) was refused: \(driver.rejections)")
                }
                result.matchesPlayed += 1
            }
            slots += 1
            settings.progress("slot \(slots): \(result.matchesPlayed)/\(result.matchesPlanned) matches, \(result.goals) goals")
        }
        result.dayWindow.add(from: dayStart, to: ServerWindow.endMark(server, target), presses: result.commands, replyBytes: 0)
        result.relayMicroseconds = zip(relayPIDs, relaysBefore).map { (ProcessCPU.microseconds(of: $0) ?? 0) - $1 }
        if let relaysHold {
            result.relaysCaughtUp = relaysHold(driver.currentVersion) ? relayPIDs.count : 0
        }
        let final = driver.tournament()
        if let champion = final?["champion"] as? Int {
            result.champion = ((final?["teams"] as? [[String: Any]]) ?? []).first { $0["id"] as? Int == champion }?["name"] as? String
        }
        result.tournamentJSONBytes.finished = tournamentJSONBytes()
        result.organiserSnapshotBytesAtEnd = organiserEngine.read { $0.organiserSnapshots[0]?.count ?? 0 }
        result.tickFrameBytes = engine.read { $0.ticks.last.map { $0.bytes.count + frameHeaderBytes(payload: $0.bytes.count) } }
        result.goalPress = Distribution(nanoseconds: presses)
        result.ack = Distribution(nanoseconds: acks)
        result.rejections = driver.rejections
        result.seconds = Date().timeIntervalSince(startedAt)
        return result
    }

    private func secondsLeft() -> Double { max(0, settings.runDeadline.timeIntervalSinceNow) }

    private func tournamentJSONBytes() -> Int {
        runCurl(["--max-time", "30", "--cacert", target.caPath, "https://\(target.host):\(target.port)/api/tournament.json"])?
            .output.count ?? 0
    }
}
