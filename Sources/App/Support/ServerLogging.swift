import Foundation
import Logging

/// One logging bootstrap for the process: swift-log to standard error at the chosen level.
enum ServerLogging {
    nonisolated(unsafe) private static var bootstrapped = false

    static func makeLogger(level: Logger.Level) -> Logger {
        if !bootstrapped {
            bootstrapped = true
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        }
        var logger = Logger(label: "gather")
        logger.logLevel = level
        return logger
    }
}

/// A start-up problem: one clear line on standard error and a non-zero exit code.
struct StartupFailure: Error, CustomStringConvertible {
    var description: String
    var exitCode: Int32 = 1
}
