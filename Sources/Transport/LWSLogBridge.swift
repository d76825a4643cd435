import CLibWebSockets
import Dispatch
import Foundation
import GatherDelivery
import Logging
import Synchronization

/// Sends libwebsockets' own errors and warnings to our `Logger` instead of stderr, so every line
/// the server prints has one format. lws logs from its service thread only.
enum LWSLogBridge {
    static func install(logger: Logger) {
        sink.withLock { $0.logger = logger }
        gather_lws_set_log(gather_lws_log_err() | gather_lws_log_warn(), lwsLogThunk)
    }

    /// Process-wide, as lws's log hook is. lws's lines can quote what a client sent (a bad
    /// header), so they are escaped and cut like any client text, and counted past a few a window.
    fileprivate static let sink = Mutex<(logger: Logger?, throttle: LogThrottle)>((nil, LogThrottle(burst: 20)))

    fileprivate static func emit(level: Int32, line: String) {
        let now = DispatchTime.now().uptimeNanoseconds
        let (logger, admitted, summaries) = sink.withLock { sink in
            let admitted = sink.throttle.admit("libwebsockets messages", key: "its own log", now: now)
            return (sink.logger, admitted, sink.throttle.summaries(now: now))
        }
        guard let logger else { return }
        for summary in summaries { logger.notice("\(summary.line)") }
        guard admitted else { return }
        let trimmed = LogText.escaped(line.trimmingCharacters(in: .whitespacesAndNewlines))
        // lws warns about every refused handshake; that is our decision, already logged by us.
        let swiftLevel: Logger.Level = level == gather_lws_log_err() ? .error : .info
        logger.log(level: swiftLevel, "\(trimmed)", metadata: ["lws.level": "\(level)"])
    }
}

private let lwsLogThunk: @convention(c) (Int32, UnsafePointer<CChar>?) -> Void = { level, line in
    guard let line else { return }
    LWSLogBridge.emit(level: level, line: String(cString: line))
}
