import GatherModel

/// `tournament` in the state (docs/PROTOCOL.md "A tournament day"), `/api/tournament.json` and
/// `/api/tournaments.json`: the contract's fields only (a match's `slot`, `endedAt` and
/// `revision` are the server's own bookkeeping).
public enum TournamentPresenter {
    /// `null` with no tournament.
    public static func json(_ tournament: Tournament?) -> JSONValue {
        guard let tournament else { return .null }
        return [
            "id": .string(tournament.id),
            "name": .string(tournament.name),
            "phase": .string(tournament.phase.rawValue),
            "rules": json(tournament.rules),
            "teams": .array(tournament.teams.map(json)),
            "groups": .array(tournament.groups.map(json)),
            "matches": .array(tournament.matches.map(json)),
            "champion": optional(tournament.champion),
        ]
    }

    /// `/api/tournament.json`: the tournament in the state, or `null`.
    public static func document(_ tournament: Tournament?) -> [UInt8] {
        JSONWriter.bytes(json(tournament))
    }

    /// `/api/tournaments.json`: every tournament kept, newest first, each with `cancelled`.
    public static func list(_ tournaments: [(tournament: Tournament, cancelled: Bool)]) -> [UInt8] {
        JSONWriter.bytes(["tournaments": .array(tournaments.map { entry in
            guard case .object(var members) = json(entry.tournament) else { return .null }
            members["cancelled"] = .bool(entry.cancelled)
            return .object(members)
        })])
    }

    static func json(_ rules: TournamentSettings) -> JSONValue {
        [
            "matchMinutes": .int(rules.matchMinutes),
            "breakMinutes": .int(rules.breakMinutes),
            "startsAt": .int(Int(rules.startsAt)),
            "pitches": .array(rules.pitches.map(JSONValue.int)),
            "pointsForWin": .int(rules.pointsForWin),
            "pointsForDraw": .int(rules.pointsForDraw),
            "tieBreak": .string(rules.tieBreak.rawValue),
            "advance": .int(rules.advance),
            "thirdPlace": .bool(rules.thirdPlace),
        ]
    }

    /// `colour` only when set.
    static func json(_ team: TournamentTeam) -> JSONValue {
        var members: [String: JSONValue] = [
            "id": .int(team.id), "name": .string(team.name), "players": .array(team.players.map(JSONValue.int)),
        ]
        if let colour = team.colour { members["colour"] = .string(colour.rawValue) }
        return .object(members)
    }

    static func json(_ group: TournamentGroup) -> JSONValue {
        [
            "name": .string(group.name),
            "teams": .array(group.teams.map(JSONValue.int)),
            "table": .array(group.table.map { row in
                ["team": .int(row.team), "played": .int(row.played), "won": .int(row.won), "drawn": .int(row.drawn),
                 "lost": .int(row.lost), "goalsFor": .int(row.goalsFor), "goalsAgainst": .int(row.goalsAgainst),
                 "goalDifference": .int(row.goalDifference), "points": .int(row.points),
                 "qualified": .bool(row.qualified), "eliminated": .bool(row.eliminated)]
            }),
        ]
    }

    static func json(_ match: TournamentMatch) -> JSONValue {
        [
            "id": .int(match.id),
            "stage": .string(match.stage.rawValue),
            "group": match.group.map(JSONValue.string) ?? .null,
            "home": optional(match.home),
            "away": optional(match.away),
            "homeFrom": match.homeFrom.map { .string($0.description) } ?? .null,
            "awayFrom": match.awayFrom.map { .string($0.description) } ?? .null,
            "pitch": .int(match.pitch),
            "plannedAt": .int(Int(match.plannedAt)),
            "expectedAt": .int(Int(match.expectedAt)),
            "status": .string(match.status.rawValue),
            "score": match.score.map(json) ?? .null,
            "penalties": match.penalties.map(json) ?? .null,
            "winner": optional(match.winner),
            "historyId": match.historyId.map(JSONValue.string) ?? .null,
        ]
    }

    /// A gather's (and its history entry's) `match`: which tournament match it is.
    public static func json(_ link: TournamentMatchLink) -> JSONValue {
        ["tournament": .string(link.tournament), "match": .int(link.match)]
    }

    private static func json(_ score: HomeAway) -> JSONValue {
        ["home": .int(score.home), "away": .int(score.away)]
    }

    private static func optional(_ id: Int?) -> JSONValue { id.map(JSONValue.int) ?? .null }
}
