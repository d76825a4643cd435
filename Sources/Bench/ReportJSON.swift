import Foundation

// MARK: - The report as one JSON object (`--json`)

extension BenchReport {
    func json() -> String {
        var object: [String: Any] = [
            "settings": ["organisers": settings.organisers, "organiserProtocol": BenchSettings.organiserWire,
                         "commands": settings.commands, "players": settings.players,
                         "pressesPerGather": settings.pressesPerGather],
            "fanOut": fanOuts.map(json),
            "targets": verdicts.map { ["met": $0.met, "target": $0.text] },
            "clientBoundChecks": clientVerdicts.map { ["met": $0.met, "target": $0.text] },
        ]
        if let stalled {
            var entry: [String: Any] = ["spectators": stalled.spectators, "protocol": stalled.wire, "connected": stalled.connected,
                                        "stalledClosedByServer": stalled.stalledClosedByServer, "missing": stalled.missing]
            entry["pressBefore"] = stalled.before?.json
            entry["pressDuring"] = stalled.during?.json
            entry["residentGrowthKB"] = stalled.residentGrowthKilobytes
            entry["error"] = stalled.error
            object["stalled"] = entry
        }
        object["relays"] = relays.map { result -> [String: Any] in
            var entry: [String: Any] = [
                "followers": result.followers, "relays": result.relays, "tls": result.tls, "connected": result.connected,
                "failed": result.failed, "venueMicrosecondsPerVersionIdle": result.venueIdle.microsecondsPerVersion ?? NSNull(),
                "venueMicrosecondsPerVersionLoaded": result.venueLoaded.microsecondsPerVersion ?? NSNull(),
                "relayMicrosecondsPerMessage": result.relayMicroseconds.indices.map { result.relayMicrosecondsPerMessage($0) ?? -1 },
                "relayKilobytesPerFollower": result.relayKilobytesPerFollower,
                "floorMicrosecondsPerMessage": result.floor?.microsecondsPerMessage ?? NSNull(),
                "skippedVersions": result.skippedVersions, "behindAtEnd": result.behindAtEnd,
                "incompletePresses": result.incompletePresses, "messages": result.messages,
            ]
            entry["pressToDoor"] = Distribution(nanoseconds: result.pressToDoor)?.json
            entry["pressToNATS"] = Distribution(nanoseconds: result.pressToTap)?.json
            entry["pressToLastFollower"] = Distribution(nanoseconds: result.pressToLast)?.json
            entry["nchan"] = result.nchan.map { nchanJSON($0, relay: result) }
            entry["error"] = result.error
            return entry
        }
        object["relayTargets"] = relayVerdicts.map { ["met": $0.met, "target": $0.text] }
        object["tournament"] = tournamentJSON()
        object["club"] = clubJSON()
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    private func json(_ result: FanOutResult) -> [String: Any] {
        var entry: [String: Any] = [
            "spectators": result.spectators, "protocol": result.wire, "connected": result.connected,
            "countedByServer": result.counted, "failed": result.failed,
            "handshakesPerSecond": rounded(result.handshakesPerSecond), "missing": result.missing,
            "snapshotBytes": ["min": result.snapshotBytes.smallest, "max": result.snapshotBytes.largest],
            "rejections": result.rejections, "pressesDone": result.pressesDone,
        ]
        if result.patchBytes.largest > 0 {
            entry["patchBytes"] = ["min": result.patchBytes.smallest, "max": result.patchBytes.largest]
        }
        entry["residentKBPerConnection"] = result.residentKilobytesPerConnection.map(rounded)
        entry["server"] = serverJSON(result)
        var client: [String: Any] = [:]
        client["pressToEverySpectatorMs"] = result.press?.json
        client["durableAckMs"] = result.ack?.json
        client["tickDeviationMs"] = result.organiserTicks?.deviation.json
        client["lastSpectatorTickDeviationMs"] = result.ticks?.deviation.json
        entry["clientBound"] = client
        entry["firstError"] = result.firstError
        entry["error"] = result.error
        return entry
    }

    private func serverJSON(_ result: FanOutResult) -> [String: Any] {
        let window = result.server
        var server: [String: Any] = [
            "windows": window.windows, "unreadWindows": window.unreadWindows, "presses": window.presses,
            "changes": window.changes, "cpuMs": rounded(window.cpuMicroseconds / 1000),
            "waitedForACoreMs": rounded(window.waitMicroseconds / 1000), "wallMs": rounded(window.wallMicroseconds / 1000),
            "benchCpuMs": rounded(window.benchMicroseconds / 1000),
            "bytesWritten": window.bytes, "framesWritten": window.frames,
        ]
        server["cpuPerMessageUs"] = window.cpuPerMessageMicroseconds.map(rounded)
        if let perChange = result.bytesPerChange(organisers: settings.organisers) {
            server["bytesPerChangePerSpectator"] = rounded(perChange.bytes)
            server["ticksPerConnectionTakenOut"] = rounded(perChange.ticksPerConnection)
            server["tickFrameBytes"] = result.tickFrameBytes
        }
        if let histogram = window.fanOut, histogram.total > 0 {
            server["publishToLastWriteMs"] = ["writes": histogram.total,
                                              "p50": histogram.percentile(0.5).map(rounded) as Any,
                                              "p99": histogram.percentile(0.99).map(rounded) as Any,
                                              "maxAtMost": histogram.percentileBound(1.0).map(jsonBound) as Any]
        }
        if let histogram = window.tickLateness, histogram.total > 0 {
            server["tickLatenessMs"] = ["ticks": histogram.total,
                                        "maxAtMost": histogram.percentileBound(1.0).map(jsonBound) as Any]
        }
        return server
    }

    private func jsonBound(_ value: Double) -> Any { value.isInfinite ? "+Inf" : value }
}
