// MARK: - One pitch's gather: line-up, score, goals, countdown

extension GatherRules {
    static func reduce(_ state: inout GatherState, pitch index: Int, _ action: GatherAction,
                       _ context: ActionContext) throws {
        let pitch = state.pitches[index]
        switch action {
        case .createGather(let ids):
            guard pitch.gather == nil else {
                throw Rejection(.wrongPhase, .gatherUnderWay, ["pitch": .text(pitch.name)], "A gather is already under way on \(pitch.name); end or cancel it first.")
            }
            guard ids.count <= ActiveGather.maximumPlayers else {
                throw Rejection(.outOfRange, .gatherFull, ["max": .number(ActiveGather.maximumPlayers)], "A gather can hold at most \(ActiveGather.maximumPlayers) players.")
            }
            if let missing = ids.first(where: { state.player($0) == nil }) { throw notFound(missing) }
            for id in ids { try requireFree(id, in: state) }
            state.pitches[index].gather = ActiveGather(id: context.newGatherID, bench: ids)
            state.pitches[index].lastResult = nil

        case .selectFromClubDate(let date):
            try selectFromClubDate(date, pitch: index, in: &state, context)

        case .endGather:
            let gather = try liveGather(pitch, doing: "end it")
            let entry = endGather(gather, on: pitch, in: &state, at: context.now, penalties: context.penalties)
            try settleTournament(endedGather: gather, entry: entry, in: &state, penalties: context.penalties, at: context.now)
            state.pitches[index].gather = nil
            state.pitches[index].lastResult = entry

        case .cancelGather:
            let gather = try activeGather(pitch)
            try unstartTournamentMatch(cancelledGather: gather, in: &state, at: context.now)
            state.pitches[index].gather = nil

        case .assign(let id, let placement):
            var gather = try activeGather(pitch)
            guard let player = state.player(id) else { throw notFound(id) }
            if placement == .out, !gather.contains(id) {
                throw Rejection(.notFound, .playerNotInGather, ["player": .text(player.name)], "\(player.name) is not in this gather.")
            }
            if placement != .out, !gather.contains(id) {
                try requireFree(id, in: state)
                guard gather.memberIDs.count < ActiveGather.maximumPlayers else {
                    throw Rejection(.outOfRange, .gatherFull, ["max": .number(ActiveGather.maximumPlayers)], "A gather can hold at most \(ActiveGather.maximumPlayers) players.")
                }
            }
            gather.remove(id)
            switch placement {
            case .A: gather.teamA.players.append(id)
            case .B: gather.teamB.players.append(id)
            case .bench: gather.bench.append(id)
            case .out: break
            }
            state.pitches[index].gather = gather

        case .balanceTeams:
            var gather = try activeGather(pitch)
            guard gather.phase == .setup else {
                throw Rejection(.wrongPhase, .balanceBeforeKickOff, "Teams are balanced before kick-off; move players by hand during the match.")
            }
            try requireRoom(gather)
            let candidates = gather.memberIDs.compactMap { id in
                state.player(id).map { BalanceCandidate(id: id, rating: $0.rating, isGoalkeeper: $0.position == .goalkeeper) }
            }
            guard let teams = TeamBalancer.balance(candidates) else {
                throw Rejection(.invalid, .balanceNeedsTwo, "Balancing needs at least two players in the gather.")
            }
            gather.teamA.players = teams.teamA
            gather.teamB.players = teams.teamB
            gather.bench = []
            gather.record(GatherEvent(seq: 0, kind: .teamsBalanced, at: context.now, by: context.by,
                                      difference: teams.difference))
            state.pitches[index].gather = gather

        default:
            var gather = try activeGather(pitch)
            try reduce(&gather, action, context)
            state.pitches[index].gather = gather
        }
    }

