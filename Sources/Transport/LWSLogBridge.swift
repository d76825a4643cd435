import CLibWebSockets
import Foundation
import Logging
import Synchronization

/// Sends libwebsockets' own errors and warnings to our `Logger` instead of stderr, so every line
/// the server prints has one format. lws logs from its service thread only.
enum LWSLogBridge {
    static func install(logger: Logger) {
        sink.withLock { $0 = logger }
        gather_lws_set_log(gather_lws_log_err() | gather_lws_log_warn(), lwsLogThunk)
    }

    /// Process-wide, as lws's log hook is.
    fileprivate static let sink = Mutex<Logger?>(nil)

    fileprivate static func emit(level: Int32, line: String) {
        guard let logger = sink.withLock({ $0 }) else { return }
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        // lws warns about every refused handshake; that is our decision, already logged by us.
        let swiftLevel: Logger.Level = level == gather_lws_log_err() ? .error : .info
        logger.log(level: swiftLevel, "\(trimmed)", metadata: ["lws.level": "\(level)"])
    }
}

private let lwsLogThunk: @convention(c) (Int32, UnsafePointer<CChar>?) -> Void = { level, line in
    guard let line else { return }
    LWSLogBridge.emit(level: level, line: String(cString: line))
}
