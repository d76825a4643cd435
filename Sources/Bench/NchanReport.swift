import Foundation

/// The relay beside nginx + nchan: both ratios, in the table and in the JSON.
extension RelayResult {
    /// The relays' memory per idle follower (their mean), KB.
    var relayKilobytesPerFollowerMean: Double? {
        relayKilobytesPerFollower.isEmpty ? nil : relayKilobytesPerFollower.reduce(0, +) / Double(relayKilobytesPerFollower.count)
    }

    /// Relay CPU ÷ nchan CPU per delivered message (≤ 1: the relay costs no more).
    var cpuRatioToNchan: Double? {
        guard let relay = relaysMicrosecondsPerMessage, let nchan = nchan?.microsecondsPerMessage, nchan > 0 else { return nil }
        return relay / nchan
    }

    /// Relay memory ÷ nchan memory per connection.
    var memoryRatioToNchan: Double? {
        guard let relay = relayKilobytesPerFollowerMean, let nchan = nchan?.kilobytesPerConnection, nchan > 0 else { return nil }
        return relay / nchan
    }
}

extension BenchReport {
    func nchanLines(_ result: RelayResult, name: String) -> [String] {
        guard let nchan = result.nchan else { return [] }
        var lines = ["  \(name): nginx + nchan (one worker) fed the same \(nchan.published) state messages over its HTTP "
            + "publisher, \(nchan.connected)/\(nchan.followers) ws followers: \(opt(nchan.microsecondsPerMessage, decimals: 2)) "
            + "µs per delivered message (\(nchan.messages) messages, its worker's CPU), "
            + "\(opt(nchan.kilobytesPerConnection)) KB per connection (worker RSS growth ÷ followers)"]
        lines.append("  \(name): relay ÷ nchan: CPU per delivered message "
            + "\(opt(result.relaysMicrosecondsPerMessage, decimals: 2)) ÷ \(opt(nchan.microsecondsPerMessage, decimals: 2)) µs = "
            + "\(opt(result.cpuRatioToNchan, decimals: 2))×; memory per connection \(opt(result.relayKilobytesPerFollowerMean)) ÷ "
            + "\(opt(nchan.kilobytesPerConnection)) KB = \(opt(result.memoryRatioToNchan, decimals: 2))×")
        if nchan.failed > 0 || nchan.incompleteMessages > 0 || nchan.skippedVersions > 0 || nchan.behindAtEnd > 0
            || nchan.error != nil
        {
            lines.append("  \(name): nchan: \(nchan.failed) failed to connect, \(nchan.incompleteMessages) messages not read "
                + "by every follower within 30 s, \(nchan.skippedVersions) versions skipped, \(nchan.behindAtEnd) behind at "
                + "the end" + (nchan.firstError.map { "; first error: \($0)" } ?? "") + (nchan.error.map { "; stopped: \($0)" } ?? ""))
        }
        return lines
    }

    func nchanVerdicts(_ result: RelayResult, name: String) -> [Verdict] {
        guard let nchan = result.nchan else { return [] }
        guard let cpu = result.cpuRatioToNchan else {
            return [Verdict(met: false, text: "\(name): relay vs nginx + nchan not measured (\(nchan.error ?? "no message delivered"))")]
        }
        return [
            Verdict(met: cpu <= 1, text: "\(name): the relay at or below nginx + nchan's CPU per delivered message in the "
                + "same run (\(format(cpu, decimals: 2))×: \(opt(result.relaysMicrosecondsPerMessage, decimals: 2)) vs "
                + "\(opt(nchan.microsecondsPerMessage, decimals: 2)) µs)"),
            Verdict(met: (result.memoryRatioToNchan ?? .infinity) <= 1, text: "\(name): the relay's memory per connection at "
                + "or below nginx + nchan's (\(opt(result.memoryRatioToNchan, decimals: 2))×)"),
        ]
    }

    func nchanJSON(_ nchan: NchanResult, relay: RelayResult) -> [String: Any] {
        var entry: [String: Any] = [
            "followers": nchan.followers, "connected": nchan.connected, "failed": nchan.failed,
            "published": nchan.published, "messages": nchan.messages,
            "cpuMs": nchan.cpuMicroseconds / 1_000, "wallMs": nchan.wallMicroseconds / 1_000,
            "incompleteMessages": nchan.incompleteMessages, "skippedVersions": nchan.skippedVersions,
            "behindAtEnd": nchan.behindAtEnd,
        ]
        entry["microsecondsPerMessage"] = nchan.microsecondsPerMessage
        entry["kilobytesPerConnection"] = nchan.kilobytesPerConnection
        entry["relayMicrosecondsPerMessage"] = relay.relaysMicrosecondsPerMessage
        entry["relayKilobytesPerFollower"] = relay.relayKilobytesPerFollowerMean
        entry["relayCpuPerMessageRatio"] = relay.cpuRatioToNchan
        entry["relayMemoryPerConnectionRatio"] = relay.memoryRatioToNchan
        entry["error"] = nchan.error
        return entry
    }
}
