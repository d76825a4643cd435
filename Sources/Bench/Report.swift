import Foundation

/// The run's results, as a table for people and one JSON object for machines.
struct BenchReport {
    var settings: BenchSettings
    var fanOuts: [FanOutResult] = []
    var stalled: StalledResult?
    var relays: [RelayResult] = []
    var tournament: TournamentResult?
    var club: ClubResult?

    struct Verdict {
        let met: Bool
        let text: String
    }

    // MARK: - Targets of the server's own figures (CPU per message, fan-out)

    var verdicts: [Verdict] {
        var verdicts: [Verdict] = []
        for result in fanOuts {
            let name = "\(result.spectators) \(result.wire) spectators"
            if result.wire == WireChoice.v2.rawValue, let perChange = result.bytesPerChange(organisers: settings.organisers) {
                verdicts.append(Verdict(met: perChange.bytes <= 512,
                                        text: "\(name): a score change in a gather of \(settings.players) players ≤ 512 bytes "
                                            + "per spectator (\(format(perChange.bytes)) B written; patches "
                                            + "\(range(result.patchBytes)) B at the client)"))
            }
            if result.spectators == 1_000, let cpu = result.server.cpuPerMessageMicroseconds {
                verdicts.append(Verdict(met: cpu <= 24, text: "\(name): server CPU per delivered message ≤ 24 µs (\(format(cpu)) µs)"))
            }
            if result.spectators == 10_000, let p99 = result.server.fanOut?.percentile(0.99) {
                verdicts.append(Verdict(met: p99 <= 150,
                                        text: "\(name): server publish → last write p99 ≤ 150 ms (\(ms(p99)))"))
            }
            if result.spectators == 10_000, let perConnection = result.residentKilobytesPerConnection {
                verdicts.append(Verdict(met: perConnection <= 16,
                                        text: "\(name): ≤ 16 KB server memory per idle connection (\(format(perConnection)) KB)"))
            }
            if result.spectators == 1_000, let ack = result.ack {
                verdicts.append(Verdict(met: ack.p99 <= 10,
                                        text: "\(name): durable ack p99 ≤ 10 ms (\(ms(ack.p99)), client-bound)"))
            }
        }
        return verdicts
    }

    /// The first bench's checks that still stand, measured at the bench's clients.
    var clientVerdicts: [Verdict] {
        var verdicts: [Verdict] = []
        for result in fanOuts {
            guard let ticks = result.organiserTicks ?? result.ticks else { continue }
            let server = result.server.tickLateness?.percentileBound(1.0).map { "; server wake-ups at most ≤\(bound($0)) late" } ?? ""
            verdicts.append(Verdict(met: ticks.deviation.max <= 50,
                                    text: "\(result.spectators) \(result.wire) spectators: ticks within ±50 ms of each second "
                                        + "at an organiser (worst \(ms(ticks.deviation.max)) over \(ticks.count)\(server))"))
        }
        if let stalled, let before = stalled.before?.p99, let during = stalled.during?.p99 {
            let change = (during - before) / before * 100
            verdicts.append(Verdict(met: change <= 10,
                                    text: "a stalled \(stalled.wire) spectator changes the others' press p99 by ≤ 10% "
                                        + "(\(ms(before)) → \(ms(during)), \(signed(change))%)"))
        }
        return verdicts
    }

    // MARK: - Table

