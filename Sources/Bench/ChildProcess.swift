import Foundation

/// A process the relay and club scenarios start (`nats-server`, `gather relay`, `gather club serve`): its stdout and stderr
/// are read line by line (so it never blocks on a full pipe) and kept, the last 200 lines, to
/// find its port in its banner and to explain a failure.
final class ChildProcess: @unchecked Sendable {
    let name: String
    private let process = Process()
    private let condition = NSCondition()
    private var lines: [String] = []
    private var exited = false

    /// `environment`: added to the bench's own (secrets go here, never in `arguments`, which `ps` shows).
    init(name: String, executable: String, arguments: [String], environment: [String: String] = [:],
         directory: URL? = nil) throws {
        self.name = name
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        }
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let readers = [output, errors].map { pipe in Thread { [self] in pump(pipe.fileHandleForReading) } }
        do {
            try process.run()
        } catch {
            throw BenchError("cannot start \(name) (\(executable)): \(error)")
        }
        for reader in readers {
            reader.name = "gather-bench.\(name)-output"
            reader.start()
        }
    }

    var pid: Int32 { process.processIdentifier }

    private func pump(_ handle: FileHandle) {
        forEachLine(of: handle) { line in
            condition.withLock {
                lines.append(line)
                if lines.count > 200 { lines.removeFirst(lines.count - 200) }
                condition.broadcast()
            }
        }
        condition.withLock {
            exited = true
            condition.broadcast()
        }
    }

    /// The first line (kept so far or to come within `seconds`) that `match` turns into a value.
    func waitFor<T>(seconds: Double, _ match: (String) -> T?) throws -> T {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while true {
            for line in lines { if let found = match(line) { return found } }
            if exited || !process.isRunning || Date() >= deadline {
                throw BenchError("\(name) did not start: \(lines.suffix(5).joined(separator: " | "))")
            }
            _ = condition.wait(until: min(deadline, Date().addingTimeInterval(0.1)))
        }
    }

    /// The port after `marker` in a line such as `…on 127.0.0.1:4222` or `listening on port 8080`.
    static func port(after marker: String, in line: String) -> Int? {
        guard let range = line.range(of: marker) else { return nil }
        let digits = line[range.upperBound...].drop { !$0.isNumber }.prefix { $0.isNumber }
        return Int(digits)
    }

    /// SIGINT (SIGTERM for nats-server), then SIGKILL after 10 s.
    func stop(signal: Int32 = SIGINT) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, signal)
        let deadline = Date(timeIntervalSinceNow: 10)
        while process.isRunning, Date() < deadline { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
    }
}
