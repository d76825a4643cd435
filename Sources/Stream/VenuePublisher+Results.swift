import Dispatch
import GatherModel

/// The venue publishes each finished gather (its history entry) on `gather.VENUE.results`, once
/// a second at most, from what the stream already holds on (`ResultsOutbox`): a club follows the
/// hub's mirror of the stream and learns who played. The publisher's queue only.
extension VenuePublisher {
    /// Where the finished gathers come from. `generation` is cheap and changes whenever the history
    /// does (`ExportDocuments`' `historyGeneration`); `entries` reads the whole history (the
    /// Store's `allHistory`, callable from any thread) and is called only when it changed.
    public struct ResultsSource: Sendable {
        public var generation: @Sendable () -> Int
        public var entries: @Sendable () throws -> [HistoryEntry]

        public init(generation: @escaping @Sendable () -> Int, entries: @escaping @Sendable () throws -> [HistoryEntry]) {
            self.generation = generation
            self.entries = entries
        }
    }

    /// Starts publishing results from `source` (call once, after the Coordinator exists).
    public func followResults(_ source: ResultsSource) {
        queue.async { [self] in local.value.resultsSource = source }
    }

    /// On the publisher's clock: learns what the subject holds when it does not know, then
    /// publishes what ended after it.
    func publishResults() {
        for summary in local.value.resultsLog.summaries(now: DispatchTime.now().uptimeNanoseconds) {
            logger.warning("\(summary.line)")
        }
        guard let source = local.value.resultsSource, local.value.streamReady,
              shared.withLock({ $0.state }) == .connected
        else { return }
        if local.value.results.published == .unknown, !readLastResult() { return }
        let generation = source.generation()
        guard local.value.results.needsPass(generation: generation) else { return }
        let history: [HistoryEntry]
        do {
            history = try source.entries()
        } catch {
            resultProblem("cannot read the history to publish its results", error: "\(error)")
            return
        }
        let (due, complete) = local.value.results.due(history, now: Self.nowMs())
        for entry in due {
            guard publishResult(entry) else { return }
        }
        if complete { local.value.results.finished(generation: generation) }
    }

    /// Reads the results subject's last message: true when the outbox now knows where it stands.
    private func readLastResult() -> Bool {
        switch link.lastMessageLookup(stream: venue.streamName, subject: venue.resultsSubject,
                                      maximumBytes: VenueResult.maximumBytes) {
        case .unknown:
            return false
        case .none:
            local.value.results.learned(nil)
        case .found(let body, let signature):
            guard let ownKey else { return false }
            switch VenueResult.read(body, signature: signature, venue: venue, key: ownKey) {
            case .result(let last):
                local.value.results.learned(ResultsOutbox.Mark(endedAt: last.endedAt, id: last.id))
            case .dropped(let reason):
                // Not the venue's own: the recent results go out again (a club applies each once).
                resultProblem("the last result on the stream is not the venue's; publishing the recent ones again",
                              error: reason)
                local.value.results.learned(nil)
            }
        }
        return true
    }

    /// True when JetStream stored it, or already held it under the same message id.
    private func publishResult(_ entry: HistoryEntry) -> Bool {
        let envelope: StreamEnvelope
        do {
            envelope = try VenueResult.envelope(entry, venue: venue, epoch: epoch, key: signingKey)
        } catch {
            resultProblem("cannot sign a result", error: "\(error)")
            return false
        }
        switch link.publish(envelope) {
        case .published(let sequence, let duplicate):
            let verdict = local.value.integrity.storedResult(sequence: sequence, duplicate: duplicate)
            if case .fault(let reason) = verdict { repairStream(reason) }
            local.value.results.published(entry)
            logger.info("published a result", metadata: ["stream.result": "\(entry.id)", "stream.sequence": "\(sequence)"])
            return true
        case .failed(let status, let jetStreamError, _):
            resultProblem("could not publish a result; trying again in a second",
                          error: "\(status) (JetStream error \(jetStreamError))")
            return false
        }
    }

    private func resultProblem(_ what: String, error: String) {
        guard local.value.resultsLog.admit("problems publishing results", key: venue.streamName,
                                           now: DispatchTime.now().uptimeNanoseconds)
        else { return }
        logger.warning("\(what) (logged at most once per 10 s)", metadata: ["stream.error": "\(error)"])
    }
}
