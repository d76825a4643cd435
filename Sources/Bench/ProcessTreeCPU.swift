import Foundation

/// CPU time of a process and all its children, from `/proc` (Linux), in µs: PostgreSQL is a
/// postmaster with one backend per connection and its helpers (checkpointer, WAL writer…).
///
/// The sum is `utime + stime` of the root and of every live process whose parent is the root,
/// plus the root's `cutime + cstime` (children that ended and were reaped): so a backend that
/// ends between two readings is still counted. 10 ms ticks: fine for a window of seconds.
enum ProcessTreeCPU {
    static func microseconds(root: Int32) -> Double? {
        guard let rootFields = statFields(root) else { return nil }
        var ticks = sum(rootFields, 11...14)  // utime, stime, cutime, cstime
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry), pid != root, let fields = statFields(pid),
                  fields.count > 12, Int32(fields[1]) == root else { continue }
            ticks += sum(fields, 11...12)
        }
        return ticks / ProcessCPU.ticksPerSecond * 1_000_000
    }

    /// Whether `pid` runs (a zombie no one reaps counts as ended).
    static func isRunning(_ pid: Int32) -> Bool {
        guard let fields = statFields(pid), let state = fields.first else { return false }
        return state != "Z" && state != "X"
    }

    /// The fields of `/proc/PID/stat` after the command's ")": state is [0], ppid [1], utime [11].
    private static func statFields(_ pid: Int32) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }

    private static func sum(_ fields: [Substring], _ range: ClosedRange<Int>) -> Double {
        range.reduce(0) { total, index in total + (index < fields.count ? Double(fields[index]) ?? 0 : 0) }
    }
}
