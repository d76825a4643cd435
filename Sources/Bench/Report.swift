import Foundation

/// The run's results, as a table for people and one JSON object for machines.
struct BenchReport {
    var settings: BenchSettings
    var fanOuts: [FanOutResult] = []
    var stalled: StalledResult?

    // MARK: - Targets of issue 7

    struct Verdict {
        let met: Bool
        let text: String
    }

    var verdicts: [Verdict] {
        var verdicts: [Verdict] = []
        for result in fanOuts {
            let limit: Double? = result.spectators == 1_000 ? 25 : result.spectators == 10_000 ? 150 : nil
            if let limit, let p99 = result.press?.p99 {
                verdicts.append(Verdict(met: p99 <= limit && result.missing == 0,
                                        text: "\(result.spectators) spectators: press → every spectator p99 ≤ \(Int(limit)) ms "
                                            + "(\(ms(p99)), \(result.missing) never arrived)"))
            }
            if result.spectators == 10_000, let perConnection = result.residentKilobytesPerConnection {
                verdicts.append(Verdict(met: perConnection <= 16,
                                        text: "10000 spectators: ≤ 16 KB server memory per idle connection (\(format(perConnection)) KB)"))
            }
            if let ack = result.ack {
                verdicts.append(Verdict(met: ack.p99 <= 10, text: "\(result.spectators) spectators: durable ack p99 ≤ 10 ms (\(ms(ack.p99)))"))
            }
            if let ticks = result.organiserTicks ?? result.ticks {
                let server = result.serverTickLateness?.percentileBound(1.0).map { "; server wake-ups at most ≤\(bound($0)) late" } ?? ""
                let spectator = result.ticks.map { "; the last spectator, behind its loop's snapshot parsing: worst \(ms($0.deviation.max))" } ?? ""
                verdicts.append(Verdict(met: ticks.deviation.max <= 50,
                                        text: "\(result.spectators) spectators: ticks within ±50 ms of each second at an organiser "
                                            + "(worst \(ms(ticks.deviation.max)) over \(ticks.count)\(spectator)\(server))"))
            }
        }
        if let stalled, let before = stalled.before?.p99, let during = stalled.during?.p99 {
            let change = (during - before) / before * 100
            verdicts.append(Verdict(met: change <= 10,
                                    text: "a stalled spectator changes the others' p99 by ≤ 10% (\(ms(before)) → \(ms(during)), \(signed(change))%)"))
        }
        return verdicts
    }

    // MARK: - Table

    func table() -> String {
        var lines = ["gather-bench: \(settings.organisers) organisers, \(settings.commands) presses per scenario, "
            + "\(settings.players) players, a fresh gather every \(settings.pressesPerGather) presses", ""]
        let header = ["scenario", "connected", "conn/s", "KB/conn", "press p50", "p95", "p99", "max", "ack p50", "ack p99",
                      "tick dev p50/max", "last spect. tick max", "snapshot B", "server fan-out p50/p99"]
        var rows = [header]
        for result in fanOuts {
            rows.append(["fan-out \(result.spectators)", "\(result.connected)/\(result.spectators)",
                         format(result.handshakesPerSecond, decimals: 0),
                         result.residentKilobytesPerConnection.map { format($0) } ?? "n/a",
                         ms(result.press?.p50), ms(result.press?.p95), ms(result.press?.p99), ms(result.press?.max),
                         ms(result.ack?.p50), ms(result.ack?.p99),
                         result.organiserTicks.map { "\(ms($0.deviation.p50)) / \(ms($0.deviation.max))" } ?? "n/a",
                         result.ticks.map { ms($0.deviation.max) } ?? "n/a",
                         "\(result.snapshotBytes.smallest)–\(result.snapshotBytes.largest)",
                         serverColumn(result.serverFanOut)])
        }
        lines += align(rows)
        lines.append("  (press = command sent → each spectator read the new snapshot; tick dev = |arrival − its second| at an "
            + "organiser, on the organisers' own client loop; server fan-out = /metrics bucket bound of snapshot handed "
            + "to the Transport → lws_write per connection)")
        for result in fanOuts where result.error != nil || result.pressesDone < settings.commands {
            lines.append("  fan-out \(result.spectators): \(result.pressesDone)/\(settings.commands) presses"
                + (result.error.map { "; stopped: \($0)" } ?? ""))
        }
        for result in fanOuts where result.failed > 0 || result.missing > 0 || !result.rejections.isEmpty {
            lines.append("  fan-out \(result.spectators): \(result.failed) failed to connect, \(result.missing) deliveries missing, "
                + "rejections \(result.rejections)\(result.firstError.map { "; first error: \($0)" } ?? "")")
        }
        if let stalled {
            lines.append("")
            lines.append("stalled \(stalled.spectators): the others' press p99 \(ms(stalled.before?.p99)) with everyone reading, "
                + "\(ms(stalled.during?.p99)) with one stalled; server RSS "
                + "\(stalled.residentGrowthKilobytes.map { "\($0 >= 0 ? "+" : "")\($0) KB" } ?? "n/a") while stalled; "
                + "stalled one closed by the server: \(stalled.stalledClosedByServer ? "yes" : "no")"
                + (stalled.error.map { "; stopped: \($0)" } ?? ""))
        }
        lines.append("")
        lines.append("targets (issue 7)")
        for verdict in verdicts { lines.append("  [\(verdict.met ? "met" : "MISSED")] \(verdict.text)") }
        return lines.joined(separator: "\n")
    }

