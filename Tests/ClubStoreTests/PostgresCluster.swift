import Foundation
import Glibc
import XCTest
@testable import ClubStore

/// A private PostgreSQL 15 cluster for one test class: `initdb` and `pg_ctl` as the `postgres`
/// user (PostgreSQL refuses root) in a temporary folder, on a free loopback port, stopped by its
/// PID. Each test gets a fresh database from `freshDatabaseURL()`.
final class PostgresCluster: @unchecked Sendable {
    static let binaries = "/usr/lib/postgresql/15/bin"

    let folder: URL
    let port: Int
    private var databases = 0

    /// Skips (XCTSkip) only when PostgreSQL 15's server is not installed.
    init() throws {
        guard FileManager.default.isExecutableFile(atPath: "\(PostgresCluster.binaries)/initdb") else {
            throw XCTSkip("PostgreSQL 15 is not installed (\(PostgresCluster.binaries)/initdb is absent): "
                + "apt-get install -y postgresql libpq-dev")
        }
        folder = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("club-store-pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        port = try PostgresCluster.freeLoopbackPort()
        if geteuid() == 0 {
            guard let user = getpwnam("postgres") else { throw ClusterError("no postgres user") }
            guard chown(folder.path, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
                throw ClusterError("chown failed: errno \(errno)")
            }
        }
        try run("initdb", ["-D", dataPath, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync",
                           "--no-instructions"])
        try start()
    }

    var dataPath: String { folder.appendingPathComponent("data").path }

    func start() throws {
        // fsync off: a test cluster loses nothing it needs in a crash; it only makes tests slower.
        try run("pg_ctl", ["-D", dataPath, "-l", folder.appendingPathComponent("log").path, "-w", "-t", "30",
                           "-o", "-p \(port) -k \(folder.path) -c listen_addresses=127.0.0.1 -c fsync=off "
                               + "-c max_connections=60", "start"])
    }

    /// `pg_ctl restart -m fast`: every session is cut, as when PostgreSQL is restarted.
    func restart() throws {
        try run("pg_ctl", ["-D", dataPath, "-l", folder.appendingPathComponent("log").path, "-w", "-t", "30",
                           "-m", "fast", "-o", "-p \(port) -k \(folder.path) -c listen_addresses=127.0.0.1 "
                               + "-c fsync=off -c max_connections=60", "restart"])
    }

    /// Stops the postmaster by the PID in its pid file (SIGINT: fast shutdown), waits, and
    /// removes the folder.
    func stop() {
        if let text = try? String(contentsOfFile: dataPath + "/postmaster.pid", encoding: .utf8),
           let line = text.split(separator: "\n").first, let pid = pid_t(line) {
            if kill(pid, SIGINT) == 0 {
                for _ in 0..<200 where kill(pid, 0) == 0 { usleep(50_000) }
            }
        }
        try? FileManager.default.removeItem(at: folder)
    }

    var adminURL: String { "postgresql://postgres@127.0.0.1:\(port)/postgres" }

    /// A new, empty database and its URL.
    func freshDatabaseURL() throws -> String {
        databases += 1
        let name = "club_test_\(databases)"
        let connection = try PostgresConnection(url: adminURL)
        // A test's own constant-shaped name: CREATE DATABASE takes no parameters.
        _ = try connection.execute("CREATE DATABASE \(name)", [])
        return "postgresql://postgres@127.0.0.1:\(port)/\(name)"
    }

    /// Runs `tool` (as `postgres` when we are root) and waits for it. posix_spawn and waitpid,
    /// not Foundation's Process: pg_ctl leaves the postmaster running, which would inherit
    /// Process's descriptors and keep it waiting; every descriptor past stderr is closed in
    /// the child, and its output goes to a file.
    private func run(_ tool: String, _ arguments: [String]) throws {
        let path = "\(PostgresCluster.binaries)/\(tool)"
        let argv = geteuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--", path] + arguments : [path] + arguments
        let outputPath = folder.appendingPathComponent("\(tool).out").path
        var actions = posix_spawn_file_actions_t()
        guard posix_spawn_file_actions_init(&actions) == 0 else { throw ClusterError("posix_spawn_file_actions_init") }
        defer { posix_spawn_file_actions_destroy(&actions) }
        guard posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) == 0,
              posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644) == 0,
              posix_spawn_file_actions_adddup2(&actions, 1, 2) == 0 else {
            throw ClusterError("posix_spawn file actions")
        }
        for fd: Int32 in 3..<1_024 where fcntl(fd, F_GETFD) != -1 {
            guard posix_spawn_file_actions_addclose(&actions, fd) == 0 else { throw ClusterError("addclose \(fd)") }
        }
        var pid: pid_t = 0
        let spawned = withCStringArray(argv) { posix_spawn(&pid, argv[0], &actions, nil, $0, environ) }
        guard spawned == 0 else { throw ClusterError("posix_spawn \(tool): \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw ClusterError("waitpid: errno \(errno)") }
        }
        // WIFEXITED and WEXITSTATUS by hand (Glibc's macros do not import).
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            throw ClusterError("\(tool) failed (status \(status)): \(text)")
        }
    }

    private static func freeLoopbackPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClusterError("socket: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw ClusterError("bind: errno \(errno)") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw ClusterError("getsockname: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

struct ClusterError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A NULL-terminated argv for posix_spawn.
private func withCStringArray<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
    let copies: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) } + [nil]
    defer { copies.forEach { free($0) } }
    return copies.withUnsafeBufferPointer { body($0.baseAddress!) }
}
