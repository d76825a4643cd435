/// Everything the server shares: the roster, the active gather and recent results.
public struct GatherState: Equatable, Sendable, Codable {
    /// How many finished gathers the live state carries; the Store keeps all of them.
    public static let recentHistoryLimit = 20

    /// Sorted by id.
    public var players: [Player]
    public var gather: ActiveGather?
    /// Newest first, at most `recentHistoryLimit`.
    public var history: [HistoryEntry]
    /// Ids are never reused, so this only grows.
    public var nextPlayerID: Player.ID

    public init(players: [Player] = [], gather: ActiveGather? = nil, history: [HistoryEntry] = [],
                nextPlayerID: Player.ID = 1) {
        self.players = players
        self.gather = gather
        self.history = history
        self.nextPlayerID = nextPlayerID
    }

    public func player(_ id: Player.ID) -> Player? {
        players.first { $0.id == id }
    }

    func playerIndex(_ id: Player.ID) -> Int? {
        players.firstIndex { $0.id == id }
    }
}
