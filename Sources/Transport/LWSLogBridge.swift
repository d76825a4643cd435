import CLibWebSockets
import Foundation
import Logging

/// Sends libwebsockets' own errors and warnings to our `Logger` instead of stderr, so every line
/// the server prints has one format. lws logs from its service thread only.
enum LWSLogBridge {
    static func install(logger: Logger) {
        sink.set(logger)
        gather_lws_set_log(gather_lws_log_err() | gather_lws_log_warn(), lwsLogThunk)
    }

    fileprivate static let sink = LogSink()
}

fileprivate final class LogSink: @unchecked Sendable {
    private let lock = NSLock()
    private var logger: Logger?

    func set(_ logger: Logger) { lock.withLock { self.logger = logger } }

    func emit(level: Int32, line: String) {
        guard let logger = lock.withLock({ logger }) else { return }
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        // lws warns about every refused handshake; that is our decision, already logged by us.
        let swiftLevel: Logger.Level = level == gather_lws_log_err() ? .error : .info
        logger.log(level: swiftLevel, "\(trimmed)", metadata: ["lws.level": "\(level)"])
    }
}

private let lwsLogThunk: @convention(c) (Int32, UnsafePointer<CChar>?) -> Void = { level, line in
    guard let line else { return }
    LWSLogBridge.sink.emit(level: level, line: String(cString: line))
}
