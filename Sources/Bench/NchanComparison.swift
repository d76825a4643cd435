import Foundation

/// What nginx + nchan did with the relay's stream: its one worker's CPU per delivered message
/// and its memory per connection, measured as the relay's are.
struct NchanResult {
    var followers = 0
    var connected = 0
    var failed = 0
    var firstError: String?
    /// State messages published (each the venue's own bytes the relay's followers read).
    var published = 0
    /// Messages the followers read while they were published.
    var messages = 0
    var cpuMicroseconds = 0.0
    var wallMicroseconds = 0.0
    var kilobytesPerConnection: Double?
    var incompleteMessages = 0
    var skippedVersions = 0
    var behindAtEnd = 0
    var error: String?

    var microsecondsPerMessage: Double? { messages > 0 ? cpuMicroseconds / Double(messages) : nil }
}

/// nginx + nchan fed the very state messages the relay's followers read in the same run (as the
/// bench's NATS tap recorded them), one at a time over nchan's HTTP publisher, each waited for
/// until every follower read it, as the relay's presses are; the same follower processes over
/// plain ws. A follower needs a welcome and a snapshot before it counts as ready: those two go
/// first, before anything is measured.
struct NchanComparison {
    let nginx: String?
    let followers: Int
    let caPath: String
    let settings: BenchSettings

    /// The latest message of each version, a patch rather than the snapshot the venue publishes
    /// beside one now and then (the relay forwards the patch), in version order.
    static func stream(_ recorded: [[UInt8]]) -> [(version: Int, bytes: [UInt8])] {
        var chosen: [Int: (patch: Bool, bytes: [UInt8])] = [:]
        for bytes in recorded {
            let summary = bytes.withUnsafeBytes { WireScanner.summarize($0) }
            guard let version = summary.version, summary.type == "patch" || summary.type == "snapshot" else { continue }
            let isPatch = summary.type == "patch"
            if let held = chosen[version], held.patch, !isPatch { continue }
            chosen[version] = (isPatch, bytes)
        }
        return chosen.keys.sorted().map { ($0, chosen[$0]!.bytes) }
    }

    func run(recorded: [[UInt8]]) -> NchanResult {
        var result = NchanResult()
        result.followers = followers
        let messages = Self.stream(recorded)
        guard let first = messages.first else {
            result.error = "the relay run recorded no state message to publish"
            return result
        }
        do {
            let rig = try NchanRig(executable: nginx, connections: followers + 100)
            defer {
                rig.stop()
                rig.removeFiles()
            }
            settings.progress("nchan: nginx (one worker) on 127.0.0.1:\(rig.port); \(messages.count) messages to publish")
            try rig.publish(Array("{\"type\":\"welcome\"}".utf8))
            try rig.publish(Array("{\"state\":{},\"type\":\"snapshot\",\"version\":\(first.version - 1)}".utf8))
            guard let worker = rig.workerPID else { throw BenchError("nginx's worker process was not found") }
            try measure(rig: rig, worker: worker, messages: messages, into: &result)
        } catch {
            settings.progress("nchan comparison failed: \(error)")
            result.error = "\(error)"
        }
        return result
    }

    private func measure(rig: NchanRig, worker pid: Int32, messages: [(version: Int, bytes: [UInt8])],
                         into result: inout NchanResult) throws {
        let before = ResidentMemory.kilobytes(of: pid) ?? 0
        let workers = try WorkerProcess(targets: [ServerTarget(port: rig.port, caPath: caPath, tls: false)],
                                        followers: followers, firstBlock: 1)
        defer { workers.stop() }
        settings.progress("nchan: connecting \(followers) followers")
        guard let ready = workers.waitReady(seconds: max(120, Double(followers) / 35)) else {
            throw BenchError("the follower process did not report (see its errors above)")
        }
        result.connected = ready.ready
        result.failed = ready.failed
        result.firstError = ready.error
        guard ready.ready > 0 else { throw BenchError("no follower connected to nchan: \(ready.error ?? "?")") }
        Thread.sleep(forTimeInterval: 3)  // as the relay's figure: connected, quiet followers
        let after = ResidentMemory.kilobytes(of: pid) ?? 0
        result.kilobytesPerConnection = Double(after - before) / Double(ready.ready)

        settings.progress("nchan: publishing \(messages.count) messages to \(ready.ready) followers")
        let deadline = min(Date(timeIntervalSinceNow: settings.phaseSeconds * 2), settings.runDeadline)
        let startMessages = workers.mark(version: 0)?.messages ?? 0
        let startCPU = ProcessCPU.preciseMicroseconds(of: pid) ?? 0
        let startedAt = BenchClock.nanoseconds()
        var last = messages[0].version - 1
        for message in messages {
            guard Date() < deadline else {
                settings.progress("nchan: stopping after \(result.published) messages: the phase's time is up")
                break
            }
            try rig.publish(message.bytes)
            result.published += 1
            last = message.version
            if workers.reachedAt(message.version, seconds: 30) == nil { result.incompleteMessages += 1 }
        }
        result.cpuMicroseconds = (ProcessCPU.preciseMicroseconds(of: pid) ?? 0) - startCPU
        result.wallMicroseconds = Double(BenchClock.nanoseconds() - startedAt) / 1_000
        if let mark = workers.mark(version: last) {
            result.messages = mark.messages - startMessages
            result.skippedVersions = mark.skipped
            result.behindAtEnd = max(0, mark.ready - mark.holders)
        }
    }
}
