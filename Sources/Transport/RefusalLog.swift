import Dispatch
import GatherDelivery
import Logging

/// The service thread's log of what it refused: repeated refusals of one kind from one address
/// are counted, not logged one by one (a flood must not become a flood of log lines). One per
/// `ServiceLoop`, shared by its admission, HTTP and WebSocket parts, on that thread only.
final class RefusalLog {
    let logger: Logger
    private var throttle = LogThrottle()

    init(logger: Logger) { self.logger = logger }

    /// Logs a refusal, unless lines of its kind from that address are being counted instead.
    func note(_ what: String, address: String, _ message: Logger.Message, metadata: Logger.Metadata = [:]) {
        let key = LogText.escaped(address)
        guard throttle.admit(what, key: key, now: DispatchTime.now().uptimeNanoseconds) else { return }
        var metadata = metadata
        metadata["net.peer"] = "\(key)"
        logger.notice(message, metadata: metadata)
    }

    /// Once a second: the counts of what was not logged, as one line per kind and address.
    func summarise(now: UInt64) {
        for summary in throttle.summaries(now: now) { logger.notice("\(summary.line)") }
    }
}

@available(*, unavailable)
extension RefusalLog: Sendable {}
