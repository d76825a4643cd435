/// The two sides of a match.
public enum TeamSide: String, CaseIterable, Sendable, Codable {
    case A, B

    public var other: TeamSide { self == .A ? .B : .A }
}

/// Where `assign` puts a player.
public enum Placement: String, Sendable, Codable {
    case A, B, bench, out
}

public struct Team: Equatable, Sendable, Codable {
    public var name: String
    public var players: [Player.ID]
    /// nil: the side's default kit (Team A blue, Team B red). Absent in gathers stored before.
    public var colour: KitColour?

    public init(name: String, players: [Player.ID] = [], colour: KitColour? = nil) {
        self.name = name
        self.players = players
        self.colour = colour
    }
}

/// The eight kit colours an organiser can pick for a team; pages map each to a palette that
/// keeps text readable on it.
public enum KitColour: String, CaseIterable, Sendable, Codable {
    case blue, red, white, black, yellow, green, orange, purple

    public static func defaultColour(for side: TeamSide) -> KitColour { side == .A ? .blue : .red }
}

public enum Phase: String, Sendable, Codable {
    case setup, live
}

public struct Score: Equatable, Sendable, Codable {
    public static let range = 0...99

    public var A: Int
    public var B: Int

    public init(A: Int = 0, B: Int = 0) {
        self.A = A
        self.B = B
    }

    public subscript(side: TeamSide) -> Int {
        get { side == .A ? A : B }
        set { if side == .A { A = newValue } else { B = newValue } }
    }

    public var winner: Winner { A > B ? .A : (B > A ? .B : .draw) }
}

public enum Winner: String, Sendable, Codable {
    case A, B, draw
}

/// A pitch's active gather: its line-up, score, countdown and timeline.
public struct ActiveGather: Equatable, Sendable, Codable {
    /// Line-up and timeline limits, so one organiser cannot make every snapshot unbounded.
    public static let maximumPlayers = 60
    public static let maximumEvents = 500

    public var id: String
    public var phase: Phase
    public var teamA: Team
    public var teamB: Team
    public var bench: [Player.ID]
    public var score: Score
    public var timer: MatchTimer
    public var events: [GatherEvent]
    /// Set when the gather plays a tournament match (`startMatch`); nil for every other gather.
    public var match: TournamentMatchLink?
    /// The club date (the club's string id) whose list made this gather (`selectFromClubDate`);
    /// its history entry carries it back to the club.
    public var clubDate: String?

    public init(id: String, phase: Phase = .setup, teamA: Team = Team(name: "Team A"),
                teamB: Team = Team(name: "Team B"), bench: [Player.ID], score: Score = Score(),
                timer: MatchTimer = MatchTimer(), events: [GatherEvent] = []) {
        self.id = id
        self.phase = phase
        self.teamA = teamA
        self.teamB = teamB
        self.bench = bench
        self.score = score
        self.timer = timer
        self.events = events
    }

    public subscript(side: TeamSide) -> Team {
        get { side == .A ? teamA : teamB }
        set { if side == .A { teamA = newValue } else { teamB = newValue } }
    }

    /// Everyone in the gather, in line-up order: Team A, Team B, then the bench.
    public var memberIDs: [Player.ID] { teamA.players + teamB.players + bench }

    public func contains(_ playerID: Player.ID) -> Bool { memberIDs.contains(playerID) }

    /// Takes the player out of whichever list holds them.
    mutating func remove(_ playerID: Player.ID) {
        teamA.players.removeAll { $0 == playerID }
        teamB.players.removeAll { $0 == playerID }
        bench.removeAll { $0 == playerID }
    }

    /// Appends an event with the next `seq` and returns it. The caller checks `hasRoomForEvents`
    /// first for organisers' actions; the server's own `fullTime` is never refused.
    @discardableResult
    mutating func record(_ event: GatherEvent) -> Int {
        var event = event
        event.seq = (events.last?.seq ?? 0) + 1
        events.append(event)
        return event.seq
    }

    var hasRoomForEvents: Bool { events.count < Self.maximumEvents }

    public func event(seq: Int) -> GatherEvent? {
        events.first { $0.seq == seq }
    }

    /// The goals that still count, in order.
    public var standingGoals: [GatherEvent] {
        events.filter { $0.kind == .goal && $0.cancelled != true }
    }
}

/// One line of the gather's timeline.
public struct GatherEvent: Equatable, Sendable, Codable {
    public enum Kind: String, Sendable, Codable {
        case goal, goalCancelled, goalRestored, kickoff, timerSet, timerStarted, timerPaused, timerReset, fullTime, teamsBalanced
    }

    public var seq: Int
    public var kind: Kind
    public var team: TeamSide?
    public var at: Int64
    public var matchMs: Int?
    public var by: String?
    /// A goal's scorer and assist (nil: not named).
    public var playerId: Player.ID?
    public var assistId: Player.ID?
    /// A goal that a later `goalCancelled` took back.
    public var cancelled: Bool?
    /// On `goalCancelled`: the `seq` of the goal it cancels.
    public var cancels: Int?
    /// On `goalCancelled`: a later `restoreGoal` undid it.
    public var undone: Bool?
    /// On `goalRestored`: the `seq` of the goal it restores.
    public var restores: Int?
    /// On `teamsBalanced`: the smallest difference between the teams' rating sums.
    public var difference: Int?

