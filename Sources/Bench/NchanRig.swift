import Foundation

/// What an operator would run instead of a relay: Debian's nginx with the nchan module
/// (`libnginx-mod-nchan`), one worker, a WebSocket subscriber location (`/live`, as the relay's)
/// and nchan's HTTP publisher location on loopback, in a temporary prefix with its own config.
final class NchanRig {
    static let module = "/usr/lib/nginx/modules/ngx_nchan_module.so"

    let port: Int
    let master: ChildProcess
    private let prefix: URL
    private var publisher: HTTPPublisher?

    init(executable given: String?, connections: Int) throws {
        let executable = [given ?? "", "/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let executable, FileManager.default.fileExists(atPath: Self.module) else {
            throw BenchError("nginx with nchan is not installed (apt-get install nginx libnginx-mod-nchan)")
        }
        prefix = FileManager.default.temporaryDirectory
            .appendingPathComponent("gather-bench-nchan-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: prefix, withIntermediateDirectories: true)
        port = try FreePort.loopback()
        let config = prefix.appendingPathComponent("nginx.conf")
        try Self.config(port: port, prefix: prefix.path, connections: connections)
            .write(to: config, atomically: true, encoding: .utf8)
        master = try ChildProcess(name: "nginx (nchan)", executable: executable,
                                  arguments: ["-c", config.path, "-p", prefix.path + "/", "-e", "stderr"])
        let deadline = Date(timeIntervalSinceNow: 20)
        while publisher == nil, Date() < deadline {
            publisher = try? HTTPPublisher(port: port, path: "/pub")
            if publisher == nil { usleep(100_000) }
        }
        guard publisher != nil else {
            stop()
            throw BenchError("nginx with nchan did not start on 127.0.0.1:\(port)")
        }
    }

    /// One worker, as the comparison asks; the master only supervises it.
    static func config(port: Int, prefix: String, connections: Int) -> String {
        """
        load_module \(module);
        \(getuid() == 0 ? "user root root;" : "")
        worker_processes 1;
        worker_rlimit_nofile \(connections + 2_048);
        daemon off;
        pid \(prefix)/nginx.pid;
        error_log stderr warn;
        events { worker_connections \(connections + 1_024); }
        http {
            access_log off;
            client_body_temp_path \(prefix)/body;
            proxy_temp_path \(prefix)/proxy;
            fastcgi_temp_path \(prefix)/fastcgi;
            uwsgi_temp_path \(prefix)/uwsgi;
            scgi_temp_path \(prefix)/scgi;
            nchan_max_reserved_memory 128M;
            server {
                listen 127.0.0.1:\(port);
                location = /live {
                    nchan_subscriber websocket;
                    nchan_channel_id bench;
                    nchan_subscriber_first_message oldest;
                }
                location = /pub {
                    allow 127.0.0.1;
                    deny all;
                    nchan_publisher http;
                    nchan_channel_id bench;
                    nchan_message_buffer_length 4;
                    client_max_body_size 1m;
                }
            }
        }
        """
    }

    /// The worker: the master's one child (`/proc/PID/task/PID/children`).
    var workerPID: Int32? {
        let path = "/proc/\(master.pid)/task/\(master.pid)/children"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return text.split(separator: " ").compactMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }.first
    }

    func publish(_ bytes: [UInt8]) throws {
        guard let publisher else { throw BenchError("nchan's publisher connection is closed") }
        let status = try publisher.post(bytes)
        guard (200..<300).contains(status) else { throw BenchError("nchan's publisher answered \(status)") }
    }

    func stop() {
        publisher?.close()
        publisher = nil
        master.stop(signal: SIGTERM)
    }

    func removeFiles() { try? FileManager.default.removeItem(at: prefix) }
}

/// A free loopback TCP port, found by binding port 0 and letting it go (nginx cannot report the
/// port it was given).
enum FreePort {
    static func loopback() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchError("socket() failed: \(errno)") }
        defer { Glibc.close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw BenchError("cannot bind a loopback port: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
