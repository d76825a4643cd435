import Foundation

/// The server's own view of fan-out, read from `/metrics`: from a snapshot being handed to the
/// Transport to its `lws_write` on each connection. Next to the bench's press → every spectator
/// figure it shows how much of that time the server spends and how much the wire and the bench.
///
/// Read with `curl` (present on Debian); without it the column shows n/a.
struct FanOutHistogram {
    /// Upper bound in ms (nil = +Inf) → cumulative count.
    var buckets: [(bound: Double?, cumulative: Int)] = []

    static let fanOutMetric = "gather_fanout_latency_ms"
    /// How late the server's countdown wake-ups ran: the server's half of tick regularity.
    static let tickLatenessMetric = "gather_tick_lateness_ms"

    /// `gather_connections{role="spectator"}` as the server counts it.
    static func spectatorCount(_ target: ServerTarget) -> Int? {
        let line = metricsText(target)?.split(separator: "\n").first { $0.hasPrefix("gather_connections{role=\"spectator\"}") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") }
    }

    /// A busy server answers slowly: up to 60 s.
    static func metricsText(_ target: ServerTarget) -> String? {
        guard let (status, data) = runCurl(["--max-time", "60", "--cacert", target.caPath,
                                             "https://\(target.host):\(target.port)/metrics"]), status == 0 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    static func parse(_ text: String, metric: String = fanOutMetric) -> FanOutHistogram? {
        var histogram = FanOutHistogram()
        for line in text.split(separator: "\n") where line.hasPrefix(metric + "_bucket{le=\"") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let count = Int(parts[1]) else { continue }
            let label = parts[0].split(separator: "\"").dropFirst().first.map(String.init) ?? ""
            histogram.buckets.append((label == "+Inf" ? nil : Double(label), count))
        }
        return histogram.buckets.isEmpty ? nil : histogram
    }

    /// What was counted between `earlier` and now.
    func subtracting(_ earlier: FanOutHistogram) -> FanOutHistogram {
        guard earlier.buckets.count == buckets.count else { return self }
        var difference = self
        for index in buckets.indices { difference.buckets[index].cumulative -= earlier.buckets[index].cumulative }
        return difference
    }

    /// Both windows' counts together (same buckets).
    func adding(_ other: FanOutHistogram?) -> FanOutHistogram {
        guard let other, !other.buckets.isEmpty else { return self }
        guard other.buckets.count == buckets.count else { return buckets.isEmpty ? other : self }
        var sum = self
        for index in buckets.indices { sum.buckets[index].cumulative += other.buckets[index].cumulative }
        return sum
    }

    var total: Int { buckets.last?.cumulative ?? 0 }

    /// The bucket bound at or under which `fraction` of the writes fell (an upper estimate).
    func percentileBound(_ fraction: Double) -> Double? {
        guard total > 0 else { return nil }
        let wanted = Int((fraction * Double(total)).rounded(.up))
        return buckets.first { $0.cumulative >= wanted }.map { $0.bound ?? .infinity }
    }

    /// The `fraction` quantile, interpolated linearly inside its bucket (as Prometheus's
    /// histogram_quantile does): with the server's 0.1–50 ms steps it is off by less than a step.
    /// In the +Inf bucket it is the largest finite bound (the value is above it).
    func percentile(_ fraction: Double) -> Double? {
        guard total > 0 else { return nil }
        let rank = fraction * Double(total)
        var lower = 0.0
        var below = 0
        for bucket in buckets {
            guard let upper = bucket.bound else { return lower }
            let inside = bucket.cumulative - below
            if Double(bucket.cumulative) >= rank, inside > 0 {
                return lower + (upper - lower) * max(0, rank - Double(below)) / Double(inside)
            }
            lower = upper
            below = bucket.cumulative
        }
        return lower
    }
}

/// The server's counters at one instant, from `/metrics` and `/proc/<pid>/stat`.
struct ServerCounters {
    var fanOut: FanOutHistogram?
    var tickLateness: FanOutHistogram?
    /// `gather_ws_bytes_written_total` and `gather_ws_frames_written_total` by protocol.
    var bytes: [String: Int] = [:]
    var frames: [String: Int] = [:]
    var stateVersion = 0

    init?(_ text: String?) {
        guard let text else { return nil }
        fanOut = FanOutHistogram.parse(text, metric: FanOutHistogram.fanOutMetric)
        tickLateness = FanOutHistogram.parse(text, metric: FanOutHistogram.tickLatenessMetric)
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let value = Int(parts[1]) else { continue }
            let name = parts[0]
            if name == "gather_state_version" { stateVersion = value }
            let label = name.split(separator: "\"").dropFirst().first.map(String.init) ?? ""
            if name.hasPrefix("gather_ws_bytes_written_total{") { bytes[label] = value }
            if name.hasPrefix("gather_ws_frames_written_total{") { frames[label] = value }
        }
    }
}

/// CPU time a process has used, from `/proc/<pid>/stat` (Linux): utime + stime, every thread.
enum ProcessCPU {
    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    static func microseconds(of pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // After the command's ")": state is field 3, so utime (14) and stime (15) are the 12th and 13th.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / ticksPerSecond * 1_000_000
    }

    /// CPU time of the whole process (every thread, ended ones too) in ns resolution, µs: the
    /// process's CPU clock (`clock_getcpuclockid`). `/proc/<pid>/stat` counts in 10 ms ticks, too
    /// coarse for a window of a few presses; summing `/proc/<pid>/task/*/schedstat` loses the
    /// threads that ended (the password checks' threads).
    static func preciseMicroseconds(of pid: Int32) -> Double? {
        var clock = clockid_t()
        var now = timespec()
        guard pid > 0, clock_getcpuclockid(pid, &clock) == 0, clock_gettime(clock, &now) == 0 else {
            return microseconds(of: pid)
        }
        return Double(now.tv_sec) * 1_000_000 + Double(now.tv_nsec) / 1_000
    }

    /// How long the process's threads were runnable but waiting for a core (`run_delay` of
    /// `/proc/<pid>/task/*/schedstat`, µs): on two cores shared with the bench, the part of a
    /// fan-out's latency that is not the server's own work.
    static func runQueueWaitMicroseconds(of pid: Int32) -> Double? {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return nil }
        var total = 0.0
        for task in tasks {
            guard let line = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8) else { continue }
            let fields = line.split(separator: " ")
            if fields.count >= 2, let waited = Double(fields[1]) { total += waited / 1_000 }
        }
        return total
    }

    /// The bench's own CPU (every thread), µs.
    static func ownMicroseconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func microseconds(_ time: timeval) -> Double { Double(time.tv_sec) * 1_000_000 + Double(time.tv_usec) }
        return microseconds(usage.ru_utime) + microseconds(usage.ru_stime)
    }
}
