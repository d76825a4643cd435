import Dispatch

/// The venue notices a stream it did not write (PROTOCOL.md §16.5): a duplicate acknowledgement,
/// a stored sequence that skips, or a last message that is not its own makes it publish a snapshot
/// at once; the rollup clears whatever was planted. The publisher's queue only.
extension VenuePublisher {
    /// How often the stream's last message is compared with the venue's own.
    static let lastMessageCheckSeconds: UInt64 = 60

    /// Logs the fault (at most once per 10 s) and makes the next state publication a snapshot.
    func repairStream(_ reason: String) {
        let admitted = local.value.faultLog.admit("faults of the venue's stream", key: venue.streamName,
                                                  now: DispatchTime.now().uptimeNanoseconds)
        if admitted {
            logger.warning("the venue's stream holds messages the venue did not publish; publishing a snapshot (logged at most once per 10 s)", metadata: ["stream.fault": "\(reason)"])
        }
        shared.withLock { $0.publications.restart() }
    }

    /// Every `lastMessageCheckSeconds`, reads the stream's last message of the state subject.
    func checkLastMessage() {
        guard local.value.streamReady, shared.withLock({ $0.state }) == .connected,
              DispatchTime.now().uptimeNanoseconds - local.value.lastIntegrityCheck.uptimeNanoseconds
                  >= Self.lastMessageCheckSeconds * 1_000_000_000
        else { return }
        local.value.lastIntegrityCheck = .now()
        let read = link.lastMessage(stream: venue.streamName, subject: venue.stateSubject)
        guard case .fault(let reason) = local.value.integrity.lastMessageRead(read) else { return }
        repairStream(reason)
        shared.withLock { $0.drainScheduled = true }
        drain()
    }

    /// The summary of faults held back by the log's throttle, once their 10 s are over.
    func sayFaultsHeldBack() {
        for summary in local.value.faultLog.summaries(now: DispatchTime.now().uptimeNanoseconds) {
            logger.warning("\(summary.line)")
        }
    }
}
