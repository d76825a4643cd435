/// A tournament day (docs/PROTOCOL.md "A tournament day"): fixed teams, a group stage, then a
/// knockout, all of it scheduled over the venue's pitches at creation. The value is pure: every
/// transition (`TournamentRules`) returns a new one with its derived parts — tables, the
/// knockout's known teams, winners, `expectedAt`, phase, champion — settled again, so what is
/// stored, sent and exported can never disagree with the results it was derived from.
public struct Tournament: Equatable, Sendable, Codable {
    public typealias ID = String

    public var id: ID
    public var name: String
    public var phase: TournamentPhase
    public var rules: TournamentSettings
    /// In the order given at creation, which is the seeding; ids 1…n.
    public var teams: [TournamentTeam]
    public var groups: [TournamentGroup]
    /// Sorted by id; ids follow the schedule (slot, then the pitch's place in `rules.pitches`).
    public var matches: [TournamentMatch]
    public var champion: TournamentTeam.ID?

    public init(id: ID, name: String, phase: TournamentPhase = .groups, rules: TournamentSettings,
                teams: [TournamentTeam], groups: [TournamentGroup], matches: [TournamentMatch],
                champion: TournamentTeam.ID? = nil) {
        self.id = id
        self.name = name
        self.phase = phase
        self.rules = rules
        self.teams = teams
        self.groups = groups
        self.matches = matches
        self.champion = champion
    }

    public func team(_ id: TournamentTeam.ID) -> TournamentTeam? {
        teams.indices.contains(id - 1) ? teams[id - 1] : nil
    }

    public func match(_ id: TournamentMatch.ID) -> TournamentMatch? {
        matches.indices.contains(id - 1) && matches[id - 1].id == id ? matches[id - 1] : matches.first { $0.id == id }
    }

    func matchIndex(_ id: TournamentMatch.ID) -> Int? {
        matches.indices.contains(id - 1) && matches[id - 1].id == id ? id - 1 : matches.firstIndex { $0.id == id }
    }

    /// The group a team plays in.
    public func group(of team: TournamentTeam.ID) -> TournamentGroup? {
        groups.first { $0.teams.contains(team) }
    }

    /// The match of this tournament being played in a gather right now on `pitch`, if any.
    public func liveMatch(on pitch: Pitch.ID) -> TournamentMatch? {
        matches.first { $0.pitch == pitch && $0.status == .live }
    }
}

public enum TournamentPhase: String, Sendable, Codable {
    case groups, knockout, finished
}

public enum TieBreak: String, CaseIterable, Sendable, Codable {
    /// Points, goal difference, goals for; then the matches between the teams level on points.
    case goalDifference
    /// Points; then the matches between the teams level on points; then goal difference, goals for.
    case headToHead
}

/// `rules` of the contract: what was chosen at creation. It never changes afterwards.
public struct TournamentSettings: Equatable, Sendable, Codable {
    public var matchMinutes: Int
    public var breakMinutes: Int
    public var startsAt: Int64
    /// The pitches played on, in the order matches are given to them within a slot.
    public var pitches: [Pitch.ID]
    public var pointsForWin: Int
    public var pointsForDraw: Int
    public var tieBreak: TieBreak
    public var advance: Int
    public var thirdPlace: Bool

    public init(matchMinutes: Int = 12, breakMinutes: Int = 3, startsAt: Int64, pitches: [Pitch.ID],
                pointsForWin: Int = 3, pointsForDraw: Int = 1, tieBreak: TieBreak = .goalDifference,
                advance: Int, thirdPlace: Bool = false) {
        self.matchMinutes = matchMinutes
        self.breakMinutes = breakMinutes
        self.startsAt = startsAt
        self.pitches = pitches
        self.pointsForWin = pointsForWin
        self.pointsForDraw = pointsForDraw
        self.tieBreak = tieBreak
        self.advance = advance
        self.thirdPlace = thirdPlace
    }

    public var matchMs: Int64 { Int64(matchMinutes) * 60_000 }
    public var breakMs: Int64 { Int64(breakMinutes) * 60_000 }
    /// Slot *k* starts at `startsAt + k × slotMs`.
    public var slotMs: Int64 { matchMs + breakMs }

    public func plannedAt(slot: Int) -> Int64 { startsAt + Int64(slot) * slotMs }
}

public struct TournamentTeam: Equatable, Sendable, Codable {
    public typealias ID = Int

    public var id: ID
    public var name: String
    /// Absent when not set: the gather then paints the side's default kit.
    public var colour: KitColour?
    /// Roster players on this team (a player is on at most one team of the tournament).
    public var players: [Player.ID]

    public init(id: ID, name: String, colour: KitColour? = nil, players: [Player.ID] = []) {
        self.id = id
        self.name = name
        self.colour = colour
        self.players = players
    }
}

public struct TournamentGroup: Equatable, Sendable, Codable {
    /// "A", "B", …
    public var name: String
    /// In seeding order.
    public var teams: [TournamentTeam.ID]
    /// The ranking, first to last; always complete, also before any match is played.
    public var table: [TableRow]

    public init(name: String, teams: [TournamentTeam.ID], table: [TableRow] = []) {
        self.name = name
        self.teams = teams
        self.table = table
    }

    /// "A" for group 0, "B" for 1, … (at most 16 groups, so one letter).
    public static func name(index: Int) -> String {
        String(UnicodeScalar(UInt8(ascii: "A") + UInt8(index)))
    }
}

/// One line of a group's table.
public struct TableRow: Equatable, Sendable, Codable {
    public var team: TournamentTeam.ID
    public var played = 0
    public var won = 0
    public var drawn = 0
    public var lost = 0
    public var goalsFor = 0
    public var goalsAgainst = 0
    public var points = 0
    /// Certain to go through: no result still to come can take the place away (`TournamentTable.certainty`).
    public var qualified = false
    /// Certain not to go through, whatever the results still to come.
    public var eliminated = false

    public init(team: TournamentTeam.ID, played: Int = 0, won: Int = 0, drawn: Int = 0, lost: Int = 0,
                goalsFor: Int = 0, goalsAgainst: Int = 0, points: Int = 0, qualified: Bool = false, eliminated: Bool = false) {
        self.team = team
        self.played = played
        self.won = won
        self.drawn = drawn
        self.lost = lost
        self.goalsFor = goalsFor
        self.goalsAgainst = goalsAgainst
        self.points = points
        self.qualified = qualified
        self.eliminated = eliminated
    }

    private enum CodingKeys: String, CodingKey {
        case team, played, won, drawn, lost, goalsFor, goalsAgainst, points, qualified, eliminated
    }

    /// Rows stored before `qualified` and `eliminated` existed read as neither (the next
    /// transition settles them).
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(team: try container.decode(Int.self, forKey: .team), played: try container.decode(Int.self, forKey: .played),
                  won: try container.decode(Int.self, forKey: .won), drawn: try container.decode(Int.self, forKey: .drawn),
                  lost: try container.decode(Int.self, forKey: .lost), goalsFor: try container.decode(Int.self, forKey: .goalsFor),
                  goalsAgainst: try container.decode(Int.self, forKey: .goalsAgainst),
                  points: try container.decode(Int.self, forKey: .points),
                  qualified: try container.decodeIfPresent(Bool.self, forKey: .qualified) ?? false,
                  eliminated: try container.decodeIfPresent(Bool.self, forKey: .eliminated) ?? false)
    }

    public var goalDifference: Int { goalsFor - goalsAgainst }
}
