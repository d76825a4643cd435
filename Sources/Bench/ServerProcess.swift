import Foundation

/// The real `gather serve` on a free loopback port, with temporary data and certificate folders.
///
/// The bench reads the server's resident memory from `/proc/<pid>/status`, so it has to know
/// the process: it either started it (this type) or was given `--server-pid`.
final class ServerProcess: @unchecked Sendable {
    let executable: String
    let publicDirectory: String
    let inviteCode: String
    let workDirectory: URL
    private var process: Process?
    private let lock = NSLock()
    private var banner: [String] = []
    /// More `gather serve` arguments (the relay scenarios add `--nats URL --venue bench`).
    var extraArguments: [String] = []

    init(executable: String, publicDirectory: String, inviteCode: String) throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw BenchError("--server \(executable) is not an executable file")
        }
        self.executable = executable
        self.publicDirectory = publicDirectory
        self.inviteCode = inviteCode
        workDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("gather-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
    }

    var caPath: String { workDirectory.appendingPathComponent("certs/ca.pem").path }
    var pid: Int32? { process?.processIdentifier }

    /// Starts the server (data and certificates persist across restarts) and returns its port.
    func start(timeout: Double = 60) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.currentDirectoryURL = workDirectory
        process.arguments = [
            "serve", "--host", "127.0.0.1", "--port", "0",
            "--data-dir", workDirectory.appendingPathComponent("data").path,
            "--cert-dir", workDirectory.appendingPathComponent("certs").path,
            "--public", publicDirectory, "--invite-code", inviteCode, "--log-level", "warning",
            // No plain-HTTP door: its fixed default port would collide with any other server here.
            "--spectator-port", "0",
        ] + extraArguments
        let output = Pipe()
        process.standardOutput = output
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: logPath)
        lock.withLock { banner = [] }
        let portFound = DispatchSemaphore(value: 0)
        let reader = Thread { [self] in pump(output.fileHandleForReading, signal: portFound) }
        reader.name = "gather-bench.server-output"
        try process.run()
        self.process = process
        reader.start()
        let deadline = Date(timeIntervalSinceNow: timeout)
        while portFound.wait(timeout: .now() + 0.2) == .timedOut {
            if !process.isRunning || Date() > deadline {
                stop()
                throw BenchError("gather did not start: \(lastLog())")
            }
        }
        guard let line = lock.withLock({ banner.last }), let port = Int(line.split(separator: " ").last ?? "") else {
            throw BenchError("gather printed no port")
        }
        return port
    }

    private var logPath: String { workDirectory.appendingPathComponent("server.log").path }

    private func lastLog() -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(5).joined(separator: " | ")
    }

    /// Reads stdout line by line until the listening line, then keeps draining so the server never blocks.
    private func pump(_ handle: FileHandle, signal: DispatchSemaphore) {
        var signalled = false
        forEachLine(of: handle) { line in
            if !signalled, line.hasPrefix("gather: listening on port") {
                lock.withLock { banner.append(line) }
                signalled = true
                signal.signal()
            }
        }
    }

    /// SIGINT, then SIGKILL after 10 s.
    func stop() {
        guard let process, process.isRunning else { self.process = nil; return }
        process.interrupt()
        let deadline = Date(timeIntervalSinceNow: 10)
        while process.isRunning, Date() < deadline { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        self.process = nil
    }

    func removeFiles() {
        try? FileManager.default.removeItem(at: workDirectory)
    }
}

/// Resident memory of a process, from `/proc/<pid>/status` (Linux).
enum ResidentMemory {
    static func kilobytes(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }
}
