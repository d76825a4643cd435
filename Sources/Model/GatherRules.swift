/// What the rules need to know besides the state: who acts, when, and an id for a new gather.
/// The Model has no clock and no randomness of its own; the Coordinator supplies both.
public struct ActionContext: Equatable, Sendable {
    public var now: Int64
    public var by: String?
    public var newGatherID: String
    /// The organiser has seen the "possible duplicate" question and said "Add another"
    /// (`action.confirmed: true` on the wire).
    public var confirmed: Bool
    /// `endGather`'s `penalties` (Team A is home): only a level tournament knockout match has them.
    public var penalties: HomeAway?

    public init(now: Int64, by: String?, newGatherID: String = "", confirmed: Bool = false, penalties: HomeAway? = nil) {
        self.now = now
        self.by = by
        self.newGatherID = newGatherID
        self.confirmed = confirmed
        self.penalties = penalties
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
            return .failure(Rejection(.invalid, .actionUnreadable, "The action could not be applied."))
        }
        state = next
        return .success(())
    }

    /// Ends every running countdown that reached zero at `now` or before, and says on which
    /// pitches. Each `fullTime` event is dated at the instant its timer really ended, even when
    /// the server learns it late (a restart, a busy queue).
    @discardableResult
    public static func expireTimers(_ state: inout GatherState, now: Int64) -> [Pitch.ID] {
        var expired: [Pitch.ID] = []
        for index in state.pitches.indices {
            guard var gather = state.pitches[index].gather, gather.timer.status == .running,
                  let endsAt = gather.timer.endsAt, endsAt <= now
            else { continue }
            gather.timer = MatchTimer(status: .finished, durationSeconds: gather.timer.durationSeconds, remainingMs: 0)
            gather.record(GatherEvent(seq: 0, kind: .fullTime, at: endsAt, matchMs: gather.timer.durationSeconds * 1000))
            state.pitches[index].gather = gather
            expired.append(state.pitches[index].id)
        }
        return expired
    }

    /// Whether any countdown had run out (see `expireTimers`).
    public static func expireTimer(_ state: inout GatherState, now: Int64) -> Bool {
        !expireTimers(&state, now: now).isEmpty
    }

    // MARK: - Arbitration

    /// The subjects `action` touches in `state`, for arbitration between organisers.
    public static func subjects(of action: Action, in state: GatherState) -> Set<Subject> {
        switch action {
        case .addPlayer: return [.player(state.nextPlayerID)]
        case .editPlayer(let id, _), .removePlayer(let id): return [.player(id)]
        case .addPitch: return [.pitch(state.nextPitchID)]
        case .renamePitch(let id, _): return [.pitch(id)]
        case .removePitch(let id): return [.pitch(id), .gather(id)]
        case .onPitch(let pitch, let action):
            let gather = state.pitch(pitch)?.gather
            switch action {
            case .assign(let id, _): return [.player(id)]
            case .renameTeam(let side, _), .setTeamColour(let side, _): return [.teamName(pitch, side)]
            case .score(let side, let delta, _, _):
                guard delta < 0, let goal = gather.flatMap({ latestStandingGoal(of: side, in: $0) }) else {
                    return [.score(pitch, side)]
                }
                return [.score(pitch, side), .goal(pitch, seq: goal.seq)]
            case .setScorer(let seq, _, _): return [.goal(pitch, seq: seq)]
            case .cancelGoal(let seq), .restoreGoal(let seq):
                let side = gather?.event(seq: seq)?.team
                return Set([.goal(pitch, seq: seq)] + (side.map { [.score(pitch, $0)] } ?? []))
            case .balanceTeams: return Set((gather?.memberIDs ?? []).map(Subject.player))
            case .setTimer, .startTimer, .pauseTimer, .resetTimer: return [.timer(pitch)]
            case .createGather(let ids): return wholeGather(pitch, gather, extraMembers: ids)
            case .startGather: return wholeGather(pitch, gather, extraMembers: [])
            case .endGather, .cancelGather:
                var subjects = wholeGather(pitch, gather, extraMembers: [])
                if let match = gather.flatMap({ tournamentMatch(of: $0, in: state) }) { subjects.insert(.tournamentMatch(match)) }
                return subjects
            }
        case .tournament(let action):
            return subjects(of: action, in: state)
        }
    }

    /// Creating, starting, ending or cancelling a gather touches everything in it, its goals
    /// included, so a stale `score` or `setScorer` meant for one gather never lands on the next.
    static func wholeGather(_ pitch: Pitch.ID, _ gather: ActiveGather?, extraMembers: [Player.ID])
        -> Set<Subject>
    {
        var subjects: Set<Subject> = [.gather(pitch), .timer(pitch), .score(pitch, .A), .score(pitch, .B),
                                      .teamName(pitch, .A), .teamName(pitch, .B)]
        for id in extraMembers + (gather?.memberIDs ?? []) { subjects.insert(.player(id)) }
        for event in gather?.events ?? [] where event.kind == .goal { subjects.insert(.goal(pitch, seq: event.seq)) }
        return subjects
    }

    // MARK: - Roster and pitches

    private static func reduce(_ state: inout GatherState, _ action: Action, _ context: ActionContext) throws {
        switch action {
        case .addPlayer(let changes):
            guard state.players.count < GatherState.maximumPlayers else {
                throw Rejection(.outOfRange, .rosterFull, ["max": .number(GatherState.maximumPlayers)], "The roster is full (\(GatherState.maximumPlayers) players); remove someone first.")
            }
            let player = changes.applied(to: Player(id: state.nextPlayerID, name: ""))
            state.players.append(player)
            state.nextPlayerID += 1

        case .editPlayer(let id, let changes):
            guard let index = state.playerIndex(id) else { throw notFound(id) }
            state.players[index] = changes.applied(to: state.players[index])

        case .removePlayer(let id):
            guard let index = state.playerIndex(id) else { throw notFound(id) }
            if let pitch = state.pitch(playing: id) {
                throw Rejection(.inUse, .playerInGather, ["player": .text(state.players[index].name), "pitch": .text(pitch.name)], "\(state.players[index].name) is in the gather on \(pitch.name); take them out first.")
            }
            state.players.remove(at: index)

        case .addPitch(let name):
            guard state.pitches.count < Pitch.maximumCount else {
                throw Rejection(.outOfRange, .pitchesFull, ["max": .number(Pitch.maximumCount)], "A venue can have at most \(Pitch.maximumCount) pitches.")
            }
            try requireUnusedPitchName(name, in: state, except: nil)
            state.pitches.append(Pitch(id: state.nextPitchID, name: name))
            state.nextPitchID += 1

        case .renamePitch(let id, let name):
            guard let index = state.pitchIndex(id) else { throw pitchNotFound(id) }
            try requireUnusedPitchName(name, in: state, except: id)
            state.pitches[index].name = name

        case .removePitch(let id):
            guard id != Pitch.firstID else { throw Rejection(.invalid, .firstPitchKept, "Pitch 1 is always there; it cannot be removed.") }
            guard let index = state.pitchIndex(id) else { throw pitchNotFound(id) }
            guard state.pitches[index].gather == nil else {
                throw Rejection(.inUse, .pitchInUse, ["pitch": .text(state.pitches[index].name)], "\(state.pitches[index].name) has a gather under way; end or cancel it first.")
            }
            if let refusal = state.tournament?.refusalToRemove(pitch: id, named: state.pitches[index].name) { throw refusal }
            state.pitches.remove(at: index)

        case .onPitch(let pitchID, let action):
            guard let index = state.pitchIndex(pitchID) else { throw pitchNotFound(pitchID) }
            try reduce(&state, pitch: index, action, context)

        case .tournament(let action):
            try reduce(&state, tournament: action, context)
        }
    }

    private static func requireUnusedPitchName(_ name: String, in state: GatherState, except id: Pitch.ID?) throws {
        let key = VisibleText.comparisonKey(name)
        if state.pitches.contains(where: { $0.id != id && VisibleText.comparisonKey($0.name) == key }) {
            throw Rejection(.invalid, .pitchNameTaken, ["name": .text(name)], "There is already a pitch called \(name); choose another name.")
        }
    }

    // MARK: - Helpers

    static func notFound(_ id: Player.ID) -> Rejection {
        Rejection(.notFound, .noSuchPlayer, ["id": .number(id)], "There is no player with id \(id); they may have been removed.")
    }

    public static func pitchNotFound(_ id: Pitch.ID) -> Rejection {
        Rejection(.notFound, .noSuchPitch, ["id": .number(id)], "There is no pitch \(id); it may have been removed.")
    }

    static func latestStandingGoal(of side: TeamSide, in gather: ActiveGather) -> GatherEvent? {
        gather.events.last { $0.kind == .goal && $0.team == side && $0.cancelled != true }
    }
}
