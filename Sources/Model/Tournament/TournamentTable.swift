/// A group's table (docs/PROTOCOL.md "Tables"): its finished matches counted, then sorted by
/// the tie-break the organiser chose. Always complete and ordered, also before any match.
public enum TournamentTable {
    /// `teams` in seeding order; `matches` may hold any matches: only the finished ones between
    /// two of `teams` count.
    public static func rank(teams: [TournamentTeam.ID], matches: [TournamentMatch], settings: TournamentSettings)
        -> [TableRow]
    {
        let members = Set(teams)
        let played = matches.filter { match in
            guard match.status == .finished, match.score != nil, let home = match.home, let away = match.away else { return false }
            return members.contains(home) && members.contains(away)
        }
        let overall = rows(teams: teams, matches: played, settings: settings)
        // Among the teams level on points (all of them together): their matches with each other.
        var headToHead: [TournamentTeam.ID: TableRow] = [:]
        for level in Dictionary(grouping: teams, by: { overall[$0]!.points }).values where level.count > 1 {
            let between = Set(level)
            let mini = rows(teams: level, matches: played.filter { between.contains($0.home!) && between.contains($0.away!) },
                            settings: settings)
            headToHead.merge(mini) { _, new in new }
        }
        let seed = Dictionary(uniqueKeysWithValues: teams.enumerated().map { ($0.element, $0.offset) })
        func keys(_ team: TournamentTeam.ID) -> [Int] {
            let all = overall[team]!
            let mini = headToHead[team] ?? TableRow(team: team)
            switch settings.tieBreak {
            case .goalDifference:
                return [all.points, all.goalDifference, all.goalsFor, mini.points, mini.goalDifference, mini.goalsFor,
                        -seed[team]!]
            case .headToHead:
                return [all.points, mini.points, mini.goalDifference, mini.goalsFor, all.goalDifference, all.goalsFor,
                        -seed[team]!]
            }
        }
        let sortKeys = Dictionary(uniqueKeysWithValues: teams.map { ($0, keys($0)) })
        return teams.sorted { sortKeys[$0]!.lexicographicallyPrecedes(sortKeys[$1]!, by: >) }.map { overall[$0]! }
    }

    /// Marks the places that are certain (docs/PROTOCOL.md "\"Through\" only when certain"). With
    /// every match of the group played, the table is final: the first `advance` are `qualified`,
    /// the rest `eliminated`. Before that, by points alone, so never too early whatever the goals
    /// and tie-breaks: a team is `qualified` when fewer than `advance` others could still reach its
    /// lowest possible total (losing every match left), `eliminated` when at least `advance` others
    /// are already above its highest (winning or drawing, whichever scores more, every match left).
    /// `remaining` counts each team's matches still to play (scheduled or live).
    public static func certainty(_ table: [TableRow], remaining: [TournamentTeam.ID: Int], advance: Int,
                                 settings: TournamentSettings) -> [TableRow]
    {
        let finished = table.allSatisfy { (remaining[$0.team] ?? 0) == 0 }
        let best = max(settings.pointsForWin, settings.pointsForDraw, 0)
        func lowest(_ row: TableRow) -> Int { row.points }
        func highest(_ row: TableRow) -> Int { row.points + (remaining[row.team] ?? 0) * best }
        return table.enumerated().map { index, row in
            var row = row
            if finished {
                row.qualified = index < advance
                row.eliminated = index >= advance
            } else {
                let couldReach = table.filter { $0.team != row.team && highest($0) >= lowest(row) }.count
                let alreadyAbove = table.filter { $0.team != row.team && lowest($0) > highest(row) }.count
                row.qualified = couldReach < advance
                row.eliminated = alreadyAbove >= advance
            }
            return row
        }
    }

    private static func rows(teams: [TournamentTeam.ID], matches: [TournamentMatch], settings: TournamentSettings)
        -> [TournamentTeam.ID: TableRow]
    {
        var rows = Dictionary(uniqueKeysWithValues: teams.map { ($0, TableRow(team: $0)) })
        for match in matches {
            guard let home = match.home, let away = match.away, let score = match.score else { continue }
            count(&rows[home]!, scored: score.home, conceded: score.away, settings: settings)
            count(&rows[away]!, scored: score.away, conceded: score.home, settings: settings)
        }
        return rows
    }

    private static func count(_ row: inout TableRow, scored: Int, conceded: Int, settings: TournamentSettings) {
        row.played += 1
        row.goalsFor += scored
        row.goalsAgainst += conceded
        if scored > conceded {
            row.won += 1
            row.points += settings.pointsForWin
        } else if scored == conceded {
            row.drawn += 1
            row.points += settings.pointsForDraw
        } else {
            row.lost += 1
        }
    }
}