    private func align(_ rows: [[String]]) -> [String] {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                column == 0 ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - cell.count) + cell
            }.joined(separator: "  ")
        }
    }

    // MARK: - JSON

    func json() -> String {
        var object: [String: Any] = [
            "settings": ["organisers": settings.organisers, "commands": settings.commands, "players": settings.players,
                         "pressesPerGather": settings.pressesPerGather],
            "fanOut": fanOuts.map(json),
            "targets": verdicts.map { ["met": $0.met, "target": $0.text] },
        ]
        if let stalled {
            var entry: [String: Any] = ["spectators": stalled.spectators, "connected": stalled.connected,
                                        "stalledClosedByServer": stalled.stalledClosedByServer, "missing": stalled.missing]
            entry["pressBefore"] = stalled.before?.json
            entry["pressDuring"] = stalled.during?.json
            entry["residentGrowthKB"] = stalled.residentGrowthKilobytes
            entry["error"] = stalled.error
            object["stalled"] = entry
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    private func json(_ result: FanOutResult) -> [String: Any] {
        var entry: [String: Any] = [
            "spectators": result.spectators, "connected": result.connected, "failed": result.failed,
            "handshakesPerSecond": rounded(result.handshakesPerSecond), "missing": result.missing,
            "snapshotBytes": ["min": result.snapshotBytes.smallest, "max": result.snapshotBytes.largest],
            "rejections": result.rejections,
        ]
        entry["residentKBPerConnection"] = result.residentKilobytesPerConnection.map(rounded)
        entry["pressToEverySpectatorMs"] = result.press?.json
        entry["durableAckMs"] = result.ack?.json
        entry["tickDeviationMs"] = result.organiserTicks?.deviation.json
        entry["lastSpectatorTickDeviationMs"] = result.ticks?.deviation.json
        entry["firstError"] = result.firstError
        entry["error"] = result.error
        entry["pressesDone"] = result.pressesDone
        if let histogram = result.serverTickLateness, histogram.total > 0 {
            entry["serverTickLatenessMs"] = ["ticks": histogram.total,
                                             "maxAtMost": histogram.percentileBound(1.0).map(jsonBound) as Any]
        }
        if let histogram = result.serverFanOut, histogram.total > 0 {
            entry["serverFanOutMs"] = ["writes": histogram.total,
                                       "p50AtMost": histogram.percentileBound(0.5).map(jsonBound) as Any,
                                       "p99AtMost": histogram.percentileBound(0.99).map(jsonBound) as Any]
        }
        return entry
    }

    // MARK: - Numbers

    private func serverColumn(_ histogram: FanOutHistogram?) -> String {
        guard let histogram, let p50 = histogram.percentileBound(0.5), let p99 = histogram.percentileBound(0.99) else {
            return "n/a"
        }
        return "≤\(bound(p50)) / ≤\(bound(p99))"
    }

    private func bound(_ value: Double) -> String { value.isInfinite ? "inf" : format(value, decimals: 0) + " ms" }
    private func jsonBound(_ value: Double) -> Any { value.isInfinite ? "+Inf" : value }

    private func ms(_ value: Double?) -> String { value.map { format($0) + " ms" } ?? "n/a" }
    private func format(_ value: Double, decimals: Int = 1) -> String { String(format: "%.\(decimals)f", value) }
    private func signed(_ value: Double) -> String { (value >= 0 ? "+" : "") + format(value) }
}
