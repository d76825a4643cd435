/// A player's record over finished gathers (docs/PROTOCOL.md "Players' records"), as `stats` on the
/// wire.
public struct PlayerStats: Equatable, Sendable, Codable {
    public static let zero = PlayerStats()

    public var games: Int
    public var wins: Int
    public var draws: Int
    public var losses: Int
    public var goals: Int
    public var assists: Int

    public init(games: Int = 0, wins: Int = 0, draws: Int = 0, losses: Int = 0, goals: Int = 0,
                assists: Int = 0) {
        self.games = games
        self.wins = wins
        self.draws = draws
        self.losses = losses
        self.goals = goals
        self.assists = assists
    }

    /// A record with one more gather's increment on top.
    public static func + (lhs: PlayerStats, rhs: PlayerStats) -> PlayerStats {
        PlayerStats(games: lhs.games + rhs.games, wins: lhs.wins + rhs.wins, draws: lhs.draws + rhs.draws,
                    losses: lhs.losses + rhs.losses, goals: lhs.goals + rhs.goals,
                    assists: lhs.assists + rhs.assists)
    }

    public static func += (lhs: inout PlayerStats, rhs: PlayerStats) { lhs = lhs + rhs }

    /// A record with one gather's increment taken back (a corrected result), never below zero.
    public static func - (lhs: PlayerStats, rhs: PlayerStats) -> PlayerStats {
        PlayerStats(games: max(0, lhs.games - rhs.games), wins: max(0, lhs.wins - rhs.wins),
                    draws: max(0, lhs.draws - rhs.draws), losses: max(0, lhs.losses - rhs.losses),
                    goals: max(0, lhs.goals - rhs.goals), assists: max(0, lhs.assists - rhs.assists))
    }
}

/// One goal of a finished gather that was not cancelled, as in `history[].goals`.
public struct GoalCredit: Equatable, Sendable {
    public var team: TeamSide
    public var playerId: Player.ID?
    public var assistId: Player.ID?

    public init(team: TeamSide, playerId: Player.ID? = nil, assistId: Player.ID? = nil) {
        self.team = team
        self.playerId = playerId
        self.assistId = assistId
    }
}

/// What one finished gather changes for one player.
public struct PlayerMatchResult: Equatable, Sendable {
    public var ratingDelta: Int
    public var stats: PlayerStats

    public init(ratingDelta: Int, stats: PlayerStats) {
        self.ratingDelta = ratingDelta
        self.stats = stats
    }
}

/// The records a finished gather leaves behind, kept pure so the same history always rebuilds
/// the same ratings and stats.
public enum MatchRecord {
    /// Every player on Team A or Team B at the end, with the rating change and the stats to add.
    ///
    /// - The bench and the players out do not appear: they did not play when it counted.
    /// - Goals and assists go to whoever is named and on a team at the end, whatever the goal's
    ///   `team`: a player moved across during the gather keeps what they scored before.
    /// - `ratings` are those BEFORE this gather; a player missing from it counts at the start
    ///   rating of a player with no skill.
    /// - An empty team leaves every rating as it was, but the other team's games still count.
    public static func result(teamA: [Player.ID], teamB: [Player.ID], winner: Winner, ratings: [Player.ID: Int],
                              goals: [GoalCredit]) -> [Player.ID: PlayerMatchResult] {
        let defaultRating = Elo.initialRating(for: nil)
        let ratingsA = teamA.map { ratings[$0] ?? defaultRating }
        let ratingsB = teamB.map { ratings[$0] ?? defaultRating }

        var results: [Player.ID: PlayerMatchResult] = [:]
        for (side, players) in [(TeamSide.A, teamA), (.B, teamB)] {
            let outcome = outcome(of: side, winner: winner)
            let delta = side == .A
                ? Elo.teamDelta(us: ratingsA, them: ratingsB, outcome: outcome)
                : Elo.teamDelta(us: ratingsB, them: ratingsA, outcome: outcome)
            for id in players {
                results[id] = PlayerMatchResult(ratingDelta: delta, stats: gameStats(for: outcome))
            }
        }
        for goal in goals {
            if let scorer = goal.playerId { results[scorer]?.stats.goals += 1 }
            if let assistant = goal.assistId { results[assistant]?.stats.assists += 1 }
        }
        return results
    }

    // MARK: - Private

    private static func outcome(of side: TeamSide, winner: Winner) -> MatchOutcome {
        switch winner {
        case .draw: return .draw
        case .A: return side == .A ? .win : .loss
        case .B: return side == .B ? .win : .loss
        }
    }

    private static func gameStats(for outcome: MatchOutcome) -> PlayerStats {
        switch outcome {
        case .win: return PlayerStats(games: 1, wins: 1)
        case .draw: return PlayerStats(games: 1, draws: 1)
        case .loss: return PlayerStats(games: 1, losses: 1)
        }
    }
}