    func table() -> String {
        var lines = ["gather-bench: \(settings.organisers) organisers (\(BenchSettings.organiserWire)), \(settings.commands) "
            + "presses per scenario, \(settings.players) players, a fresh gather every \(settings.pressesPerGather) presses", ""]
        if fanOuts.isEmpty, stalled == nil { return (lines + relayLines() + tournamentLines()).joined(separator: "\n") }
        let header = ["scenario", "connected", "conn/s", "KB/conn", "srv µs/msg", "B/change/spect.", "srv publish→last write p50/p99",
                      "| client-bound: press p50", "p99", "max", "ack p50", "ack p99", "tick dev p50/max", "state msg B"]
        var rows = [header]
        for result in fanOuts {
            let perChange = result.bytesPerChange(organisers: settings.organisers)
            let histogram = result.server.fanOut
            rows.append(["fan-out \(result.spectators) \(short(result.wire))", "\(result.connected)/\(result.spectators)",
                         format(result.handshakesPerSecond, decimals: 0),
                         result.residentKilobytesPerConnection.map { format($0) } ?? "n/a",
                         result.server.cpuPerMessageMicroseconds.map { format($0) } ?? "n/a",
                         perChange.map { format($0.bytes) } ?? "n/a",
                         "\(ms(histogram?.percentile(0.5))) / \(ms(histogram?.percentile(0.99)))",
                         "| " + ms(result.press?.p50), ms(result.press?.p99), ms(result.press?.max),
                         ms(result.ack?.p50), ms(result.ack?.p99),
                         result.organiserTicks.map { "\(ms($0.deviation.p50)) / \(ms($0.deviation.max))" } ?? "n/a",
                         stateSizes(result)])
        }
        lines += align(rows)
        lines += [
            "  server (from the server process, score presses only): srv µs/msg = its CPU (utime+stime, /proc) ÷ WebSocket "
                + "messages it wrote; B/change/spect. = WebSocket bytes written to the spectators' protocol ÷ changes ÷ "
                + "connections, ticks taken out; publish → last write = state handed to the Transport → the write that "
                + "brought each connection to it (/metrics, interpolated in 0.1–50 ms buckets)",
            "  client-bound (the bench's own lws clients, which parse every frame byte by byte, share the two cores): "
                + "press = command sent → each spectator read the new version; tick dev = |arrival − its second| at an organiser",
        ]
        for result in fanOuts where result.server.wallMicroseconds > 0 {
            let window = result.server
            let changes = max(1, window.changes)
            lines.append("  fan-out \(result.spectators) \(short(result.wire)): during the score presses the server used "
                + "\(format(window.cpuMicroseconds / window.wallMicroseconds, decimals: 2)) of a core and waited for one "
                + "\(ms(window.waitMicroseconds / 1000 / Double(changes))) per change; the bench used "
                + "\(format(window.benchMicroseconds / window.wallMicroseconds, decimals: 2)) cores; "
                + "server CPU per change \(ms(window.cpuMicroseconds / 1000 / Double(changes)))")
        }
        for result in fanOuts where result.error != nil || result.pressesDone < settings.commands {
            lines.append("  fan-out \(result.spectators) \(short(result.wire)): \(result.pressesDone)/\(settings.commands) presses"
                + (result.error.map { "; stopped: \($0)" } ?? ""))
        }
        for result in fanOuts where result.failed > 0 || result.missing > 0 || !result.rejections.isEmpty {
            lines.append("  fan-out \(result.spectators) \(short(result.wire)): \(result.failed) failed to connect, "
                + "\(result.missing) deliveries missing, rejections \(result.rejections)"
                + (result.firstError.map { "; first error: \($0)" } ?? ""))
        }
        if let stalled {
            lines.append("")
            lines.append("stalled \(stalled.spectators) \(short(stalled.wire)): the others' press p99 \(ms(stalled.before?.p99)) "
                + "with everyone reading, \(ms(stalled.during?.p99)) with one stalled; server RSS "
                + "\(stalled.residentGrowthKilobytes.map { "\($0 >= 0 ? "+" : "")\($0) KB" } ?? "n/a") while stalled; "
                + "stalled one closed by the server: \(stalled.stalledClosedByServer ? "yes" : "no")"
                + (stalled.error.map { "; stopped: \($0)" } ?? ""))
        }
        lines += relayLines()
        lines += tournamentLines()
        lines.append("")
        lines.append("targets (issue 15)")
        for verdict in verdicts { lines.append("  [\(verdict.met ? "met" : "MISSED")] \(verdict.text)") }
        lines.append("client-bound checks (issue 7)")
        for verdict in clientVerdicts { lines.append("  [\(verdict.met ? "met" : "MISSED")] \(verdict.text)") }
        return lines.joined(separator: "\n")
    }

    func align(_ rows: [[String]]) -> [String] {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                column == 0 ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - cell.count) + cell
            }.joined(separator: "  ")
        }
    }

    private func stateSizes(_ result: FanOutResult) -> String {
        result.patchBytes.largest > 0 ? "snap \(range(result.snapshotBytes)), patch \(range(result.patchBytes))"
            : range(result.snapshotBytes)
    }

    // MARK: - Numbers

    func short(_ wire: String) -> String { wire.replacingOccurrences(of: "gather.", with: "") }
    func range(_ sizes: (smallest: Int, largest: Int)) -> String {
        sizes.largest == 0 ? "n/a" : sizes.smallest == sizes.largest ? "\(sizes.smallest)" : "\(sizes.smallest)–\(sizes.largest)"
    }
    func bound(_ value: Double) -> String { value.isInfinite ? "inf" : format(value, decimals: 1) + " ms" }
    func ms(_ value: Double?) -> String { value.map { format($0) + " ms" } ?? "n/a" }
    func format(_ value: Double, decimals: Int = 1) -> String { String(format: "%.\(decimals)f", value) }
    func signed(_ value: Double) -> String { (value >= 0 ? "+" : "") + format(value) }
}
