import GatherModel

/// The `state` object of docs/PROTOCOL.md, shared by every audience.
public enum StatePresenter {
    public static func json(_ state: GatherState, now: Int64) -> JSONValue {
        [
            "players": .array(state.players.map(json)),
            "gather": state.gather.map { json($0, state: state, now: now) } ?? .null,
            "history": .array(state.history.map(json)),
        ]
    }

    public static func json(_ player: Player) -> JSONValue {
        [
            "id": .int(player.id),
            "name": .string(player.name),
            "age": player.age.map(JSONValue.int) ?? .null,
            "skill": player.skill.map { .string($0.rawValue) } ?? .null,
            "position": player.position.map { .string($0.rawValue) } ?? .null,
            "favouriteTeam": player.favouriteTeam.map(JSONValue.string) ?? .null,
        ]
    }

    public static func json(_ timer: MatchTimer, now: Int64) -> JSONValue {
        var members: [String: JSONValue] = [
            "status": .string(timer.status.rawValue),
            "durationSeconds": .int(timer.durationSeconds),
            "remainingMs": .int(timer.remainingMs(at: now)),
        ]
        if timer.status == .running, let endsAt = timer.endsAt { members["endsAt"] = .int(Int(endsAt)) }
        return .object(members)
    }

    public static func json(_ entry: HistoryEntry) -> JSONValue {
        func lineup(_ lineup: HistoryEntry.Lineup) -> JSONValue {
            ["name": .string(lineup.name),
             "players": .array(lineup.players.map { ["id": .int($0.id), "name": .string($0.name)] })]
        }
        return [
            "id": .string(entry.id),
            "endedAt": .int(Int(entry.endedAt)),
            "teams": ["A": lineup(entry.teamA), "B": lineup(entry.teamB)],
            "score": json(entry.score),
            "winner": .string(entry.winner.rawValue),
        ]
    }

    // MARK: - Parts of the gather

    private static func json(_ gather: ActiveGather, state: GatherState, now: Int64) -> JSONValue {
        [
            "id": .string(gather.id),
            "phase": .string(gather.phase.rawValue),
            "teams": ["A": json(gather.teamA), "B": json(gather.teamB)],
            "bench": .array(gather.bench.map(JSONValue.int)),
            "score": json(gather.score),
            "timer": json(gather.timer, now: now),
            "events": .array(gather.events.map(json)),
        ]
    }

    private static func json(_ team: Team) -> JSONValue {
        ["name": .string(team.name), "players": .array(team.players.map(JSONValue.int))]
    }

    private static func json(_ score: Score) -> JSONValue {
        ["A": .int(score.A), "B": .int(score.B)]
    }

    private static func json(_ event: GatherEvent) -> JSONValue {
        var members: [String: JSONValue] = [
            "seq": .int(event.seq),
            "kind": .string(event.kind.rawValue),
            "at": .int(Int(event.at)),
            "by": event.by.map(JSONValue.string) ?? .null,
        ]
        if let team = event.team { members["team"] = .string(team.rawValue) }
        if let matchMs = event.matchMs { members["matchMs"] = .int(matchMs) }
        return .object(members)
    }
}
