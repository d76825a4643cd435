/// The parts of a tournament that follow from its results and kickoffs, recomputed after every
/// transition rather than patched by each one: tables, the knockout places already known, the
/// winners, `expectedAt`, the phase and the champion; and each match's `revision`, bumped when
/// its time or teams moved.
extension Tournament {
    /// Whether every group match is finished (the first knockout round then knows its teams).
    public var groupStageFinished: Bool {
        matches.allSatisfy { $0.stage != .group || $0.status == .finished }
    }

    /// Settles the derived parts; `previous` (the value before the transition) decides which
    /// matches moved and so get a new `revision`; `now` (the transition's moment, nil when it has
    /// none) is the earliest a scheduled match can still be expected.
    mutating func settle(after previous: Tournament?, now: Int64? = nil) {
        let groupMatches = matches.filter { $0.stage == .group }
        var remaining: [TournamentTeam.ID: Int] = [:]
        for match in groupMatches where match.status != .finished {
            for team in [match.home, match.away].compactMap({ $0 }) { remaining[team, default: 0] += 1 }
        }
        for index in groups.indices {
            let table = TournamentTable.rank(teams: groups[index].teams, matches: groupMatches, settings: rules)
            groups[index].table = TournamentTable.certainty(table, remaining: remaining, advance: rules.advance, settings: rules)
        }
        let groupsDone = groupStageFinished
        for index in matches.indices {
            if matches[index].stage.isKnockout {
                matches[index].home = resolve(matches[index].homeFrom, groupsDone: groupsDone)
                matches[index].away = resolve(matches[index].awayFrom, groupsDone: groupsDone)
            }
            matches[index].winner = Self.winner(of: matches[index])
        }
        settleExpectedTimes(now: now)
        if matches.allSatisfy({ $0.status == .finished }) {
            phase = .finished
            champion = matches.last { $0.stage == .final }?.winner
        } else {
            phase = groupsDone ? .knockout : .groups
            champion = nil
        }
        if let previous {
            for index in matches.indices {
                guard let before = previous.match(matches[index].id) else { continue }
                if before.expectedAt != matches[index].expectedAt || before.home != matches[index].home
                    || before.away != matches[index].away || before.pitch != matches[index].pitch
                {
                    matches[index].revision = before.revision + 1
                }
            }
        }
    }

    /// The team a knockout place names, once known: a group place when the group stage is over,
    /// a `W`/`L` place once that match is finished.
    private func resolve(_ source: PlaceSource?, groupsDone: Bool) -> TournamentTeam.ID? {
        switch source {
        case .none: nil
        case .group(let name, let rank)?:
            groupsDone ? groups.first { $0.name == name }.flatMap { $0.table.indices.contains(rank - 1) ? $0.table[rank - 1].team : nil } : nil
        case .winner(let id)?: match(id).flatMap { $0.status == .finished ? $0.winner : nil }
        case .loser(let id)?: match(id)?.loser
        }
    }

    /// More goals wins; a level knockout match is decided on penalties; a level group match has none.
    static func winner(of match: TournamentMatch) -> TournamentTeam.ID? {
        guard match.status == .finished, let score = match.score, let home = match.home, let away = match.away else {
            return nil
        }
        if score.home != score.away { return score.home > score.away ? home : away }
        guard match.stage.isKnockout, let penalties = match.penalties, penalties.home != penalties.away else { return nil }
        return penalties.home > penalties.away ? home : away
    }

    /// `expectedAt` along each pitch, in schedule order (docs/PROTOCOL.md "Times follow the day
    /// both ways"): a live or finished match's is its kickoff (kept as set when it started); a
    /// scheduled one's is the latest of its `plannedAt`, the moment its pitch is free (the match
    /// before it there ended when its gather did, a live one ends `matchMinutes` after its
    /// kickoff, a scheduled one `matchMinutes` after its own `expectedAt`; plus the break) and
    /// `now`. After a match started with `startEarly` the pitch's next matches may be expected
    /// before their planned times (the day runs early); otherwise `plannedAt` is the floor.
    /// (Matches are sorted by id, and ids follow the slots, so array order is schedule order.)
    private mutating func settleExpectedTimes(now: Int64?) {
        var previousEnd: [Pitch.ID: Int64] = [:]
        var runsEarly: [Pitch.ID: Bool] = [:]
        for index in matches.indices {
            let pitch = matches[index].pitch
            switch matches[index].status {
            case .scheduled:
                let free = previousEnd[pitch].map { $0 + rules.breakMs }
                let floor = runsEarly[pitch] == true ? (free ?? matches[index].plannedAt) : matches[index].plannedAt
                matches[index].expectedAt = max(floor, free ?? floor, now ?? floor)
                previousEnd[pitch] = matches[index].expectedAt + rules.matchMs
            case .live:
                previousEnd[pitch] = matches[index].expectedAt + rules.matchMs
                runsEarly[pitch] = matches[index].startedEarly == true
            case .finished:
                previousEnd[pitch] = matches[index].endedAt ?? matches[index].expectedAt + rules.matchMs
                runsEarly[pitch] = matches[index].startedEarly == true
            }
        }
    }
}