    /// The actions that change only the gather itself.
    private static func reduce(_ gather: inout ActiveGather, _ action: GatherAction, _ context: ActionContext) throws {
        switch action {
        case .renameTeam(let side, let name):
            gather[side].name = name

        case .setTeamColour(let side, let colour):
            gather[side].colour = colour

        case .startGather:
            guard gather.phase == .setup else { throw Rejection(.wrongPhase, .alreadyKickedOff, "The gather has already kicked off.") }
            guard !gather.teamA.players.isEmpty, !gather.teamB.players.isEmpty else {
                throw Rejection(.invalid, .teamsNeedPlayers, "Both teams need at least one player before kick-off.")
            }
            try requireRoom(gather)
            gather.phase = .live
            gather.record(GatherEvent(seq: 0, kind: .kickoff, at: context.now, by: context.by))

        case .score(let side, let delta, let scorer, let assist):
            try requireLive(gather, doing: "change the score")
            try requireRoom(gather)
            if delta > 0 {
                guard gather.score[side] < Score.range.upperBound else {
                    throw Rejection(.outOfRange, .scoreAtMost, ["team": .text(gather[side].name), "max": .number(Score.range.upperBound)],
                                    "\(gather[side].name) already has \(Score.range.upperBound) goals, the most a score can show.")
                }
                try checkCredit(scorer: scorer, assist: assist, side: side, in: gather)
                if !context.confirmed, let question = possibleDuplicate(of: side, in: gather, context) {
                    throw question
                }
                gather.score[side] += 1
                gather.record(.goal(team: side, at: context.now, matchMs: gather.timer.playedMs(at: context.now),
                                    by: context.by, playerId: scorer, assistId: assist))
            } else {
                guard let goal = latestStandingGoal(of: side, in: gather) else {
                    throw Rejection(.outOfRange, .noGoalsToTake, ["team": .text(gather[side].name)], "\(gather[side].name) has no goals to take away.")
                }
                cancel(goal, in: &gather, context)
            }

        case .setScorer(let seq, let scorer, let assist):
            guard let goal = gather.event(seq: seq), goal.kind == .goal, let side = goal.team,
                  let index = gather.events.firstIndex(where: { $0.seq == seq })
            else { throw Rejection(.notFound, .noSuchGoal, ["goal": .number(seq)], "There is no goal #\(seq) in this gather.") }
            guard scorer != nil || assist == nil else {
                throw Rejection(.invalid, .assistNeedsScorer, "Name the scorer before the assist.")
            }
            try checkCredit(scorer: scorer, assist: assist, side: side, in: gather)
            gather.events[index].playerId = scorer
            gather.events[index].assistId = assist

        case .cancelGoal(let seq):
            guard let goal = gather.event(seq: seq), goal.kind == .goal, goal.cancelled != true else {
                throw Rejection(.notFound, .noStandingGoal, ["goal": .number(seq)], "There is no goal #\(seq) still standing in this gather.")
            }
            try requireRoom(gather)
            cancel(goal, in: &gather, context)

        case .restoreGoal(let seq):
            guard let goal = gather.event(seq: seq), goal.kind == .goal, goal.cancelled == true, let side = goal.team else {
                throw Rejection(.notFound, .noCancelledGoal, ["goal": .number(seq)], "There is no cancelled goal #\(seq) in this gather to bring back.")
            }
            guard gather.score[side] < Score.range.upperBound else {
                throw Rejection(.outOfRange, .scoreAtMost, ["team": .text(gather[side].name), "max": .number(Score.range.upperBound)],
                                "\(gather[side].name) already has \(Score.range.upperBound) goals, the most a score can show.")
            }
            try requireRoom(gather)
            restore(goal, side: side, in: &gather, context)

        case .setTimer(let minutes, let seconds):
            guard gather.timer.status != .running else {
                throw Rejection(.wrongPhase, .pauseBeforeSetting, "Pause the timer before setting a new time.")
            }
            try requireRoom(gather)
            gather.timer = MatchTimer(durationSeconds: minutes * 60 + seconds)
            gather.record(GatherEvent(seq: 0, kind: .timerSet, at: context.now, by: context.by))

        case .startTimer:
            try requireLive(gather, doing: "start the timer")
            switch gather.timer.status {
            case .running: throw Rejection(.wrongPhase, .timerRunning, "The timer is already running.")
            case .finished: throw Rejection(.wrongPhase, .timeUpReset, "Time is up; reset the timer or set a new time first.")
            case .stopped, .paused:
                guard gather.timer.remainingMs > 0 else {
                    throw Rejection(.wrongPhase, .noTimeLeft, "There is no time left; set a new time first.")
                }
                try requireRoom(gather)
                gather.timer.status = .running
                gather.timer.endsAt = context.now + Int64(gather.timer.remainingMs)
            }
            gather.record(GatherEvent(seq: 0, kind: .timerStarted, at: context.now,
                                      matchMs: gather.timer.playedMs(at: context.now), by: context.by))

        case .pauseTimer:
            guard gather.timer.status == .running else { throw Rejection(.wrongPhase, .timerNotRunning, "The timer is not running.") }
            // A pause landing after zero but before the countdown's wake-up would freeze the clock
            // as "paused" at 00:00, never `finished` and without full time; let it finish instead.
            guard gather.timer.remainingMs(at: context.now) > 0 else {
                throw Rejection(.wrongPhase, .timerFinishing, "Time is up; the timer is finishing.")
            }
            try requireRoom(gather)
            gather.timer.remainingMs = gather.timer.remainingMs(at: context.now)
            gather.timer.status = .paused
            gather.timer.endsAt = nil
            gather.record(GatherEvent(seq: 0, kind: .timerPaused, at: context.now,
                                      matchMs: gather.timer.playedMs(at: context.now), by: context.by))

        case .resetTimer:
            try requireRoom(gather)
            gather.timer = MatchTimer(durationSeconds: gather.timer.durationSeconds)
            gather.record(GatherEvent(seq: 0, kind: .timerReset, at: context.now, by: context.by))

        case .createGather, .selectFromClubDate, .endGather, .cancelGather, .assign, .balanceTeams:
            preconditionFailure("\(action.kind) changes more than the gather and is reduced on the state")
        }
    }

