// MARK: - The tournament as the venue sees it: its actions, and its matches' gathers

extension GatherRules {
    /// A tournament action on the venue's state: what needs the venue besides the tournament
    /// (its pitches, their gathers, the roster) is checked here; the rest by `Tournament`.
    static func reduce(_ state: inout GatherState, tournament action: TournamentAction, _ context: ActionContext) throws {
        if case .create(let json) = action {
            if let current = state.tournament, current.phase != .finished {
                throw Rejection(.inUse, .tournamentUnderWay, ["tournament": .text(current.name)],
                                "\(current.name) is still being played; cancel it or play it to the end first.")
            }
            let draft = try TournamentSetup.draft(from: json, pitches: state.pitches.map(\.id), now: context.now).get()
            state.tournament = Tournament(id: context.newGatherID, draft: draft)
            return
        }
        guard var tournament = state.tournament else {
            throw Rejection(.notFound, .noTournament, "There is no tournament; create one first.")
        }
        switch action {
        case .create: return
        case .setTeam(let id, let changes):
            try tournament.setTeam(id, changes, roster: Set(state.players.map(\.id)))
        case .startMatch(let id, let startEarly):
            try startMatch(id, startEarly: startEarly, of: &tournament, in: &state, context)
        case .correctResult(let id, let score, let penalties):
            try tournament.correctResult(id, score: score, penalties: penalties, at: context.now)
            if let historyID = tournament.match(id)?.historyId {
                correctHistory(historyID, score: Score(score), penalties: penalties.map(Score.init), in: &state, context)
            }
        case .moveMatches(let from, let to):
            try tournament.moveMatches(from: from, to: to, venuePitches: Set(state.pitches.map(\.id)), now: context.now)
        case .cancel:
            guard tournament.phase != .finished else {
                throw Rejection(.wrongPhase, .tournamentFinished, ["tournament": .text(tournament.name)],
                                "\(tournament.name) is already finished; there is nothing to cancel.")
            }
            // A match still live keeps its gather, which no longer belongs to a tournament.
            for index in state.pitches.indices where state.pitches[index].gather?.match?.tournament == tournament.id {
                state.pitches[index].gather?.match = nil
            }
            state.tournament = nil
            return
        }
        state.tournament = tournament
    }

    /// `startMatch`: the match's checks first (`wrong_phase`), then the venue's: its pitch free and
    /// no roster player on another pitch (`in_use`). The gather starts live, Team A at home.
    private static func startMatch(_ id: TournamentMatch.ID, startEarly: Bool, of tournament: inout Tournament,
                                   in state: inout GatherState, _ context: ActionContext) throws {
        let before = tournament
        try tournament.startMatch(id, at: context.now, startEarly: startEarly)
        guard let match = tournament.match(id), let index = state.pitchIndex(match.pitch) else {
            throw Rejection(.notFound, .matchPitchGone, ["match": .number(id)], "Match \(id)'s pitch is no longer at the venue; add it back first.")
        }
        let pitch = state.pitches[index]
        guard pitch.gather == nil else {
            throw Rejection(.inUse, .pitchInUse, ["pitch": .text(pitch.name)], "\(pitch.name) has a gather under way; end or cancel it first.")
        }
        let known = Set(state.players.map(\.id))
        for player in before.players(of: id) where known.contains(player) {
            try requireFree(player, in: state)
        }
        guard var gather = before.gather(for: id, id: context.newGatherID, at: context.now, by: context.by) else {
            throw Rejection(.wrongPhase, .matchTeamsUnknown, ["match": .number(id), "home": .text(tournament.placeLabel(match, home: true)),
                                                              "away": .text(tournament.placeLabel(match, home: false))],
                            "Match \(id)'s teams are not known yet.")
        }
        // A roster player removed from the venue since cannot play.
        gather.teamA.players.removeAll { !known.contains($0) }
        gather.teamB.players.removeAll { !known.contains($0) }
        state.pitches[index].gather = gather
        state.pitches[index].lastResult = nil
    }

    /// The tournament match `gather` plays, when it belongs to the state's tournament.
    static func tournamentMatch(of gather: ActiveGather, in state: GatherState) -> TournamentMatch.ID? {
        guard let link = gather.match, let tournament = state.tournament, tournament.id == link.tournament else { return nil }
        return link.match
    }

    /// `endGather` of a match's gather: the result goes to the tournament in the same change as the
    /// history entry. `penalties` anywhere but a level knockout match is `invalid`.
    static func settleTournament(endedGather gather: ActiveGather, entry: HistoryEntry, in state: inout GatherState,
                                 penalties: HomeAway?, at now: Int64) throws {
        guard let match = tournamentMatch(of: gather, in: state), var tournament = state.tournament else {
            if penalties != nil {
                throw Rejection(.invalid, .penaltiesNoMatch, "Only a tournament's knockout match has penalties; this gather is not one.")
            }
            return
        }
        try tournament.finishMatch(match, score: HomeAway(gather.score), penalties: penalties, endedAt: now,
                                   historyID: entry.id)
        state.tournament = tournament
    }

    /// `cancelGather` of a match's gather: the match is `scheduled` again.
    static func unstartTournamentMatch(cancelledGather gather: ActiveGather, in state: inout GatherState, at now: Int64) throws {
        guard let match = tournamentMatch(of: gather, in: state), var tournament = state.tournament else { return }
        try tournament.cancelMatch(match, at: now)
        state.tournament = tournament
    }

    /// The subjects of a tournament action: each match, each team and the tournament's settings are
    /// subjects of their own; starting a match also touches its pitch's whole gather and its players.
    static func subjects(of action: TournamentAction, in state: GatherState) -> Set<Subject> {
        switch action {
        case .create, .cancel: return [.tournamentSettings]
        case .setTeam(let id, _): return [.tournamentTeam(id)]
        case .correctResult(let id, _, _): return [.tournamentMatch(id)]
        case .moveMatches(let from, let to):
            // Every match it moves, and both pitches' order of play.
            let moving = state.tournament?.unplayedMatches(on: from) ?? []
            return Set(moving.map(Subject.tournamentMatch)).union([.pitch(from), .pitch(to)])
        case .startMatch(let id, _):
            var subjects: Set<Subject> = [.tournamentMatch(id)]
            guard let tournament = state.tournament, let match = tournament.match(id) else { return subjects }
            for team in [match.home, match.away].compactMap({ $0 }) { subjects.insert(.tournamentTeam(team)) }
            subjects.formUnion(wholeGather(match.pitch, state.pitch(match.pitch)?.gather,
                                           extraMembers: tournament.players(of: id)))
            return subjects
        }
    }
}
