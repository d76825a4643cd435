import Foundation

/// The relay scenarios' table, figures per core-second and the relays' targets.
extension BenchReport {
    func relayLines() -> [String] {
        guard !relays.isEmpty else { return [] }
        var lines = ["", "relays (issue 22): the venue's door holds only the \(settings.organisers) organisers; followers "
            + "(gather.v2) read relays fed by the venue through a real nats-server (JetStream)"]
        let header = ["scenario", "connected", "venue µs/version 0 → N", "relay µs/msg", "floor µs/msg", "relay ÷ floor",
                      "relay KB/follower", "press→door p50/p99", "press→NATS p50/p99", "press→last follower p50/p99",
                      "NATS hop share", "missing"]
        var rows = [header]
        for result in relays {
            let idle = result.venueIdle.netMicrosecondsPerVersion
            let loaded = result.venueLoaded.netMicrosecondsPerVersion
            let change = idle.flatMap { idle in loaded.map { ($0 - idle) / idle * 100 } }
            let perRelay = result.relayMicroseconds.indices.compactMap { result.relayMicrosecondsPerMessage($0) }
            let floor = result.floor?.microsecondsPerMessage
            let ratio = result.relaysMicrosecondsPerMessage.flatMap { relay in floor.map { relay / $0 } }
            rows.append([
                relayName(result), "\(result.connected)/\(result.followers)",
                "\(opt(idle)) → \(opt(loaded)) (\(change.map { signed($0) + "%" } ?? "n/a"))",
                perRelay.isEmpty ? "n/a" : perRelay.map { format($0, decimals: 2) }.joined(separator: ", "),
                opt(floor, decimals: 2), ratio.map { format($0, decimals: 2) + "×" } ?? "n/a",
                result.relayKilobytesPerFollower.map { format($0) }.joined(separator: ", "),
                pair(result.pressToDoor), pair(result.pressToTap), pair(result.pressToLast),
                hopShare(result).map { format($0 * 100) + "%" } ?? "n/a",
                "\(result.skippedVersions + result.behindAtEnd)",
            ])
        }
        lines += align(rows)
        lines += [
            "  venue µs/version = the venue's CPU (every thread, its process CPU clock: /proc/PID/stat's figure in ns) over the score "
                + "presses, less its quiet background (CPU per second over 3 s without presses × the presses' time), ÷ "
                + "versions, with no follower and with N; relay µs/msg = each relay's CPU ÷ the messages its followers read "
                + "(patches, ticks, presence); floor = one thread writing the same frame in a tight loop (write / SSL_write) "
                + "to as many loopback connections as one relay served",
            "  press→door = command sent → an organiser on the venue's door read the version; press→NATS = → a plain NATS "
                + "subscriber in the bench got it (when a relay can first have it); press→last follower = → the last of "
                + "every follower held it; NATS hop share = (press→NATS − press→door) ÷ press→last follower, medians",
        ]
        for result in relays {
            let name = relayName(result)
            let window = result.venueLoaded
            if window.wallMicroseconds > 0 {
                let wall = window.wallMicroseconds
                lines.append("  \(name): all on the same 2 cores during the presses with followers: venue "
                    + "\(format(window.cpuMicroseconds / wall, decimals: 2)), relays "
                    + result.relayMicroseconds.map { format($0 / wall, decimals: 2) }.joined(separator: " + ")
                    + ", nats-server \(format(result.natsMicroseconds / wall, decimals: 2)), the bench's followers "
                    + "\(format(result.workerMicroseconds / wall, decimals: 2)) of a core")
            }
            var perCore: [String] = []
            if let idle = result.venueIdle.netMicrosecondsPerVersion, let loaded = result.venueLoaded.netMicrosecondsPerVersion {
                perCore.append("venue \(format(1e6 / idle, decimals: 0)) → \(format(1e6 / loaded, decimals: 0)) versions")
            }
            if let relay = result.relaysMicrosecondsPerMessage { perCore.append("a relay \(format(1e6 / relay, decimals: 0)) messages") }
            if let floor = result.floor?.microsecondsPerMessage { perCore.append("the floor \(format(1e6 / floor, decimals: 0)) messages") }
            if !perCore.isEmpty { lines.append("  \(name): per core-second: " + perCore.joined(separator: ", ")) }
            lines.append("  \(name): venue background \(format(result.venueIdle.backgroundPerSecond / 1000)) → "
                + "\(format(result.venueLoaded.backgroundPerSecond / 1000)) ms of CPU per second without presses; raw CPU per "
                + "version \(opt(result.venueIdle.microsecondsPerVersion)) → \(opt(result.venueLoaded.microsecondsPerVersion)) µs")
            if result.venueLoaded.publishMicroseconds > 0, result.venueLoaded.versions > 0 {
                lines.append("  \(name): the venue's publisher thread \(format(result.venueLoaded.publishMicroseconds / Double(result.venueLoaded.versions))) "
                    + "µs per version (gather_stream_publish_cpu_seconds_total)")
            }
            lines += nchanLines(result, name: name)
            if let floor = result.floor {
                lines.append("  \(name): floor \(floor.connections) \(floor.tls ? "TLS" : "plain") connections × "
                    + "\(floor.connections > 0 ? floor.messages / floor.connections : 0) frames of \(floor.frameBytes) B"
                    + (floor.error.map { "; failed: \($0)" } ?? ""))
            }
            if result.failed > 0 || result.incompletePresses > 0 || result.skippedVersions > 0 || result.behindAtEnd > 0
                || result.resyncs > 0 || result.error != nil
            {
                lines.append("  \(name): \(result.failed) failed to connect, \(result.incompletePresses) presses not read by "
                    + "every follower within 30 s, \(result.skippedVersions) versions skipped, \(result.behindAtEnd) followers "
                    + "behind at the end, \(result.resyncs) resyncs" + (result.firstError.map { "; first error: \($0)" } ?? "")
                    + (result.error.map { "; stopped: \($0)" } ?? ""))
            }
        }
        lines.append("targets (issue 22)")
        for verdict in relayVerdicts { lines.append("  [\(verdict.met ? "met" : "MISSED")] \(verdict.text)") }
        return lines
    }

