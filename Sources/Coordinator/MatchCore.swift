import GatherDelivery
import GatherModel
import GatherPresenters
import GatherStore
import Logging

/// The gather and its matches: commands judged against the rules and the journal, made durable,
/// then adopted and published; the countdowns of running timers. One scope of `CoordinatorCore`.
///
/// Its one kind of I/O is the Store: a change is committed before it is adopted and acknowledged,
/// which is the promise an `ack` makes. Everything else it wants done is returned as an `Effect`.
final class MatchCore: CoreScope {
    enum Event: Equatable {
        /// A client's message arrived: a timer past its end finishes before the message is read,
        /// so a command that lands between zero and the countdown's wake-up sees full time.
        case messageArrived
        /// `organiser`: whom the connection is signed in as; nil for a spectator.
        case commandReceived(Command, from: ConnectionID, organiser: String?)
        /// The parent refused the command before it was read (rate, or the watching door).
        case commandRefused(id: String, from: ConnectionID, Rejection)
        /// The countdown of that pitch's running timer came due.
        case countdownWoke(pitch: Pitch.ID)
        /// A verified club list: kept in the Store, then held for `selectFromClubDate`.
        case clubListVerified(ClubDateList)
    }

    var state: GatherState
    var version: Int
    var tally = DecisionTally()
    /// Each organiser's last answers (what the Store's `replies` table holds).
    var replies: ReplyWindow
    /// The wake-up each running timer has asked for, by pitch.
    var countdownWakes: [Pitch.ID: Int64] = [:]
    var arbiter: Arbiter

    let store: GatherStore
    let environment: CoordinatorEnvironment
    let logger: Logger

    /// Loads the durable state, the journal arbitration needs and the kept answers; read once at
    /// start-up, so afterwards a command reads nothing from SQLite.
    init(store: GatherStore, environment: CoordinatorEnvironment, logger: Logger) throws {
        let loaded = try store.load()
        self.state = loaded.state
        self.version = loaded.version
        self.store = store
        self.environment = environment
        self.logger = logger
        self.arbiter = Arbiter(journal: try store.journal(after: max(0, loaded.version - environment.limits.journalKept)),
                               version: loaded.version)
        self.replies = ReplyWindow(try store.keptReplies())
    }

    /// A timer that ran out while the server was down finishes now, dated when it really ended;
    /// one still running is woken on its next second. Always publishes the state once, so the
    /// Transport has a snapshot for the first phone.
    func start() -> [Effect] {
        pruneMemory()
        var effects: [Effect] = []
        if !expireTimersIfDue(into: &effects) {
            effects.append(.publishSnapshot(version: version, state: state))
        }
        rescheduleCountdowns(into: &effects)
        return effects
    }

    func event(for arrival: Arrival) -> Event? {
        guard case .command(let command) = arrival.message else { return nil }
        return .commandReceived(command, from: arrival.client, organiser: arrival.organiser)
    }

    func handle(_ event: Event) -> [Effect] {
        var effects: [Effect] = []
        switch event {
        case .messageArrived:
            if expireTimersIfDue(into: &effects) { rescheduleCountdowns(into: &effects) }
        case .commandReceived(let command, let client, let organiser):
            handleCommand(command, from: client, organiser: organiser, into: &effects)
        case .commandRefused(let id, let client, let rejection):
            reject(id, rejection, to: client, into: &effects)
        case .countdownWoke(let pitch):
            countdownWakes[pitch] = nil
            // Another pitch's full time published in the same instant does not replace this
            // pitch's tick; a timer that just finished has no tick (its snapshot says it all).
            expireTimersIfDue(into: &effects)
            if let timer = state.pitch(pitch)?.gather?.timer, timer.status == .running {
                effects.append(.publishTick(pitch: pitch, timer: timer))
            }
            rescheduleCountdowns(into: &effects)
        case .clubListVerified(let list):
            holdClubList(list, into: &effects)
        }
        return effects
    }

