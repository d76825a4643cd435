// MARK: - The end of a gather: history, ratings and players' records

extension GatherRules {
    /// Files the gather in history and moves every player's rating and stats by its result.
    @discardableResult
    /// `penalties` (a level knockout match's shoot-out, checked by `settleTournament`) decide the
    /// entry's winner, and so its players' records.
    static func endGather(_ gather: ActiveGather, on pitch: Pitch, in state: inout GatherState, at now: Int64,
                          penalties: HomeAway? = nil) -> HistoryEntry
    {
        var entry = historyEntry(for: gather, on: pitch, in: state, endedAt: now)
        if gather.match != nil { entry.settle(score: gather.score, penalties: penalties.map(Score.init)) }
        applyRecords(of: entry, to: &state.players)
        state.history.insert(entry, at: 0)
        if state.history.count > GatherState.recentHistoryLimit {
            state.history.removeLast(state.history.count - GatherState.recentHistoryLimit)
        }
        return entry
    }

    /// What one finished gather adds to its players: the same function rebuilds every record
    /// from history when an older database is brought forward, so both paths always agree.
    public static func applyRecords(of entry: HistoryEntry, to players: inout [Player]) {
        let ratings = Dictionary(players.map { ($0.id, $0.rating) }, uniquingKeysWith: { first, _ in first })
        let results = MatchRecord.result(
            teamA: entry.teamA.players.map(\.id), teamB: entry.teamB.players.map(\.id), winner: entry.winner,
            ratings: ratings,
            goals: entry.goals.map { GoalCredit(team: $0.team, playerId: $0.playerId, assistId: $0.assistId) })
        for index in players.indices {
            guard let result = results[players[index].id] else { continue }
            players[index].rating += result.ratingDelta
            players[index].stats += result.stats
        }
    }

    /// Takes back what `applyRecords(of: entry)` added. A rating change depends on the ratings
    /// the players had before the gather, which are not kept: they are found again as the ratings
    /// that, moved by this result, give today's (a few rounds of `base = now - delta(base)`; exact
    /// when no later gather moved them, close when one did). Stats come back exactly.
    static func removeRecords(of entry: HistoryEntry, from players: inout [Player]) {
        let now = Dictionary(players.map { ($0.id, $0.rating) }, uniquingKeysWith: { first, _ in first })
        func results(_ ratings: [Player.ID: Int]) -> [Player.ID: PlayerMatchResult] {
            MatchRecord.result(
                teamA: entry.teamA.players.map(\.id), teamB: entry.teamB.players.map(\.id), winner: entry.winner,
                ratings: ratings,
                goals: entry.goals.map { GoalCredit(team: $0.team, playerId: $0.playerId, assistId: $0.assistId) })
        }
        var base = now
        for _ in 0..<8 {
            let moved = results(base)
            let earlier = now.reduce(into: [Player.ID: Int]()) { $0[$1.key] = $1.value - (moved[$1.key]?.ratingDelta ?? 0) }
            if earlier == base { break }
            base = earlier
        }
        let taken = results(base)
        for index in players.indices {
            guard let result = taken[players[index].id] else { continue }
            players[index].rating -= result.ratingDelta
            players[index].stats = players[index].stats - result.stats
        }
    }

    private static func historyEntry(for gather: ActiveGather, on pitch: Pitch, in state: GatherState,
                                     endedAt: Int64) -> HistoryEntry {
        func lineup(_ team: Team) -> HistoryEntry.Lineup {
            HistoryEntry.Lineup(name: team.name, players: team.players.map {
                HistoryEntry.PlayerName(id: $0, name: state.player($0)?.name ?? "#\($0)", memberId: state.player($0)?.memberId)
            }, colour: team.colour)
        }
        let goals = gather.standingGoals.compactMap { goal in
            goal.team.map { HistoryEntry.Goal(team: $0, playerId: goal.playerId, assistId: goal.assistId,
                                              matchMs: goal.matchMs ?? 0) }
        }
        var entry = HistoryEntry(id: gather.id, endedAt: endedAt, pitch: PitchReference(id: pitch.id, name: pitch.name),
                                 teamA: lineup(gather.teamA), teamB: lineup(gather.teamB), score: gather.score, goals: goals)
        entry.match = gather.match
        entry.clubDate = gather.clubDate
        return entry
    }
}
