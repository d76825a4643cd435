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

    public init(name: String, players: [Player.ID] = []) {
        self.name = name
        self.players = players
    }
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

/// The one active gather: its line-up, score, countdown and timeline.
public struct ActiveGather: Equatable, Sendable, Codable {
    public var id: String
    public var phase: Phase
    public var teamA: Team
    public var teamB: Team
    public var bench: [Player.ID]
    public var score: Score
    public var timer: MatchTimer
    public var events: [GatherEvent]

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

    mutating func record(_ kind: GatherEvent.Kind, team: TeamSide? = nil, at: Int64, matchMs: Int? = nil,
                         by: String?) {
        let seq = (events.last?.seq ?? 0) + 1
        events.append(GatherEvent(seq: seq, kind: kind, team: team, at: at, matchMs: matchMs, by: by))
    }
}

/// One line of the gather's timeline.
public struct GatherEvent: Equatable, Sendable, Codable {
    public enum Kind: String, Sendable, Codable {
        case goal, goalCancelled, kickoff, timerSet, timerStarted, timerPaused, timerReset, fullTime
    }

    public var seq: Int
    public var kind: Kind
    public var team: TeamSide?
    public var at: Int64
    public var matchMs: Int?
    public var by: String?

    public init(seq: Int, kind: Kind, team: TeamSide? = nil, at: Int64, matchMs: Int? = nil, by: String? = nil) {
        self.seq = seq
        self.kind = kind
        self.team = team
        self.at = at
        self.matchMs = matchMs
        self.by = by
    }
}

/// A finished gather as history keeps it: names are copied so that a later rename or removal
/// of a player does not rewrite old results.
public struct HistoryEntry: Equatable, Sendable, Codable {
    public struct Lineup: Equatable, Sendable, Codable {
        public var name: String
        public var players: [PlayerName]

        public init(name: String, players: [PlayerName]) {
            self.name = name
            self.players = players
        }
    }

    public struct PlayerName: Equatable, Sendable, Codable {
        public var id: Player.ID
        public var name: String

        public init(id: Player.ID, name: String) {
            self.id = id
            self.name = name
        }
    }

    public var id: String
    public var endedAt: Int64
    public var teamA: Lineup
    public var teamB: Lineup
    public var score: Score
    public var winner: Winner

    public init(id: String, endedAt: Int64, teamA: Lineup, teamB: Lineup, score: Score) {
        self.id = id
        self.endedAt = endedAt
        self.teamA = teamA
        self.teamB = teamB
        self.score = score
        self.winner = score.winner
    }
}
