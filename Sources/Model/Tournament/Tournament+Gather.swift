/// How a tournament match meets the venue's gathers: the gather `startMatch` puts on the pitch,
/// and the result an ended gather gives back. Team A is always the home team.
extension Tournament {
    /// The gather for `match` (docs/PROTOCOL.md "startMatch"): already `live` (no setup), Team A
    /// the home team with its name, colour and roster, Team B the away team, the timer set to
    /// `matchMinutes` and stopped, and `match` linking it back. Nil while a team is unknown.
    public func gather(for matchID: TournamentMatch.ID, id: String, at now: Int64, by organiser: String?) -> ActiveGather? {
        guard let match = match(matchID), let home = match.home.flatMap(team), let away = match.away.flatMap(team) else {
            return nil
        }
        var gather = ActiveGather(id: id, phase: .live,
                                  teamA: Team(name: home.name, players: home.players, colour: home.colour),
                                  teamB: Team(name: away.name, players: away.players, colour: away.colour), bench: [],
                                  timer: MatchTimer(status: .stopped, durationSeconds: rules.matchMinutes * 60))
        gather.match = TournamentMatchLink(tournament: self.id, match: matchID)
        gather.record(GatherEvent(seq: 0, kind: .kickoff, at: now, by: organiser))
        return gather
    }

    /// The roster players of a match's two teams, for the venue to check none of them is playing
    /// on another pitch.
    public func players(of matchID: TournamentMatch.ID) -> [Player.ID] {
        guard let match = match(matchID) else { return [] }
        return [match.home, match.away].compactMap { $0.flatMap(team)?.players }.flatMap { $0 }
    }
}

extension HomeAway {
    /// A gather's score (or `endGather`'s `penalties`, `{"A", "B"}`) seen from the home side: Team A is home.
    public init(_ score: Score) {
        self.init(home: score.A, away: score.B)
    }
}