    // MARK: - Goals

    /// Takes a goal back: it stays in the timeline marked cancelled, the score drops, and a
    /// `goalCancelled` names it, so every phone can show what happened.
    private static func cancel(_ goal: GatherEvent, in gather: inout ActiveGather, _ context: ActionContext) {
        guard let side = goal.team, let index = gather.events.firstIndex(where: { $0.seq == goal.seq }) else { return }
        gather.events[index].cancelled = true
        gather.score[side] -= 1
        gather.record(GatherEvent(seq: 0, kind: .goalCancelled, team: side, at: context.now,
                                  matchMs: gather.timer.playedMs(at: context.now), by: context.by, cancels: goal.seq))
    }

    /// Undoes the latest cancellation of `goal`: the goal stands again with its scorer and assist,
    /// that `goalCancelled` stays in the timeline marked `undone`, and a `goalRestored` says so.
    private static func restore(_ goal: GatherEvent, side: TeamSide, in gather: inout ActiveGather,
                                _ context: ActionContext) {
        guard let index = gather.events.firstIndex(where: { $0.seq == goal.seq }) else { return }
        gather.events[index].cancelled = false
        if let cancellation = gather.events.lastIndex(where: {
            $0.kind == .goalCancelled && $0.cancels == goal.seq && $0.undone != true
        }) {
            gather.events[cancellation].undone = true
        }
        gather.score[side] += 1
        gather.record(GatherEvent(seq: 0, kind: .goalRestored, team: side, at: context.now,
                                  matchMs: gather.timer.playedMs(at: context.now), by: context.by, restores: goal.seq))
    }

    /// How long after another organiser's goal a +1 for the same team is asked about.
    public static let duplicateWindowMs: Int64 = 20_000

    /// Two organisers watching the same goal press +1 a second apart: the second is asked
    /// before it counts. An organiser's own second press is a second goal, never a question.
    static func possibleDuplicate(of side: TeamSide, in gather: ActiveGather, _ context: ActionContext) -> Rejection? {
        guard let latest = latestStandingGoal(of: side, in: gather), let by = latest.by, by != context.by else {
            return nil
        }
        let age = context.now - latest.at
        guard age < duplicateWindowMs else { return nil }
        let seconds = age / 1000
        let when = seconds < 1 ? "just now" : "\(seconds) s ago"
        return Rejection(.possibleDuplicate, .duplicateGoal,
                         ["organiser": .text(by), "team": .text(gather[side].name), "seconds": .number(Int(seconds))],
                         "\(by) added a goal for \(gather[side].name) \(when). Add another?")
    }

    /// A scorer and an assist must be players of the scoring team in this gather, and two people.
    private static func checkCredit(scorer: Player.ID?, assist: Player.ID?, side: TeamSide, in gather: ActiveGather) throws {
        let team = gather[side]
        for (id, role) in [(scorer, "scorer"), (assist, "assist")] {
            if let id, !team.players.contains(id) {
                throw Rejection(.invalid, role == "scorer" ? .scorerNotInTeam : .assistNotInTeam, ["team": .text(team.name)],
                                "The \(role) must be a player of \(team.name).")
            }
        }
        if let scorer, scorer == assist { throw Rejection(.invalid, .ownAssist, "A player cannot assist their own goal.") }
    }

    // MARK: - Checks

    private static func activeGather(_ pitch: Pitch) throws -> ActiveGather {
        guard let gather = pitch.gather else {
            throw Rejection(.wrongPhase, .noGather, ["pitch": .text(pitch.name)], "There is no gather under way on \(pitch.name); create one first.")
        }
        return gather
    }

    private static func liveGather(_ pitch: Pitch, doing what: String) throws -> ActiveGather {
        let gather = try activeGather(pitch)
        try requireLive(gather, doing: what)
        return gather
    }

    private static func requireLive(_ gather: ActiveGather, doing what: String) throws {
        guard gather.phase == .live else { throw Rejection(.wrongPhase, .kickOffFirst, "Kick off the gather before you \(what).") }
    }

    private static func requireRoom(_ gather: ActiveGather) throws {
        guard gather.hasRoomForEvents else {
            throw Rejection(.outOfRange, .timelineFull, ["max": .number(ActiveGather.maximumEvents)], "This gather's timeline is full (\(ActiveGather.maximumEvents) events); end it and start another.")
        }
    }

    /// A player plays in at most one gather at a time.
    static func requireFree(_ id: Player.ID, in state: GatherState) throws {
        if let other = state.pitch(playing: id), let player = state.player(id) {
            throw Rejection(.inUse, .playerOnOtherPitch, ["player": .text(player.name), "pitch": .text(other.name)], "\(player.name) is playing on \(other.name); take them out there first.")
        }
    }
}
