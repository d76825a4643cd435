import Foundation

/// A private PostgreSQL cluster for the club scenario, made as the e2e rig makes its own
/// (Tests/e2e/club_postgres.py): PostgreSQL refuses root, so as root `initdb` and `psql` run as the
/// `postgres` user (`runuser`) and so does the postmaster (`setpriv`, which execs it: the bench's
/// own child), in a temporary folder that user owns (mode 0700, its Unix socket there too); the
/// server listens on a free loopback port; `stop()` ends it by the postmaster's PID.
///
/// Unlike the tests' cluster it keeps PostgreSQL's durability defaults (`fsync`,
/// `synchronous_commit`, `full_page_writes` on): the figures are those of a club's real database.
/// The role `gather` logs in over TCP with a random password (scram-sha-256), given to the
/// instances through `PGPASSWORD`, never on a command line.
final class BenchPostgres: @unchecked Sendable {
    static let role = "gather"
    static let database = "club"

    let binDirectory: String
    let root: URL
    let password: String
    private(set) var port = 0
    private var postmaster: ChildProcess?
    var postmasterPID: Int32? { postmaster?.pid }
    private let asPostgresUser = geteuid() == 0

    init(binDirectory: String?) throws {
        guard let bin = binDirectory ?? Self.newestDebianBin() else {
            throw BenchError("PostgreSQL is not installed (Debian: apt-get install postgresql), or give --postgres-bin")
        }
        self.binDirectory = bin
        root = URL(fileURLWithPath: "/tmp").appendingPathComponent("gather-bench-pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        password = (0..<4).map { _ in String(UInt64.random(in: 0...UInt64.max), radix: 36) }.joined()
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        try giveToPostgres(root.path)
    }

    /// Debian's newest `/usr/lib/postgresql/N/bin`.
    static func newestDebianBin() -> String? {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.compactMap(Int.init).sorted().reversed().map { "/usr/lib/postgresql/\($0)/bin" }
            .first { FileManager.default.isExecutableFile(atPath: "\($0)/initdb") }
    }

    var dataDirectory: String { root.appendingPathComponent("data").path }

    /// The URL the instances get (the password goes in `PGPASSWORD`).
    var url: String { "postgresql://\(Self.role)@127.0.0.1:\(port)/\(Self.database)" }

    /// initdb, start on a free loopback port, create the role and its database.
    func start() throws {
        try run("initdb", ["-D", dataDirectory, "-U", "postgres", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync",
                           "--auth-local=trust", "--auth-host=scram-sha-256"])
        var lastError: Error?
        for _ in 0..<3 {
            let chosen = try FreePort.loopback()
            do {
                try startPostmaster(port: chosen)
                port = chosen
                lastError = nil
                break
            } catch {
                lastError = error  // the port was taken between choosing and binding: another
            }
        }
        if let lastError { throw BenchError("PostgreSQL did not start: \(lastError)") }
        try run("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", root.path, "-p", "\(port)", "-U", "postgres", "-d", "postgres"],
                input: "CREATE ROLE \(Self.role) LOGIN PASSWORD '\(password)';\n"
                    + "CREATE DATABASE \(Self.database) OWNER \(Self.role) TEMPLATE template0;\n")
    }

    /// The postmaster as the bench's own child (`setpriv` execs it as `postgres`, so the child's
    /// PID is the postmaster's): not `pg_ctl`, whose daemon would inherit the descriptor Foundation
    /// watches to learn that `pg_ctl` ended, so the bench would wait for it forever.
    private func startPostmaster(port: Int) throws {
        let postgres = "\(binDirectory)/postgres"
        let arguments = ["-D", dataDirectory, "-p", "\(port)", "-k", root.path, "-c", "listen_addresses=127.0.0.1",
                         "-c", "max_connections=100"]
        let child = asPostgresUser
            ? try ChildProcess(name: "postgres", executable: "/usr/bin/setpriv",
                               arguments: ["--reuid=postgres", "--regid=postgres", "--init-groups", "--", postgres] + arguments,
                               directory: root)
            : try ChildProcess(name: "postgres", executable: postgres, arguments: arguments, directory: root)
        do {
            _ = try child.waitFor(seconds: 60) { $0.contains("database system is ready to accept connections") ? true : nil }
        } catch {
            child.stop(signal: SIGQUIT)
            throw error
        }
        postmaster = child
    }

    /// SIGINT (a fast, clean shutdown) to the postmaster by its PID, SIGKILL after 10 s; then the folder goes.
    func stop() {
        postmaster?.stop(signal: SIGINT)
        postmaster = nil
        try? FileManager.default.removeItem(at: root)
    }

    /// Runs one of PostgreSQL's programs (as `postgres` when we are root); throws with its output
    /// on failure. `input` goes through a file in the cluster's folder (mode 0600, removed after):
    /// the password never appears on a command line. Output goes to a file, not a pipe: the
    /// postmaster that `pg_ctl` leaves running must not hold a pipe the bench waits to see closed.
    private func run(_ program: String, _ arguments: [String], input: String? = nil) throws {
        let outputPath = root.appendingPathComponent("\(program).out").path
        guard FileManager.default.createFile(atPath: outputPath, contents: nil),
              let output = FileHandle(forWritingAtPath: outputPath) else { throw BenchError("cannot write \(outputPath)") }
        defer { try? output.close() }
        var extra: [String] = []
        let inputPath = root.appendingPathComponent("\(program).in").path
        if let input {
            guard FileManager.default.createFile(atPath: inputPath, contents: Data(input.utf8), attributes: [.posixPermissions: 0o600])
            else { throw BenchError("cannot write \(inputPath)") }
            try giveToPostgres(inputPath)
            extra = ["-f", inputPath]
        }
        defer { if input != nil { try? FileManager.default.removeItem(atPath: inputPath) } }
        let process = Process()
        let executable = "\(binDirectory)/\(program)"
        if asPostgresUser {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            process.arguments = ["-u", "postgres", "--", executable] + arguments + extra
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments + extra
        }
        process.currentDirectoryURL = root
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            throw BenchError("\(program) failed (\(process.terminationStatus)): \(text.suffix(1_000))")
        }
    }

    /// Hands a file to the `postgres` user (when we run as root and it runs PostgreSQL's programs).
    private func giveToPostgres(_ path: String) throws {
        guard asPostgresUser else { return }
        guard let user = getpwnam("postgres") else { throw BenchError("there is no `postgres` user") }
        guard chown(path, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
            throw BenchError("chown \(path) to postgres failed: errno \(errno)")
        }
    }
}
