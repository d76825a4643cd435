// One match of a tournament and what it is made of: its stage, the places it fills from, its
// score seen from the home side, and the link its gather carries.

public enum TournamentStage: String, CaseIterable, Sendable, Codable {
    case group, roundOf32, roundOf16, quarterFinal, semiFinal, thirdPlace, final

    /// The knockout round that has `matches` matches (1: the final).
    static func knockoutRound(matches: Int) -> TournamentStage {
        switch matches {
        case 16: .roundOf32
        case 8: .roundOf16
        case 4: .quarterFinal
        case 2: .semiFinal
        default: .final
        }
    }

    public var isKnockout: Bool { self != .group }
}

public enum TournamentMatchStatus: String, Sendable, Codable {
    case scheduled, live, finished
}

/// A score from the home side's point of view (`score` and `penalties` of a match).
public struct HomeAway: Equatable, Sendable, Codable {
    public var home: Int
    public var away: Int

    public init(home: Int, away: Int) {
        self.home = home
        self.away = away
    }
}

/// Where a knockout place comes from: `A1` (group A's first), `W5` (the winner of match 5),
/// `L9` (the loser of match 9).
public enum PlaceSource: Equatable, Hashable, Sendable, Codable, CustomStringConvertible {
    case group(String, rank: Int)
    case winner(TournamentMatch.ID)
    case loser(TournamentMatch.ID)

    public var description: String {
        switch self {
        case .group(let name, let rank): "\(name)\(rank)"
        case .winner(let match): "W\(match)"
        case .loser(let match): "L\(match)"
        }
    }

    /// Reads the label back (`A1`, `W5`, `L9`); nil for anything else.
    public init?(label: String) {
        guard let first = label.first, let number = Int(label.dropFirst()), number >= 1 else { return nil }
        switch first {
        case "W": self = .winner(number)
        case "L": self = .loser(number)
        case "A"..."P": self = .group(String(first), rank: number)
        default: return nil
        }
    }

    public init(from decoder: Decoder) throws {
        let label = try decoder.singleValueContainer().decode(String.self)
        guard let source = PlaceSource(label: label) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "Unknown knockout place \(label)"))
        }
        self = source
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

public struct TournamentMatch: Equatable, Sendable, Codable {
    public typealias ID = Int

    public var id: ID
    public var stage: TournamentStage
    /// The group's name for a group match.
    public var group: String?
    public var home: TournamentTeam.ID?
    public var away: TournamentTeam.ID?
    public var homeFrom: PlaceSource?
    public var awayFrom: PlaceSource?
    public var pitch: Pitch.ID
    /// The slot of the schedule, from 0; `plannedAt` is its start.
    public var slot: Int
    public var plannedAt: Int64
    /// When it will really start (scheduled), or its kickoff (live, finished).
    public var expectedAt: Int64
    public var status: TournamentMatchStatus
    public var score: HomeAway?
    public var penalties: HomeAway?
    public var winner: TournamentTeam.ID?
    public var historyId: String?
    /// When its gather ended (finished only): the next match on its pitch can start a break later.
    public var endedAt: Int64?
    /// Goes up each time `expectedAt`, `home` or `away` changes: the calendar feed's `SEQUENCE`,
    /// kept with the match so it is the same after a restart.
    public var revision: Int
    /// Started with `startEarly` (the server's own, not sent): the day runs early on its pitch, so
    /// the matches after it there may be expected before their planned times. Nil: not.
    public var startedEarly: Bool?

    public init(id: ID, stage: TournamentStage, group: String? = nil, home: TournamentTeam.ID? = nil,
                away: TournamentTeam.ID? = nil, homeFrom: PlaceSource? = nil, awayFrom: PlaceSource? = nil,
                pitch: Pitch.ID, slot: Int, plannedAt: Int64, expectedAt: Int64? = nil,
                status: TournamentMatchStatus = .scheduled, score: HomeAway? = nil, penalties: HomeAway? = nil,
                winner: TournamentTeam.ID? = nil, historyId: String? = nil, endedAt: Int64? = nil, revision: Int = 0) {
        self.id = id
        self.stage = stage
        self.group = group
        self.home = home
        self.away = away
        self.homeFrom = homeFrom
        self.awayFrom = awayFrom
        self.pitch = pitch
        self.slot = slot
        self.plannedAt = plannedAt
        self.expectedAt = expectedAt ?? plannedAt
        self.status = status
        self.score = score
        self.penalties = penalties
        self.winner = winner
        self.historyId = historyId
        self.endedAt = endedAt
        self.revision = revision
    }

    /// The loser of a finished knockout match (nil for a group match or one not finished).
    public var loser: TournamentTeam.ID? {
        guard stage.isKnockout, status == .finished, let winner, let home, let away else { return nil }
        return winner == home ? away : home
    }

    public func involves(_ team: TournamentTeam.ID) -> Bool { home == team || away == team }
}

/// The link a tournament match's gather (and its history entry) carries: `"match": {"tournament", "match"}`.
public struct TournamentMatchLink: Equatable, Hashable, Sendable, Codable {
    public var tournament: Tournament.ID
    public var match: TournamentMatch.ID

    public init(tournament: Tournament.ID, match: TournamentMatch.ID) {
        self.tournament = tournament
        self.match = match
    }
}
