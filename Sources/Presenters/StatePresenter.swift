import GatherDelivery
import GatherModel

/// The `state` object of docs/PROTOCOL.md, shared by every audience.
public enum StatePresenter {
    public static func json(_ state: GatherState, now: Int64, protocol wire: WireProtocol = .v1) -> JSONValue {
        var members: [String: JSONValue] = [
            "players": .array(state.players.map(json)),
            "pitches": .array(state.pitches.map { json($0, now: now, protocol: wire) }),
            "history": .array(state.history.map(json)),
            "tournament": TournamentPresenter.json(state.tournament),
        ]
        if wire == .v1 {
            members["gather"] = state.pitch(Pitch.firstID)?.gather.map { json($0, now: now, protocol: wire) } ?? .null
        }
        return .object(members)
    }

    /// `memberId` only on a player linked to a club member.
    public static func json(_ player: Player) -> JSONValue {
        var members: [String: JSONValue] = [
            "id": .int(player.id),
            "name": .string(player.name),
            "age": player.age.map(JSONValue.int) ?? .null,
            "skill": player.skill.map { .string($0.rawValue) } ?? .null,
            "position": player.position.map { .string($0.rawValue) } ?? .null,
            "favouriteTeam": player.favouriteTeam.map(JSONValue.string) ?? .null,
            "rating": .int(player.rating),
            "stats": json(player.stats),
        ]
        if let memberId = player.memberId { members["memberId"] = .string(memberId) }
        return .object(members)
    }

    public static func json(_ stats: PlayerStats) -> JSONValue {
        ["games": .int(stats.games), "wins": .int(stats.wins), "draws": .int(stats.draws), "losses": .int(stats.losses),
         "goals": .int(stats.goals), "assists": .int(stats.assists)]
    }

    /// A running timer's `remainingMs`: in gather.v1 (and in ticks) the time left now; in gather.v2 the
    /// time left when it last started, so that a goal's patch does not replace the `remainingMs` of
    /// every running clock of the venue (docs/PROTOCOL.md §10: clients count down from `endsAt`).
    public static func json(_ timer: MatchTimer, now: Int64, protocol wire: WireProtocol = .v1) -> JSONValue {
        var members: [String: JSONValue] = [
            "status": .string(timer.status.rawValue),
            "durationSeconds": .int(timer.durationSeconds),
            "remainingMs": .int(wire == .v2 ? timer.remainingMs : timer.remainingMs(at: now)),
        ]
        if timer.status == .running, let endsAt = timer.endsAt { members["endsAt"] = .int(Int(endsAt)) }
        return .object(members)
    }

    public static func json(_ entry: HistoryEntry) -> JSONValue {
        func lineup(_ lineup: HistoryEntry.Lineup) -> JSONValue {
            ["name": .string(lineup.name),
             "players": .array(lineup.players.map { player in
                 var members: [String: JSONValue] = ["id": .int(player.id), "name": .string(player.name)]
                 if let memberId = player.memberId { members["memberId"] = .string(memberId) }
                 return .object(members)
             })]
        }
        var members: [String: JSONValue] = [
            "id": .string(entry.id),
            "endedAt": .int(Int(entry.endedAt)),
            "pitch": ["id": .int(entry.pitch.id), "name": .string(entry.pitch.name)],
            "teams": ["A": lineup(entry.teamA), "B": lineup(entry.teamB)],
            "score": json(entry.score),
            "winner": .string(entry.winner.rawValue),
            "goals": goals(entry.goals),
        ]
        if let match = entry.match { members["match"] = TournamentPresenter.json(match) }
        if let penalties = entry.penalties { members["penalties"] = json(penalties) }
        if let correctedAt = entry.correctedAt { members["correctedAt"] = .int(Int(correctedAt)) }
        if let correctedBy = entry.correctedBy { members["correctedBy"] = .string(correctedBy) }
        if let clubDate = entry.clubDate { members["clubDate"] = .string(clubDate) }
        return .object(members)
    }

    // MARK: - Parts of a pitch

    private static func json(_ pitch: Pitch, now: Int64, protocol wire: WireProtocol) -> JSONValue {
        ["id": .int(pitch.id), "name": .string(pitch.name),
         "gather": pitch.gather.map { json($0, now: now, protocol: wire) } ?? .null,
         "lastResult": pitch.lastResult.map(lastResult) ?? .null]
    }

    /// docs/PROTOCOL.md "Full time stays": what a page shows in place of the match until the
    /// next gather on that pitch.
    public static func lastResult(_ entry: HistoryEntry) -> JSONValue {
        func team(_ side: TeamSide) -> JSONValue {
            let lineup = entry[side]
            return ["name": .string(lineup.name), "score": .int(entry.score[side]),
                    "playerIds": .array(lineup.players.map { .int($0.id) }),
                    "colour": .string((lineup.colour ?? KitColour.defaultColour(for: side)).rawValue)]
        }
        var members: [String: JSONValue] = [
            "historyId": .string(entry.id),
            "endedAt": .int(Int(entry.endedAt)),
            "teams": ["A": team(.A), "B": team(.B)],
            "winner": .string(entry.winner.rawValue),
            "goals": goals(entry.goals),
        ]
        if let penalties = entry.penalties { members["penalties"] = json(penalties) }
        return .object(members)
    }

    private static func goals(_ goals: [HistoryEntry.Goal]) -> JSONValue {
        .array(goals.map { goal in
            ["team": .string(goal.team.rawValue), "playerId": optional(goal.playerId),
             "assistId": optional(goal.assistId), "matchMs": .int(goal.matchMs)]
        })
    }

    /// `match` only on a tournament match's gather.
    private static func json(_ gather: ActiveGather, now: Int64, protocol wire: WireProtocol) -> JSONValue {
        var members: [String: JSONValue] = [
            "id": .string(gather.id),
            "phase": .string(gather.phase.rawValue),
            "teams": ["A": json(gather.teamA, .A), "B": json(gather.teamB, .B)],
            "bench": .array(gather.bench.map(JSONValue.int)),
            "score": json(gather.score),
            "timer": json(gather.timer, now: now, protocol: wire),
            "events": .array(gather.events.map(json)),
        ]
        if let match = gather.match { members["match"] = TournamentPresenter.json(match) }
        if let clubDate = gather.clubDate { members["clubDate"] = .string(clubDate) }
        return .object(members)
    }

    /// `colour` only once an organiser picked one; pages paint Team A blue and Team B red without it.
    private static func json(_ team: Team, _ side: TeamSide) -> JSONValue {
        var members: [String: JSONValue] = ["name": .string(team.name), "players": .array(team.players.map(JSONValue.int))]
        if let colour = team.colour { members["colour"] = .string(colour.rawValue) }
        return .object(members)
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
        switch event.kind {
        case .goal:
            members["playerId"] = optional(event.playerId)
            members["assistId"] = optional(event.assistId)
            members["cancelled"] = .bool(event.cancelled == true)
        case .goalCancelled:
            if let cancels = event.cancels { members["cancels"] = .int(cancels) }
            if event.undone == true { members["undone"] = true }
        case .goalRestored:
            if let restores = event.restores { members["restores"] = .int(restores) }
        case .teamsBalanced:
            if let difference = event.difference { members["difference"] = .int(difference) }
        default:
            break
        }
        return .object(members)
    }

    private static func optional(_ id: Int?) -> JSONValue { id.map(JSONValue.int) ?? .null }
}
