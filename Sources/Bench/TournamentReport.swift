import Foundation

/// The tournament day in the table and in `--json`.
extension BenchReport {
    /// A plain match's score change per gather.v2 spectator (docs/PERFORMANCE.md, the fan-out
    /// scenario): a goal in a tournament's match should cost at most 1.5× of it.
    static let plainGoalBytes = 415.0

    func tournamentLines() -> [String] {
        guard let day = tournament else { return [] }
        var lines = ["", "tournament day: \(day.teams) teams in \(day.groups) groups on \(day.pitches) pitches, matchMinutes 1, "
            + "played over the wire by \(settings.organisers) organisers (\(BenchSettings.organiserWire)) with "
            + "\(day.connected)/\(day.spectators) \(short(day.wire)) spectators"
            + (day.relays > 0 ? " and \(day.relays) relays (\(day.relaysCaughtUp) held the last version at the end)" : "")]
        if let error = day.error { lines.append("  stopped: \(error)") }
        lines.append("  \(day.matchesPlayed)/\(day.matchesPlanned) matches, \(day.goals) goals, \(day.commands) commands in "
            + "\(format(day.seconds, decimals: 0)) s; champion \(day.champion ?? "none")")
        lines.append("  state: /api/tournament.json \(day.tournamentJSONBytes.drawn) B drawn, \(day.tournamentJSONBytes.finished) B "
            + "finished; a spectator's snapshot of the drawn day \(day.spectatorSnapshotBytes) B; an organiser's "
            + "\(BenchSettings.organiserWire) snapshot at the end \(day.organiserSnapshotBytesAtEnd) B")
        lines.append("  patches at a spectator: goal \(spread(day.goalPatchBytes)) B, kickoff/timer \(spread(day.kickOffPatchBytes)) B, "
            + "full time \(spread(day.fullTimePatchBytes)) B")
        let goals = day.goalWindow
        lines.append("  goals (server): \(day.bytesPerGoal.map { format($0) } ?? "n/a") B per goal per spectator; "
            + "\(goals.cpuPerMessageMicroseconds.map { format($0) } ?? "n/a") µs CPU per delivered message; publish → last write "
            + "p50/p99 \(ms(goals.fanOut?.percentile(0.5))) / \(ms(goals.fanOut?.percentile(0.99)))")
        lines.append("  the whole day (server, every command): \(day.dayWindow.cpuPerMessageMicroseconds.map { format($0) } ?? "n/a") µs "
            + "CPU per delivered message over \(day.dayWindow.framesTotal) messages; client-bound goal → every spectator p50/p99 "
            + "\(ms(day.goalPress?.p50)) / \(ms(day.goalPress?.p99)), ack p99 \(ms(day.ack?.p99))")
        if !day.relayMicroseconds.isEmpty {
            lines.append("  relays' CPU over the day: " + day.relayMicroseconds.map { format($0 / 1_000_000, decimals: 2) + " s" }
                .joined(separator: ", "))
        }
        if day.missing > 0 || !day.rejections.isEmpty {
            lines.append("  \(day.missing) deliveries missing, rejections \(day.rejections)")
        }
        let fanOut = fanOuts.first { $0.wire == day.wire && $0.spectators == day.spectators && $0.error == nil }
            ?? fanOuts.first { $0.wire == day.wire && $0.error == nil }
        if let cpu = goals.cpuPerMessageMicroseconds, let baseline = fanOut?.server.cpuPerMessageMicroseconds, let fanOut {
            lines.append("  next to fan-out \(fanOut.spectators) \(short(fanOut.wire)) (a plain match's score presses): "
                + "\(format(cpu)) vs \(format(baseline)) µs per delivered message")
        }
        if let bytes = day.bytesPerGoal {
            let met = bytes <= 1.5 * Self.plainGoalBytes
            lines.append("  [\(met ? "met" : "MISSED")] a goal in a tournament's match ≤ 1.5 × a plain match's "
                + "\(format(Self.plainGoalBytes, decimals: 0)) B per spectator (\(format(bytes)) B)")
        }
        return lines
    }

    func tournamentJSON() -> [String: Any]? {
        guard let day = tournament else { return nil }
        var entry: [String: Any] = [
            "teams": day.teams, "groups": day.groups, "pitches": day.pitches, "spectators": day.spectators,
            "protocol": day.wire, "connected": day.connected, "relays": day.relays, "relaysCaughtUp": day.relaysCaughtUp,
            "matchesPlayed": day.matchesPlayed, "matchesPlanned": day.matchesPlanned, "goals": day.goals,
            "commands": day.commands, "seconds": rounded(day.seconds), "missing": day.missing, "rejections": day.rejections,
            "tournamentJSONBytes": ["drawn": day.tournamentJSONBytes.drawn, "finished": day.tournamentJSONBytes.finished],
            "spectatorSnapshotBytes": day.spectatorSnapshotBytes, "organiserSnapshotBytesAtEnd": day.organiserSnapshotBytesAtEnd,
            "goalPatchBytes": day.goalPatchBytes.isEmpty ? NSNull() : ["min": day.goalPatchBytes.min()!, "max": day.goalPatchBytes.max()!],
            "relayCPUSeconds": day.relayMicroseconds.map { rounded($0 / 1_000_000) },
        ]
        entry["bytesPerGoalPerSpectator"] = day.bytesPerGoal.map(rounded)
        entry["goalMicrosecondsPerMessage"] = day.goalWindow.cpuPerMessageMicroseconds.map(rounded)
        entry["dayMicrosecondsPerMessage"] = day.dayWindow.cpuPerMessageMicroseconds.map(rounded)
        entry["goalToEverySpectatorMs"] = day.goalPress?.json
        entry["champion"] = day.champion
        entry["error"] = day.error
        return entry
    }

    private func spread(_ sizes: [Int]) -> String {
        guard let low = sizes.min(), let high = sizes.max() else { return "n/a" }
        let median = sizes.sorted()[sizes.count / 2]
        return low == high ? "\(low)" : "\(low)–\(high) (median \(median))"
    }
}
