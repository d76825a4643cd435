/// What happens to a tournament, as pure transitions the Coordinator calls inside its commands.
/// Each either throws a `Rejection` and changes nothing, or applies the change and settles the
/// derived parts (`settle(after:)`).
extension Tournament {
    /// Every match of the day with its places, and the tables before any match.
    public init(id: ID, name: String, teamNames: [String], groupCount: Int, settings: TournamentSettings) {
        let teams = teamNames.enumerated().map { TournamentTeam(id: $0.offset + 1, name: $0.element) }
        let groups = TournamentSchedule.groupTeams(teamCount: teams.count, groups: groupCount).enumerated().map {
            TournamentGroup(name: TournamentGroup.name(index: $0.offset), teams: $0.element)
        }
        let matches = TournamentSchedule.matches(teamCount: teams.count, groupCount: groupCount, settings: settings)
        self.init(id: id, name: name, rules: settings, teams: teams, groups: groups, matches: matches)
        settle(after: nil)
    }

    /// `startMatch`: both teams known and the match scheduled, else `wrong_phase`. Its kickoff is
    /// `now`, which becomes its `expectedAt` and moves the later matches on its pitch; with
    /// `startEarly` they may move before their planned times. (Whether the pitch is free and the
    /// rosters are not playing elsewhere is the venue's to check.)
    public mutating func startMatch(_ id: TournamentMatch.ID, at now: Int64, startEarly: Bool = false) throws {
        let index = try matchIndex(for: id)
        let match = matches[index]
        guard match.status == .scheduled else {
            throw Rejection(.wrongPhase, match.status == .live ? .matchUnderWay : .matchPlayed, ["match": .number(id)],
                            "Match \(id) is \(match.status == .live ? "already being played" : "already finished").")
        }
        guard match.home != nil, match.away != nil else {
            let (home, away) = (placeLabel(match, home: true), placeLabel(match, home: false))
            throw Rejection(.wrongPhase, .matchTeamsUnknown, ["match": .number(id), "home": .text(home), "away": .text(away)],
                            "Match \(id)'s teams are not known yet (\(home) v \(away)).")
        }
        var next = self
        next.matches[index].status = .live
        next.matches[index].expectedAt = now
        next.matches[index].startedEarly = startEarly ? true : nil
        next.settle(after: self, now: now)
        self = next
    }

    /// The match's gather ended (`endGather`): the result is recorded and everything that follows
    /// from it settles. A level knockout match needs `penalties` (0–99 each, not equal); penalties
    /// anywhere else are `invalid`.
    public mutating func finishMatch(_ id: TournamentMatch.ID, score: HomeAway, penalties: HomeAway?, endedAt: Int64,
                                     historyID: String) throws
    {
        let index = try matchIndex(for: id)
        guard matches[index].status == .live else { throw Self.notLive(id) }
        try Self.checkResult(matches[index], score: score, penalties: penalties)
        var next = self
        next.matches[index].status = .finished
        next.matches[index].score = score
        next.matches[index].penalties = penalties
        next.matches[index].endedAt = endedAt
        next.matches[index].historyId = historyID
        next.settle(after: self, now: endedAt)
        self = next
    }

    /// The match's gather was cancelled (`cancelGather`): the match is `scheduled` again.
    public mutating func cancelMatch(_ id: TournamentMatch.ID, at now: Int64? = nil) throws {
        let index = try matchIndex(for: id)
        guard matches[index].status == .live else { throw Self.notLive(id) }
        var next = self
        next.matches[index].status = .scheduled
        next.matches[index].startedEarly = nil
        next.settle(after: self, now: now)
        self = next
    }

    /// `correctResult`: a finished match's score (and, only for a level knockout score, its
    /// penalties) corrected. Tables and the bracket follow; refused `in_use` when it would change
    /// the home or away team of a match that is live or finished.
    public mutating func correctResult(_ id: TournamentMatch.ID, score: HomeAway, penalties: HomeAway?, at now: Int64? = nil) throws {
        let index = try matchIndex(for: id)
        guard matches[index].status == .finished else {
            throw Rejection(.wrongPhase, .matchNotFinished, ["match": .number(id)], "Match \(id) has no result to correct yet.")
        }
        try Self.checkResult(matches[index], score: score, penalties: penalties)
        var next = self
        next.matches[index].score = score
        next.matches[index].penalties = penalties
        next.settle(after: self, now: now)
        for match in next.matches where match.status != .scheduled {
            let before = self.match(match.id)!
            if before.home != match.home || before.away != match.away {
                throw Rejection(.inUse, match.status == .live ? .resultMovesLiveMatch : .resultMovesPlayedMatch,
                                ["match": .number(match.id)], "That result would change who plays in match \(match.id), which has "
                                    + (match.status == .live ? "already started" : "already been played") + ".")
            }
        }
        self = next
    }