    var relayVerdicts: [Verdict] {
        var verdicts: [Verdict] = []
        for result in relays {
            let name = relayName(result)
            if let idle = result.venueIdle.netMicrosecondsPerVersion, let loaded = result.venueLoaded.netMicrosecondsPerVersion,
               let rawIdle = result.venueIdle.microsecondsPerVersion, let rawLoaded = result.venueLoaded.microsecondsPerVersion
            {
                let change = (loaded - idle) / idle * 100
                verdicts.append(Verdict(met: abs(change) <= 20, text: "\(name): venue CPU per version flat ±20% from 0 to "
                    + "\(result.connected) followers (\(format(idle)) → \(format(loaded)) µs, \(signed(change))%; before taking "
                    + "out the venue's quiet background \(format(rawIdle)) → \(format(rawLoaded)) µs)"))
            }
            if let relay = result.relaysMicrosecondsPerMessage, let floor = result.floor?.microsecondsPerMessage {
                verdicts.append(Verdict(met: relay <= 1.3 * floor, text: "\(name): a relay ≤ 1.3× the floor per delivered "
                    + "message (\(format(relay, decimals: 2)) vs \(format(floor, decimals: 2)) µs, \(format(relay / floor, decimals: 2))×)"))
            }
            let missing = result.skippedVersions + result.behindAtEnd + result.incompletePresses
            verdicts.append(Verdict(met: result.connected == result.followers && missing == 0 && result.error == nil,
                                    text: "\(name): \(result.followers) followers on \(result.relays) relays connected "
                                        + "(\(result.connected)) and following with no missing version (\(result.skippedVersions) "
                                        + "skipped, \(result.behindAtEnd) behind at the end, \(result.incompletePresses) presses "
                                        + "incomplete; every follower checked)"))
            verdicts += nchanVerdicts(result, name: name)
            if !result.tls, !result.relayKilobytesPerFollower.isEmpty {
                let worst = result.relayKilobytesPerFollower.max() ?? 0
                verdicts.append(Verdict(met: worst <= 20, text: "\(name): relay memory ≤ 20 KB per idle follower over plain ws "
                    + "(\(result.relayKilobytesPerFollower.map { format($0) }.joined(separator: ", ")) KB)"))
            }
        }
        return verdicts
    }

    func relayName(_ result: RelayResult) -> String {
        "relays \(result.relays)×\(result.tls ? "wss" : "ws") \(result.followers)"
    }

    func opt(_ value: Double?, decimals: Int = 1) -> String { value.map { format($0, decimals: decimals) } ?? "n/a" }

    private func pair(_ samples: [UInt64]) -> String {
        guard let distribution = Distribution(nanoseconds: samples) else { return "n/a" }
        return "\(format(distribution.p50)) / \(format(distribution.p99)) ms"
    }

    func hopShare(_ result: RelayResult) -> Double? {
        guard let door = Distribution(nanoseconds: result.pressToDoor), let tap = Distribution(nanoseconds: result.pressToTap),
              let last = Distribution(nanoseconds: result.pressToLast), last.p50 > 0
        else { return nil }
        return max(0, tap.p50 - door.p50) / last.p50
    }
}
