import Foundation

/// What the club scenario runs against: its own PostgreSQL cluster and `instances` real
/// `gather club serve` processes on it (`--port 0`, loopback, `--test-clock` so the date can be
/// opened at the moment the answers start). Everything is stopped by `stop()`, on every path
/// (the scenario's `defer`, and a SIGINT/SIGTERM of the bench).
final class ClubRig: @unchecked Sendable {
    static let inviteCode = "BENCH-CLUB-INVITE"
    static let listening = "gather club: listening on port"

    let postgres: BenchPostgres
    private(set) var instances: [ChildProcess] = []
    private(set) var baseURLs: [String] = []
    private let workDirectory: URL
    private let lock = NSLock()
    private var stopped = false

    init(postgresBin: String?) throws {
        postgres = try BenchPostgres(binDirectory: postgresBin)
        workDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("gather-bench-club-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
    }

    /// PostgreSQL, then the instances one after the other (the first start stores the club).
    func start(executable: String, publicDirectory: String, instances count: Int, progress: (String) -> Void) throws {
        try postgres.start()
        progress("PostgreSQL on 127.0.0.1:\(postgres.port) (postmaster \(postgres.postmasterPID ?? 0))")
        for index in 0..<count {
            let child = try ChildProcess(
                name: "gather club serve #\(index + 1)", executable: executable,
                arguments: ["club", "serve", "--postgres", postgres.url, "--host", "127.0.0.1", "--port", "0",
                            "--public", publicDirectory, "--time-zone", "UTC", "--test-clock", "--log-level", "warning"],
                environment: ["PGPASSWORD": postgres.password, "GATHER_INVITE_CODE": Self.inviteCode],
                directory: workDirectory)
            lock.withLock { instances.append(child) }
            let port = try child.waitFor(seconds: 60) { line in
                line.hasPrefix(Self.listening) ? ChildProcess.port(after: Self.listening, in: line) : nil
            }
            baseURLs.append("http://127.0.0.1:\(port)")
            progress("instance \(index + 1): pid \(child.pid), port \(port)")
        }
    }

    var instancePIDs: [Int32] { lock.withLock { instances.map(\.pid) } }

    /// The instances (SIGINT), then PostgreSQL by its PID; once.
    func stop() {
        let children: [ChildProcess]? = lock.withLock {
            if stopped { return nil }
            stopped = true
            return instances
        }
        guard let children else { return }
        for child in children { child.stop() }
        postgres.stop()
        try? FileManager.default.removeItem(at: workDirectory)
    }
}

/// Runs a clean-up when the bench is interrupted (SIGINT, SIGTERM), then exits 130: the
/// scenario's processes must not outlive it.
final class InterruptCleanup: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []

    init(_ cleanup: @escaping @Sendable () -> Void) {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                FileHandle.standardError.write(Data("gather-bench: interrupted, stopping the club's processes\n".utf8))
                cleanup()
                exit(130)
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Back to the default dispositions.
    func cancel() {
        for source in sources { source.cancel() }
        sources = []
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