    /// `setTournamentTeam`: any of a team's name, colour and roster. A player is on at most one
    /// team (`in_use`); `roster` holds the venue's player ids.
    public mutating func setTeam(_ id: TournamentTeam.ID, _ changes: TournamentTeamChanges, roster: Set<Player.ID>) throws {
        guard team(id) != nil else {
            throw Rejection(.notFound, .noSuchTeam, ["team": .number(id)], "There is no team \(id) in this tournament.")
        }
        var team = teams[id - 1]
        if let name = changes.name {
            let key = VisibleText.comparisonKey(name)
            if let other = teams.first(where: { $0.id != id && VisibleText.comparisonKey($0.name) == key }) {
                throw Rejection(.invalid, .teamNameTaken, ["team": .number(other.id), "name": .text(other.name)],
                                "Team \(other.id) is already called \(other.name); choose another name.")
            }
            team.name = name
        }
        if let colour = changes.colour { team.colour = colour }
        if let players = changes.players {
            if let unknown = players.first(where: { !roster.contains($0) }) {
                throw Rejection(.notFound, .noSuchPlayer, ["id": .number(unknown)], "There is no player with id \(unknown); they may have been removed.")
            }
            for player in players {
                if let other = teams.first(where: { $0.id != id && $0.players.contains(player) }) {
                    throw Rejection(.inUse, .playerOnOtherTeam, ["player": .number(player), "team": .text(other.name)],
                                    "Player \(player) is already on \(other.name).")
                }
            }
            team.players = players
        }
        teams[id - 1] = team
    }

    /// What a page shows for a place while its team is unknown: the team's name, else `A1`/`W5`/`L9`.
    public func placeLabel(_ match: TournamentMatch, home: Bool) -> String {
        if let id = home ? match.home : match.away, let team = team(id) { return team.name }
        return (home ? match.homeFrom : match.awayFrom)?.description ?? "?"
    }

    // MARK: - Checks

    private func matchIndex(for id: TournamentMatch.ID) throws -> Int {
        guard let index = matchIndex(id) else {
            throw Rejection(.notFound, .noSuchMatch, ["match": .number(id)], "There is no match \(id) in this tournament.")
        }
        return index
    }

    private static func notLive(_ id: TournamentMatch.ID) -> Rejection {
        Rejection(.wrongPhase, .matchNotLive, ["match": .number(id)], "Match \(id) is not being played.")
    }

    static func checkResult(_ match: TournamentMatch, score: HomeAway, penalties: HomeAway?) throws {
        guard Score.range.contains(score.home), Score.range.contains(score.away) else {
            throw Rejection(.invalid, .resultScoreRange, ["lowest": .number(Score.range.lowerBound), "highest": .number(Score.range.upperBound)],
                            "A score is a whole number from \(Score.range.lowerBound) to \(Score.range.upperBound).")
        }
        let needsPenalties = match.stage.isKnockout && score.home == score.away
        guard let penalties else {
            if needsPenalties {
                throw Rejection(.invalid, .penaltiesNeeded, ["match": .number(match.id)],
                                "Match \(match.id) is a knockout match and level: say how the penalties ended.")
            }
            return
        }
        guard needsPenalties else {
            throw Rejection(.invalid, match.stage.isKnockout ? .penaltiesNotLevel : .penaltiesGroupMatch, ["match": .number(match.id)],
                            match.stage.isKnockout ? "Match \(match.id) was not level, so it had no penalties."
                : "Match \(match.id) is a group match: a draw stands, with no penalties.")
        }
        guard TournamentSetup.penaltyRange.contains(penalties.home), TournamentSetup.penaltyRange.contains(penalties.away) else {
            let range = TournamentSetup.penaltyRange
            throw Rejection(.invalid, .penaltiesRange, ["lowest": .number(range.lowerBound), "highest": .number(range.upperBound)],
                            "Penalties are whole numbers from \(range.lowerBound) to \(range.upperBound).")
        }
        guard penalties.home != penalties.away else {
            throw Rejection(.invalid, .penaltiesEqual, "A penalty shoot-out has a winner: the two counts cannot be equal.")
        }
    }
}

/// `setTournamentTeam`'s fields; nil leaves a field as it is.
public struct TournamentTeamChanges: Equatable, Sendable {
    public var name: String?
    public var colour: KitColour?
    public var players: [Player.ID]?

    public init(name: String? = nil, colour: KitColour? = nil, players: [Player.ID]? = nil) {
        self.name = name
        self.colour = colour
        self.players = players
    }
}
