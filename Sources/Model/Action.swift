/// A validated organiser action (`command.action` on the wire).
public enum Action: Equatable, Sendable {
    // MARK: Roster
    case addPlayer(PlayerChanges)
    case editPlayer(Player.ID, PlayerChanges)
    case removePlayer(Player.ID)

    // MARK: Gather
    case createGather(playerIDs: [Player.ID])
    case assign(Player.ID, to: Placement)
    case renameTeam(TeamSide, name: String)
    case startGather
    case score(TeamSide, delta: Int)
    case setTimer(minutes: Int, seconds: Int)
    case startTimer
    case pauseTimer
    case resetTimer
    case endGather
    case cancelGather

    public var kind: String {
        switch self {
        case .addPlayer: "addPlayer"
        case .editPlayer: "editPlayer"
        case .removePlayer: "removePlayer"
        case .createGather: "createGather"
        case .assign: "assign"
        case .renameTeam: "renameTeam"
        case .startGather: "startGather"
        case .score: "score"
        case .setTimer: "setTimer"
        case .startTimer: "startTimer"
        case .pauseTimer: "pauseTimer"
        case .resetTimer: "resetTimer"
        case .endGather: "endGather"
        case .cancelGather: "cancelGather"
        }
    }
}

/// What a change touches, for arbitration: two changes conflict only when their subjects meet.
public enum Subject: Hashable, Sendable, Codable, CustomStringConvertible {
    /// A player's details and their place in the line-up.
    case player(Player.ID)
    case score(TeamSide)
    case teamName(TeamSide)
    case timer
    /// The gather's existence and phase.
    case gather

    public var description: String {
        switch self {
        case .player(let id): "player:\(id)"
        case .score(let side): "score:\(side.rawValue)"
        case .teamName(let side): "teamName:\(side.rawValue)"
        case .timer: "timer"
        case .gather: "gather"
        }
    }

    public init?(description: String) {
        let parts = description.split(separator: ":", maxSplits: 1).map(String.init)
        switch (parts.first, parts.count == 2 ? parts[1] : nil) {
        case ("player", let id?): guard let id = Int(id) else { return nil }; self = .player(id)
        case ("score", let side?): guard let side = TeamSide(rawValue: side) else { return nil }; self = .score(side)
        case ("teamName", let side?): guard let side = TeamSide(rawValue: side) else { return nil }; self = .teamName(side)
        case ("timer", nil): self = .timer
        case ("gather", nil): self = .gather
        default: return nil
        }
    }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let subject = Subject(description: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "bad subject \(text)"))
        }
        self = subject
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// A phrase for conflict messages: "Ann changed Team A's score 12 s ago".
    public func phrase(in state: GatherState) -> String {
        switch self {
        case .player(let id):
            if let player = state.player(id) { return "\(player.name)'s details or place" }
            return "that player"
        case .score(let side): return "\(state.gather?[side].name ?? "Team \(side.rawValue)")'s score"
        case .teamName(let side): return "the name of Team \(side.rawValue)"
        case .timer: return "the timer"
        case .gather: return "the gather"
        }
    }
}

public enum RejectionCode: String, Sendable, Codable {
    case invalid
    case notFound = "not_found"
    case wrongPhase = "wrong_phase"
    case outOfRange = "out_of_range"
    case inUse = "in_use"
    case conflict
    case forbidden
    case rateLimited = "rate_limited"
}

/// Why an action was not applied, in words a person can act on.
public struct Rejection: Error, Equatable, Sendable, Codable {
    public let code: RejectionCode
    public let message: String

    public init(_ code: RejectionCode, _ message: String) {
        self.code = code
        self.message = message
    }
}
