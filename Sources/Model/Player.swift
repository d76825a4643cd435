/// A roster player, as in the Football Gather app, with the record the finished gathers left.
public struct Player: Equatable, Sendable, Codable {
    public typealias ID = Int

    public let id: ID
    public var name: String
    public var age: Int?
    public var skill: Skill?
    public var position: Position?
    public var favouriteTeam: String?
    /// Starts from the skill (`Elo.initialRating`) and moves after every finished gather.
    public var rating: Int
    public var stats: PlayerStats
    /// The club member this player is (the club's string id), linked once by `selectFromClubDate`
    /// and kept across renames, so next Sunday's list finds the same player.
    public var memberId: String?

    public init(id: ID, name: String, age: Int? = nil, skill: Skill? = nil, position: Position? = nil,
                favouriteTeam: String? = nil, rating: Int? = nil, stats: PlayerStats = .zero, memberId: String? = nil) {
        self.id = id
        self.name = name
        self.age = age
        self.skill = skill
        self.position = position
        self.favouriteTeam = favouriteTeam
        self.rating = rating ?? Elo.initialRating(for: skill)
        self.stats = stats
        self.memberId = memberId
    }

    /// Until a player has played, the skill an organiser sets is the best guess of their level.
    public var ratingFollowsSkill: Bool { stats.games == 0 }
}

public enum Skill: String, CaseIterable, Sendable, Codable {
    case beginner, amateur, professional
}

public enum Position: String, CaseIterable, Sendable, Codable {
    case goalkeeper, defender, midfielder, winger, striker
}

/// One field of an `editPlayer`: absent keeps the value, `null` clears an optional one.
public enum FieldChange<Value: Equatable & Sendable>: Equatable, Sendable {
    case keep
    case set(Value)
    case clear

    func applied(to current: Value?) -> Value? {
        switch self {
        case .keep: return current
        case .set(let value): return value
        case .clear: return nil
        }
    }
}

/// The validated fields of `addPlayer` and `editPlayer`.
public struct PlayerChanges: Equatable, Sendable {
    public var name: String?
    public var age: FieldChange<Int> = .keep
    public var skill: FieldChange<Skill> = .keep
    public var position: FieldChange<Position> = .keep
    public var favouriteTeam: FieldChange<String> = .keep

    public init(name: String? = nil, age: FieldChange<Int> = .keep, skill: FieldChange<Skill> = .keep,
                position: FieldChange<Position> = .keep, favouriteTeam: FieldChange<String> = .keep) {
        self.name = name
        self.age = age
        self.skill = skill
        self.position = position
        self.favouriteTeam = favouriteTeam
    }

    var isEmpty: Bool {
        name == nil && age == .keep && skill == .keep && position == .keep && favouriteTeam == .keep
    }

    func applied(to player: Player) -> Player {
        var updated = player
        if let name { updated.name = name }
        updated.age = age.applied(to: player.age)
        updated.skill = skill.applied(to: player.skill)
        updated.position = position.applied(to: player.position)
        updated.favouriteTeam = favouriteTeam.applied(to: player.favouriteTeam)
        if player.ratingFollowsSkill { updated.rating = Elo.initialRating(for: updated.skill) }
        return updated
    }
}
