/// What the rules need to know besides the state: who acts, when, and an id for a new gather.
/// The Model has no clock and no randomness of its own; the Coordinator supplies both.
public struct ActionContext: Equatable, Sendable {
    public var now: Int64
    public var by: String?
    public var newGatherID: String

    public init(now: Int64, by: String?, newGatherID: String = "") {
        self.now = now
        self.by = by
        self.newGatherID = newGatherID
    }
}

/// The Football Gather rules: pure functions from a state and an action to the next state.
public enum GatherRules {
    // MARK: - Applying

    /// Applies `action`, or leaves `state` untouched and explains why not.
    public static func apply(_ action: Action, to state: inout GatherState, context: ActionContext)
        -> Result<Void, Rejection>
    {
        var next = state
        do {
            try reduce(&next, action, context)
        } catch let rejection as Rejection {
            return .failure(rejection)
        } catch {
            return .failure(Rejection(.invalid, "The action could not be applied."))
        }
        state = next
        return .success(())
    }

    /// Ends a running countdown that reached zero at `now` or before. The `fullTime` event is
    /// dated at the instant the timer really ended, even when the server learns it late.
    public static func expireTimer(_ state: inout GatherState, now: Int64) -> Bool {
        guard var gather = state.gather, gather.timer.status == .running, let endsAt = gather.timer.endsAt,
              endsAt <= now
        else { return false }
        gather.timer = MatchTimer(status: .finished, durationSeconds: gather.timer.durationSeconds, remainingMs: 0)
        gather.record(.fullTime, at: endsAt, matchMs: gather.timer.durationSeconds * 1000, by: nil)
        state.gather = gather
        return true
    }

    /// The subjects `action` touches in `state`, for arbitration between organisers.
    public static func subjects(of action: Action, in state: GatherState) -> Set<Subject> {
        switch action {
        case .addPlayer: return [.player(state.nextPlayerID)]
        case .editPlayer(let id, _), .removePlayer(let id), .assign(let id, _): return [.player(id)]
        case .renameTeam(let side, _): return [.teamName(side)]
        case .score(let side, _): return [.score(side)]
        case .setTimer, .startTimer, .pauseTimer, .resetTimer: return [.timer]
        case .createGather(let ids): return wholeGather(memberIDs: ids + (state.gather?.memberIDs ?? []))
        case .startGather, .endGather, .cancelGather: return wholeGather(memberIDs: state.gather?.memberIDs ?? [])
        }
    }

    private static func wholeGather(memberIDs: [Player.ID]) -> Set<Subject> {
        var subjects: Set<Subject> = [.gather, .timer, .score(.A), .score(.B), .teamName(.A), .teamName(.B)]
        for id in memberIDs { subjects.insert(.player(id)) }
        return subjects
    }

    // MARK: - The rules

