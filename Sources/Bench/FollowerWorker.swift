import Foundation
import GatherLWS

/// A child `gather-bench` holding a share of the relay followers: one process may hold at most
/// the hard open-file limit (20,000 on the development machine, and it cannot be raised there),
/// so 20,000 followers need two processes. It speaks lines on stdin/stdout with its parent:
///
///     → ready READY FAILED FIRST-ERROR          once connecting is over
///     → reached VERSION MONOTONIC-NS            when every ready follower holds VERSION
///     ← mark VERSION   → mark MESSAGES SKIPPED RESYNCS HOLDERS-OF-VERSION READY
///     ← patch          → patch HEX             the last patch follower 0 read
///     ← quit
///
/// CLOCK_MONOTONIC is the machine's, so the parent compares these instants with its own.
struct FollowerWorker {
    let targets: [ServerTarget]
    let followers: Int
    let firstBlock: Int

    func run() throws {
        FileDescriptorLimit.raiseToHardLimit()
        let output = LineOutput()
        let engine = try ClientEngine(target: targets[0], manySockets: true, wire: WireChoice.v2.rawValue,
                                      sources: SourceAddresses(firstBlock: firstBlock, connections: followers),
                                      targets: targets)
        engine.versionReached = { version, at in output.write("reached \(version) \(at)") }
        _ = engine.open(.spectator, count: followers)
        engine.wait(seconds: max(90, Double(followers) / 40)) { $0.readySpectators + $0.failed >= followers }
        let (ready, failed, firstError) = engine.read { ($0.readySpectators, $0.failed, $0.firstError) }
        let reason = (firstError ?? "-").replacingOccurrences(of: "\n", with: " ")
        output.write("ready \(ready) \(failed) \(reason)")
        while let line = readLine() {
            let words = line.split(separator: " ")
            switch words.first {
            case "mark":
                let version = words.count > 1 ? Int(words[1]) ?? 0 : 0
                let reply = engine.read { shared in
                    "mark \(shared.spectatorMessages) \(shared.skippedVersions) \(shared.resyncs) "
                        + "\(shared.holders[version] ?? 0) \(shared.readySpectators - shared.closedSpectators)"
                }
                output.write(reply)
            case "patch":
                let patch = engine.read { $0.samplePatch }
                output.write("patch " + patch.map { String(format: "%02x", $0) }.joined())
            default:
                engine.shutdown()
                return
            }
        }
        engine.shutdown()
    }
}

/// Whole lines to stdout, one `write` each (atomic on a pipe below PIPE_BUF; patches are longer
/// but only the driver thread writes those, between marks).
final class LineOutput: @unchecked Sendable {
    private let lock = NSLock()

    func write(_ line: String) {
        lock.withLock { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    }
}

/// The parent's handle on one `FollowerWorker` process.
final class WorkerProcess: @unchecked Sendable {
    struct Mark {
        var messages = 0
        var skipped = 0
        var resyncs = 0
        var holders = 0
        var ready = 0
    }

    private let process = Process()
    private let input = Pipe()
    private let condition = NSCondition()
    private var readyLine: [Substring]?
    private var reached: [Int: UInt64] = [:]
    private var replies: [String] = []
    private var exited = false
    let followers: Int
    var pid: Int32 { process.processIdentifier }

    init(targets: [ServerTarget], followers: Int, firstBlock: Int) throws {
        self.followers = followers
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.executableURL = executable
        process.arguments = ["--follower-worker", "--followers", "\(followers)", "--first-block", "\(firstBlock)",
                             "--ca", targets[0].caPath] + (targets[0].tls ? ["--relay-tls"] : [])
            + targets.flatMap { ["--relay-port", "\($0.port)"] }
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = input
        process.standardError = FileHandle.standardError
        let reader = Thread { [self] in pump(output.fileHandleForReading) }
        reader.name = "gather-bench.worker-output"
        try process.run()
        reader.start()
    }

    private func pump(_ handle: FileHandle) {
        forEachLine(of: handle) { line in
            let words = line.split(separator: " ", maxSplits: 3)
            condition.withLock {
                switch words.first {
                case "reached":
                    if words.count == 3, let version = Int(words[1]), let at = UInt64(words[2]) { reached[version] = at }
                case "ready": readyLine = words
                default: replies.append(line)
                }
                condition.broadcast()
            }
        }
        condition.withLock {
            exited = true
            condition.broadcast()
        }
    }

    private func wait<T>(seconds: Double, _ value: () -> T?) -> T? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let found = value() { return found }
            if exited || Date() >= deadline { return nil }
            _ = condition.wait(until: min(deadline, Date().addingTimeInterval(0.1)))
        }
    }

    /// (ready, failed, first error) once the worker stopped connecting.
    func waitReady(seconds: Double) -> (ready: Int, failed: Int, error: String?)? {
        wait(seconds: seconds) { readyLine }.map { words in
            (Int(words[1]) ?? 0, Int(words[2]) ?? 0, words.count > 3 && words[3] != "-" ? String(words[3]) : nil)
        }
    }

    /// When the last of this worker's followers got `version` (monotonic ns), waiting up to `seconds`.
    func reachedAt(_ version: Int, seconds: Double) -> UInt64? {
        wait(seconds: seconds) { reached[version] }
    }

    private func ask(_ line: String, expecting prefix: String) -> String? {
        condition.withLock { replies.removeAll() }
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
        return wait(seconds: 30) { replies.first { $0.hasPrefix(prefix) } }
    }

    func mark(version: Int) -> Mark? {
        guard let line = ask("mark \(version)", expecting: "mark ") else { return nil }
        let numbers = line.split(separator: " ").dropFirst().compactMap { Int($0) }
        guard numbers.count == 5 else { return nil }
        return Mark(messages: numbers[0], skipped: numbers[1], resyncs: numbers[2], holders: numbers[3], ready: numbers[4])
    }

    func samplePatch() -> [UInt8] {
        guard let line = ask("patch", expecting: "patch"), line.count > 6 else { return [] }
        let hex = Array(line.utf8.dropFirst(6))
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hex.count / 2)
        var index = 0
        while index + 1 < hex.count {
            guard let byte = UInt8(String(decoding: hex[index...index + 1], as: UTF8.self), radix: 16) else { return [] }
            bytes.append(byte)
            index += 2
        }
        return bytes
    }

    /// Asks it to close its followers and leave; SIGKILL after 20 s.
    func stop() {
        guard process.isRunning else { return }
        try? input.fileHandleForWriting.write(contentsOf: Data("quit\n".utf8))
        let deadline = Date(timeIntervalSinceNow: 20)
        while process.isRunning, Date() < deadline { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
    }
}
