import Foundation

/// The server's own cost of the presses, measured on the server rather than at the bench's
/// clients (which parse every frame byte by byte and so saturate a core before the server does):
/// CPU from `/proc/<pid>/stat`, bytes and messages written and the publish → last write histogram
/// from `/metrics`.
///
/// Summed over windows that hold only score presses: the six set-up changes of each fresh gather
/// fall between windows, so "per change" means per score change.
struct ServerWindow {
    /// One reading of the counters. At a window's start `/metrics` is read before the CPU, at its
    /// end after it, so the CPU never includes serving `/metrics`.
    struct Mark {
        var counters: ServerCounters?
        var cpuMicroseconds: Double?
        var waitMicroseconds: Double?
        var benchMicroseconds = ProcessCPU.ownMicroseconds()
        var at = BenchClock.nanoseconds()
    }

    var cpuMicroseconds = 0.0
    /// The server's threads runnable but not running (waiting for a core).
    var waitMicroseconds = 0.0
    /// The bench's own CPU, and the windows' wall-clock time.
    var benchMicroseconds = 0.0
    var wallMicroseconds = 0.0
    var bytes: [String: Int] = [:]
    var frames: [String: Int] = [:]
    /// State versions published inside the windows.
    var changes = 0
    var presses = 0
    /// The replies the organisers read (one per press), frame headers included.
    var replyBytes = 0
    var fanOut: FanOutHistogram?
    var tickLateness: FanOutHistogram?
    var windows = 0
    /// A window whose counters could not be read (no curl, no PID): its figures are left out.
    var unreadWindows = 0

    var framesTotal: Int { frames.values.reduce(0, +) }

    static func startMark(_ server: ServerUnderTest, _ target: ServerTarget) -> Mark {
        let counters = ServerCounters(FanOutHistogram.metricsText(target))
        return Mark(counters: counters, cpuMicroseconds: server.pid.flatMap(ProcessCPU.microseconds(of:)),
                    waitMicroseconds: server.pid.flatMap(ProcessCPU.runQueueWaitMicroseconds(of:)))
    }

    static func endMark(_ server: ServerUnderTest, _ target: ServerTarget) -> Mark {
        var mark = Mark(counters: nil, cpuMicroseconds: server.pid.flatMap(ProcessCPU.microseconds(of:)),
                        waitMicroseconds: server.pid.flatMap(ProcessCPU.runQueueWaitMicroseconds(of:)))
        mark.counters = ServerCounters(FanOutHistogram.metricsText(target))
        return mark
    }

    mutating func add(from start: Mark, to end: Mark, presses: Int, replyBytes: Int) {
        guard presses > 0 else { return }
        guard let before = start.counters, let after = end.counters, let cpuBefore = start.cpuMicroseconds,
              let cpuAfter = end.cpuMicroseconds
        else {
            unreadWindows += 1
            return
        }
        windows += 1
        cpuMicroseconds += cpuAfter - cpuBefore
        if let waitBefore = start.waitMicroseconds, let waitAfter = end.waitMicroseconds {
            waitMicroseconds += waitAfter - waitBefore
        }
        benchMicroseconds += end.benchMicroseconds - start.benchMicroseconds
        wallMicroseconds += Double(end.at &- start.at) / 1_000
        for (wire, count) in after.bytes { bytes[wire, default: 0] += count - (before.bytes[wire] ?? 0) }
        for (wire, count) in after.frames { frames[wire, default: 0] += count - (before.frames[wire] ?? 0) }
        changes += after.stateVersion - before.stateVersion
        self.presses += presses
        self.replyBytes += replyBytes
        if let histogram = after.fanOut, let earlier = before.fanOut {
            fanOut = histogram.subtracting(earlier).adding(fanOut)
        }
        if let histogram = after.tickLateness, let earlier = before.tickLateness {
            tickLateness = histogram.subtracting(earlier).adding(tickLateness)
        }
    }

    /// Server CPU (every thread) per WebSocket message written, in µs.
    var cpuPerMessageMicroseconds: Double? {
        framesTotal > 0 && windows > 0 ? cpuMicroseconds / Double(framesTotal) : nil
    }

    /// Bytes written to one spectator for one change, from the counters of the spectators'
    /// protocol. When the organisers speak the same protocol they count as connections too (they
    /// receive the same state) and their replies are taken out; the ticks that fell inside the
    /// windows are taken out as well: every frame beyond one per change per connection and the
    /// replies is a tick of `tickFrameBytes`.
    func bytesPerChangePerSpectator(wire: String, connections: Int, organisersShareProtocol: Bool,
                                    tickFrameBytes: Int?) -> (bytes: Double, ticksPerConnection: Double)? {
        guard changes > 0, connections > 0, let written = bytes[wire], let messages = frames[wire] else { return nil }
        let replies = organisersShareProtocol ? presses : 0
        let tickFrames = max(0, messages - replies - changes * connections)
        let stateBytes = written - (organisersShareProtocol ? replyBytes : 0) - tickFrames * (tickFrameBytes ?? 0)
        return (Double(stateBytes) / Double(changes * connections), Double(tickFrames) / Double(connections))
    }
}

/// WebSocket frame header of a server's (unmasked) text frame of `length` bytes.
func frameHeaderBytes(payload length: Int) -> Int { length < 126 ? 2 : length <= 0xFFFF ? 4 : 10 }