    private static func reduce(_ state: inout GatherState, _ action: Action, _ context: ActionContext) throws {
        switch action {
        case .addPlayer(let changes):
            let player = changes.applied(to: Player(id: state.nextPlayerID, name: ""))
            state.players.append(player)
            state.nextPlayerID += 1

        case .editPlayer(let id, let changes):
            guard let index = state.playerIndex(id) else { throw notFound(id) }
            state.players[index] = changes.applied(to: state.players[index])

        case .removePlayer(let id):
            guard let index = state.playerIndex(id) else { throw notFound(id) }
            if state.gather?.contains(id) == true {
                throw Rejection(.inUse, "\(state.players[index].name) is in the current gather; take them out first.")
            }
            state.players.remove(at: index)

        case .createGather(let ids):
            guard state.gather == nil else {
                throw Rejection(.wrongPhase, "A gather is already under way; end or cancel it first.")
            }
            if let missing = ids.first(where: { state.player($0) == nil }) { throw notFound(missing) }
            state.gather = ActiveGather(id: context.newGatherID, bench: ids)

        case .assign(let id, let placement):
            var gather = try activeGather(state)
            guard let player = state.player(id) else { throw notFound(id) }
            if placement == .out, !gather.contains(id) {
                throw Rejection(.notFound, "\(player.name) is not in this gather.")
            }
            gather.remove(id)
            switch placement {
            case .A: gather.teamA.players.append(id)
            case .B: gather.teamB.players.append(id)
            case .bench: gather.bench.append(id)
            case .out: break
            }
            state.gather = gather

        case .renameTeam(let side, let name):
            var gather = try activeGather(state)
            gather[side].name = name
            state.gather = gather

        case .startGather:
            var gather = try activeGather(state)
            guard gather.phase == .setup else { throw Rejection(.wrongPhase, "The gather has already kicked off.") }
            guard !gather.teamA.players.isEmpty, !gather.teamB.players.isEmpty else {
                throw Rejection(.invalid, "Both teams need at least one player before kick-off.")
            }
            gather.phase = .live
            gather.record(.kickoff, at: context.now, by: context.by)
            state.gather = gather

        case .score(let side, let delta):
            var gather = try liveGather(state, doing: "change the score")
            let newScore = gather.score[side] + delta
            guard Score.range.contains(newScore) else {
                throw Rejection(.outOfRange, delta > 0
                    ? "\(gather[side].name) already has \(Score.range.upperBound) goals, the most a score can show."
                    : "\(gather[side].name) has no goals to take away.")
            }
            gather.score[side] = newScore
            gather.record(delta > 0 ? .goal : .goalCancelled, team: side, at: context.now,
                          matchMs: gather.timer.playedMs(at: context.now), by: context.by)
            state.gather = gather

        case .setTimer(let minutes, let seconds):
            var gather = try activeGather(state)
            guard gather.timer.status != .running else {
                throw Rejection(.wrongPhase, "Pause the timer before setting a new time.")
            }
            gather.timer = MatchTimer(durationSeconds: minutes * 60 + seconds)
            gather.record(.timerSet, at: context.now, by: context.by)
            state.gather = gather

        case .startTimer:
            var gather = try liveGather(state, doing: "start the timer")
            switch gather.timer.status {
            case .running: throw Rejection(.wrongPhase, "The timer is already running.")
            case .finished: throw Rejection(.wrongPhase, "Time is up; reset the timer or set a new time first.")
            case .stopped, .paused:
                guard gather.timer.remainingMs > 0 else {
                    throw Rejection(.wrongPhase, "There is no time left; set a new time first.")
                }
                gather.timer.status = .running
                gather.timer.endsAt = context.now + Int64(gather.timer.remainingMs)
            }
            gather.record(.timerStarted, at: context.now, matchMs: gather.timer.playedMs(at: context.now),
                          by: context.by)
            state.gather = gather

        case .pauseTimer:
            var gather = try activeGather(state)
            guard gather.timer.status == .running else { throw Rejection(.wrongPhase, "The timer is not running.") }
            // A pause landing after zero but before the countdown's wake-up would freeze the clock
            // as "paused" at 00:00, never `finished` and without full time; let it finish instead.
            guard gather.timer.remainingMs(at: context.now) > 0 else {
                throw Rejection(.wrongPhase, "Time is up; the timer is finishing.")
            }
            gather.timer.remainingMs = gather.timer.remainingMs(at: context.now)
            gather.timer.status = .paused
            gather.timer.endsAt = nil
            gather.record(.timerPaused, at: context.now, matchMs: gather.timer.playedMs(at: context.now),
                          by: context.by)
            state.gather = gather

        case .resetTimer:
            var gather = try activeGather(state)
            gather.timer = MatchTimer(durationSeconds: gather.timer.durationSeconds)
            gather.record(.timerReset, at: context.now, by: context.by)
            state.gather = gather

        case .endGather:
            let gather = try liveGather(state, doing: "end it")
            state.history.insert(historyEntry(for: gather, in: state, endedAt: context.now), at: 0)
            if state.history.count > GatherState.recentHistoryLimit {
                state.history.removeLast(state.history.count - GatherState.recentHistoryLimit)
            }
            state.gather = nil

        case .cancelGather:
            _ = try activeGather(state)
            state.gather = nil
        }
    }

    // MARK: - Helpers

    private static func activeGather(_ state: GatherState) throws -> ActiveGather {
        guard let gather = state.gather else {
            throw Rejection(.wrongPhase, "There is no gather under way; create one first.")
        }
        return gather
    }

    private static func liveGather(_ state: GatherState, doing what: String) throws -> ActiveGather {
        let gather = try activeGather(state)
        guard gather.phase == .live else { throw Rejection(.wrongPhase, "Kick off the gather before you \(what).") }
        return gather
    }

    private static func notFound(_ id: Player.ID) -> Rejection {
        Rejection(.notFound, "There is no player with id \(id); they may have been removed.")
    }

    private static func historyEntry(for gather: ActiveGather, in state: GatherState, endedAt: Int64) -> HistoryEntry {
        func lineup(_ team: Team) -> HistoryEntry.Lineup {
            HistoryEntry.Lineup(name: team.name, players: team.players.map {
                HistoryEntry.PlayerName(id: $0, name: state.player($0)?.name ?? "#\($0)")
            })
        }
        return HistoryEntry(id: gather.id, endedAt: endedAt, teamA: lineup(gather.teamA), teamB: lineup(gather.teamB),
                            score: gather.score)
    }
}