    public init(seq: Int, kind: Kind, team: TeamSide? = nil, at: Int64, matchMs: Int? = nil, by: String? = nil,
                playerId: Player.ID? = nil, assistId: Player.ID? = nil, cancelled: Bool? = nil, cancels: Int? = nil,
                difference: Int? = nil, undone: Bool? = nil, restores: Int? = nil) {
        self.seq = seq
        self.kind = kind
        self.team = team
        self.at = at
        self.matchMs = matchMs
        self.by = by
        self.playerId = playerId
        self.assistId = assistId
        self.cancelled = cancelled
        self.cancels = cancels
        self.difference = difference
        self.undone = undone
        self.restores = restores
    }

    /// A goal as it is recorded at +1: nobody named yet, not cancelled.
    public static func goal(seq: Int = 0, team: TeamSide, at: Int64, matchMs: Int, by: String?,
                            playerId: Player.ID? = nil, assistId: Player.ID? = nil) -> GatherEvent {
        GatherEvent(seq: seq, kind: .goal, team: team, at: at, matchMs: matchMs, by: by, playerId: playerId,
                    assistId: assistId, cancelled: false)
    }
}

/// A finished gather as history keeps it: names are copied so that a later rename or removal
/// of a player does not rewrite old results.
public struct HistoryEntry: Equatable, Sendable, Codable {
    public struct Lineup: Equatable, Sendable, Codable {
        public var name: String
        public var players: [PlayerName]
        /// The kit colour the team wore, when an organiser picked one.
        public var colour: KitColour?

        public init(name: String, players: [PlayerName], colour: KitColour? = nil) {
            self.name = name
            self.players = players
            self.colour = colour
        }
    }

    public struct PlayerName: Equatable, Sendable, Codable {
        public var id: Player.ID
        public var name: String
        /// The club member the player was linked to when the gather ended, if any.
        public var memberId: String?

        public init(id: Player.ID, name: String, memberId: String? = nil) {
            self.id = id
            self.name = name
            self.memberId = memberId
        }
    }

    /// A goal that counted, as history keeps it.
    public struct Goal: Equatable, Sendable, Codable {
        public var team: TeamSide
        public var playerId: Player.ID?
        public var assistId: Player.ID?
        public var matchMs: Int

        public init(team: TeamSide, playerId: Player.ID?, assistId: Player.ID?, matchMs: Int) {
            self.team = team
            self.playerId = playerId
            self.assistId = assistId
            self.matchMs = matchMs
        }
    }

    public var id: String
    public var endedAt: Int64
    public var pitch: PitchReference
    public var teamA: Lineup
    public var teamB: Lineup
    public var score: Score
    public var winner: Winner
    public var goals: [Goal]
    /// The tournament match it was, when it was one.
    public var match: TournamentMatchLink?
    /// The shoot-out that decided a level knockout match (Team A is home); `winner` is then its
    /// winner, never `draw`.
    public var penalties: Score?
    /// When a `correctResult` last changed this entry's result, and the organiser who did it.
    public var correctedAt: Int64?
    public var correctedBy: String?
    /// The club date the gather was made from (`ActiveGather.clubDate`), so the club can mark attendance.
    public var clubDate: String?

    public init(id: String, endedAt: Int64, pitch: PitchReference = .first, teamA: Lineup, teamB: Lineup,
                score: Score, goals: [Goal] = []) {
        self.id = id
        self.endedAt = endedAt
        self.pitch = pitch
        self.teamA = teamA
        self.teamB = teamB
        self.score = score
        self.winner = score.winner
        self.goals = goals
    }

    public subscript(side: TeamSide) -> Lineup { side == .A ? teamA : teamB }

    private enum CodingKeys: String, CodingKey {
        case id, endedAt, pitch, teamA, teamB, score, winner, goals, match, penalties, correctedAt, correctedBy, clubDate
    }

    /// Entries stored by the first release have no pitch and no goals: they were played on the
    /// one pitch there was, and their scorers were never known.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        endedAt = try container.decode(Int64.self, forKey: .endedAt)
        pitch = try container.decodeIfPresent(PitchReference.self, forKey: .pitch) ?? .first
        teamA = try container.decode(Lineup.self, forKey: .teamA)
        teamB = try container.decode(Lineup.self, forKey: .teamB)
        score = try container.decode(Score.self, forKey: .score)
        winner = try container.decode(Winner.self, forKey: .winner)
        goals = try container.decodeIfPresent([Goal].self, forKey: .goals) ?? []
        match = try container.decodeIfPresent(TournamentMatchLink.self, forKey: .match)
        penalties = try container.decodeIfPresent(Score.self, forKey: .penalties)
        correctedAt = try container.decodeIfPresent(Int64.self, forKey: .correctedAt)
        correctedBy = try container.decodeIfPresent(String.self, forKey: .correctedBy)
        clubDate = try container.decodeIfPresent(String.self, forKey: .clubDate)
    }
}
