import GatherDelivery
import GatherModel
import GatherPresenters
import GatherStore
import Logging

// MARK: - Commands: role, exactly once, arbitration, rules, durability

extension MatchCore {
    /// `judgedAlso`: subjects the command reads without changing them (a tournament action reads
    /// the tournament's settings), judged against changes since `base` but not journalled.
    ///
    /// `replyKey`: whom the answer is kept under for exactly-once, when not `organiser` (a referee's
    /// commands are kept per link, while its label stands where an organiser's name does).
    func handleCommand(_ command: Command, from client: ConnectionID, organiser: String?, replyKey: String? = nil,
                       judgedAlso: Set<Subject> = [], into effects: inout [Effect]) {
        let id = command.id
        guard let organiser else {
            reject(id, Rejection(.forbidden, .logInFirst, "Only organisers can change the gather; log in first."), to: client,
                   into: &effects)
            return
        }
        let now = environment.now()

        do {
            let replyKey = replyKey ?? organiser
            if let earlier = replies.reply(organiser: replyKey, commandID: id) {
                effects.append(.send(client, message(for: earlier, id: id)))
                return
            }
            let outcome = try decide(command, organiser: organiser, now: now, judgedAlso: judgedAlso)
            switch outcome {
            case .rejected(let rejection):
                try recordRejection(rejection, organiser: replyKey, commandID: id)
                reject(id, rejection, to: client, into: &effects)
            case .applied(let next, let subjects, let kind, let described):
                let entry = JournalEntry(version: version + 1, organiser: organiser, commandID: id, kind: kind,
                                         subjects: subjects, at: now, pitch: described.pitch,
                                         summary: ActivitySentence.english(described.sentence),
                                         sentence: described.sentence)
                try commit(next, entry: entry, replyKey: replyKey, into: &effects)
                tally.commandsApplied += 1
                effects.append(.send(client, .ack(id: id, version: version)))
                rescheduleCountdowns(into: &effects)
            }
        } catch {
            logger.error("command failed inside the server", metadata: [
                "command.id": "\(LogText.escaped(id))", "client.id": "\(client)", "error": "\(error)",
            ])
            let sentence = (error as? StoreError)?.kind == .full
                ? "The server's disk is full, so this change could not be saved; nothing was applied. "
                    + "Tell whoever runs the server, then try again."
                : "The server could not save this change; nothing was applied. Try again."
            sendError(.internalError, sentence, id: id, to: client, into: &effects,
                      reason: Sentence((error as? StoreError)?.kind == .full ? .diskFull : .saveFailed))
        }
    }

    private enum Decision {
        case rejected(Rejection)
        /// `described`: the activity list's sentence and pitch, worded from the state before and after.
        case applied(GatherState, subjects: Set<Subject>, kind: ActionKind, described: (sentence: Sentence, pitch: Int?))
    }

    private func decide(_ command: Command, organiser: String, now: Int64, judgedAlso: Set<Subject>) throws -> Decision {
        guard let base = command.base, (0...version).contains(base) else {
            return .rejected(Rejection(.invalid, .badBase, ["max": .number(version)],
                                       "\"base\" must be the last version you saw, a whole number from 0 to \(version)."))
        }
        let decoded: Action
        switch command.action {
        case .success(let value): decoded = value
        case .failure(let rejection): return .rejected(rejection)
        }
        let subjects = GatherRules.subjects(of: decoded, in: state)
        if base < version {
            switch arbiter.judge(after: base, version: version, subjects: subjects.union(judgedAlso), organiser: organiser) {
            case .clear: break
            case .conflict(let entry, let subject):
                return .rejected(Rejection(.conflict, sentence: Arbiter.conflictSentence(entry: entry, now: now),
                                           Arbiter.conflictMessage(entry: entry, subject: subject,
                                                                              state: state, now: now)))
            case .tooOld:
                return .rejected(Rejection(.conflict, .screenBehind, "Your screen is too far behind to tell what changed since; "
                                           + "check the latest state and try again."))
            }
        }
        var next = state
        // Only a new gather draws an id, so ids are not spent on every command.
        let gatherID = decoded.createsGather ? environment.newGatherID() : ""
        let context = ActionContext(now: now, by: organiser, newGatherID: gatherID, confirmed: command.confirmed,
                                    penalties: command.penalties)
        switch GatherRules.apply(decoded, to: &next, context: context) {
        case .failure(let rejection): return .rejected(rejection)
        case .success:
            let (sentence, pitch) = ActivitySentence.describe(decoded, before: state, after: next)
            return .applied(next, subjects: subjects, kind: decoded.kind, described: (sentence, pitch))
        }
    }

    func message(for reply: StoredReply, id: String) -> ServerMessage {
        switch reply {
        case .ack(let version): .ack(id: id, version: version)
        case .rejected(let code, let message, let version, let reason):
            .rejected(id: id, rejection: reason.map { Rejection(code, sentence: $0, message) } ?? Rejection(code, message),
                      version: version)
        }
    }

    // MARK: - Countdown

    /// Finishes every running timer whose end has passed, in one change. Returns whether it did.
    @discardableResult
    func expireTimersIfDue(into effects: inout [Effect]) -> Bool {
        let now = environment.now()
        var next = state
        let expired = GatherRules.expireTimers(&next, now: now)
        guard !expired.isEmpty else { return false }
        let names = expired.compactMap { state.pitch($0)?.name }.joined(separator: ", ")
        let entry = JournalEntry(version: version + 1, organiser: nil, commandID: nil, kind: .timerExpired,
                                 subjects: Set(expired.map(Subject.timer)), at: now,
                                 pitch: expired.count == 1 ? expired.first : nil,
                                 summary: "Full time on \(names): the timer ran out",
                                 sentence: ActivitySentence.fullTime(pitches: expired.compactMap { state.pitch($0)?.name }))
        do {
            try commit(next, entry: entry, into: &effects)
            return true
        } catch {
            // Retried at the next wake-up; the timer stays at 00:00 meanwhile.
            logger.error("could not save the end of the countdown", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// One wake-up per running timer: on each whole second of its remaining time, and at zero.
    /// Timers that stopped (or whose pitch is gone) have their wake-up cancelled.
    ///
    /// A wake-up already pending and not later than the next one is kept even when it is due now:
    /// it is that timer's tick for this second, and moving it on (because another pitch's wake-up
    /// or a command happened to be handled first) would skip the tick.
    func rescheduleCountdowns(into effects: inout [Effect]) {
        let now = environment.now()
        var wanted: [Pitch.ID: Int64] = [:]
        for pitch in state.pitches {
            guard let timer = pitch.gather?.timer, timer.status == .running, let endsAt = timer.endsAt else { continue }
            let remaining = endsAt - now
            let next: Int64
            if remaining <= 0 {
                next = now + 1000  // the save failed; try again shortly
            } else {
                let toNextSecond = remaining % 1000 == 0 ? 1000 : remaining % 1000
                next = now + min(toNextSecond, remaining)
            }
            if let pending = countdownWakes[pitch.id], pending <= next {
                wanted[pitch.id] = pending
            } else {
                wanted[pitch.id] = next
            }
        }
        for pitch in Set(wanted.keys).union(countdownWakes.keys).sorted() where wanted[pitch] != countdownWakes[pitch] {
            countdownWakes[pitch] = wanted[pitch]
            effects.append(.scheduleCountdown(pitch: pitch, at: wanted[pitch]))
        }
    }
}