    /// Keeps the list (durable first) when it is newer than the date's held one, as a new version
    /// of the state (docs/PROTOCOL.md §21.3): organisers' state gains it; the shared frames carry
    /// the same state under the new version (the spectators' patch is empty of it).
    private func holdClubList(_ list: ClubDateList, into effects: inout [Effect]) {
        if let held = state.clubDate(list.date), held.seq >= list.seq { return }
        do {
            try store.keepClubList(list, version: version + 1)
        } catch {
            logger.error("could not keep the club's list", metadata: ["club.date": "\(list.date)", "error": "\(error)"])
            return
        }
        state.clubDates.removeAll { $0.date == list.date }
        state.clubDates.append(list)
        state.clubDates.sort { ($0.startsAt, $0.date) < ($1.startsAt, $1.date) }
        state.clubDates = Array(state.clubDates.suffix(ClubDateList.maximumHeld))
        version += 1
        effects.append(.publishSnapshot(version: version, state: state))
    }

    // MARK: - Durability

    /// Makes a change durable, then adopts it and publishes it. Nothing is adopted if the Store fails.
    /// `amendedHistory`: entries older than the state's recent list that the change corrected.
    /// `replyKey`: whom the ack is kept under, when not the entry's organiser (a referee's link).
    func commit(_ next: GatherState, entry: JournalEntry, amendedHistory: [HistoryEntry] = [], replyKey: String? = nil,
                into effects: inout [Effect]) throws {
        try store.commit(before: state, after: next, entry: entry, amendedHistory: amendedHistory, replyKey: replyKey)
        state = next
        version = entry.version
        arbiter.remember(entry)
        if let organiser = replyKey ?? entry.organiser, let commandID = entry.commandID {
            replies.remember(.ack(version: entry.version), organiser: organiser, commandID: commandID)
        }
        effects.append(.publishSnapshot(version: version, state: state))
        if !amendedHistory.isEmpty { effects.append(.exportAmendedHistory(amendedHistory)) }
        if version.isMultiple(of: environment.limits.pruneEvery) { pruneMemory() }
    }

    /// A final rejection, kept by the Store and then in memory, so a resent id gets it again.
    func recordRejection(_ rejection: Rejection, organiser: String, commandID: String) throws {
        let reply = StoredReply.rejected(code: rejection.code, message: rejection.message, version: version,
                                         reason: rejection.reason)
        try store.recordReply(reply, organiser: organiser, commandID: commandID)
        replies.remember(reply, organiser: organiser, commandID: commandID)
    }

    /// Keeps the journal and the stored replies to what exactly-once and arbitration need
    /// (docs/PROTOCOL.md "Limits"): the last `journalKept` changes and each organiser's last
    /// `repliesKeptPerOrganiser` answers, on disk and in memory alike. A failure only postpones it.
    func pruneMemory() {
        do {
            try store.prune(journalKept: environment.limits.journalKept,
                            repliesPerOrganiser: environment.limits.repliesKeptPerOrganiser)
            arbiter.forget(before: version - environment.limits.journalKept + 1)
            replies.prune(keeping: environment.limits.repliesKeptPerOrganiser)
        } catch {
            logger.warning("could not prune the journal and replies; will try again", metadata: ["error": "\(error)"])
        }
    }

    func reject(_ id: String, _ rejection: Rejection, to client: ConnectionID, into effects: inout [Effect]) {
        tally.rejectionsByCode[rejection.code.rawValue, default: 0] += 1
        effects.append(.send(client, .rejected(id: id, rejection: rejection, version: version)))
    }

    func sendError(_ code: ErrorCode, _ message: String, id: String?, to client: ConnectionID,
                   into effects: inout [Effect], reason: Sentence? = nil) {
        tally.errorsByCode[code.rawValue, default: 0] += 1
        effects.append(.send(client, .error(code: code, message: message, id: id, reason: reason)))
    }
}
