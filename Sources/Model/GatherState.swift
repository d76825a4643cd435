/// Everything the server shares: the roster, the venue's pitches with their gathers, and recent
/// results.
public struct GatherState: Equatable, Sendable, Codable {
    /// How many finished gathers the live state carries; the Store keeps all of them.
    public static let recentHistoryLimit = 20
    /// The roster's size limit: a venue's regulars, with room to spare.
    public static let maximumPlayers = 200

    /// Sorted by id.
    public var players: [Player]
    /// Sorted by id; pitch 1 is always there.
    public var pitches: [Pitch]
    /// Newest first, at most `recentHistoryLimit`.
    public var history: [HistoryEntry]
    /// Ids are never reused, so these only grow.
    public var nextPlayerID: Player.ID
    public var nextPitchID: Pitch.ID
    /// The tournament of the day, if one was created: kept (also once finished) until the next
    /// `createTournament` or `cancelTournament`.
    public var tournament: Tournament?
    /// The club's verified lists the venue holds (docs/PROTOCOL.md §21), newest `seq` of each date,
    /// ordered by start: what `selectFromClubDate` reads. Kept by the Store in its own table.
    public var clubDates: [ClubDateList] = []

    public init(players: [Player] = [], pitches: [Pitch] = [Pitch(id: Pitch.firstID, name: "Pitch 1")],
                history: [HistoryEntry] = [], nextPlayerID: Player.ID = 1, nextPitchID: Pitch.ID = 2,
                tournament: Tournament? = nil) {
        self.players = players
        self.pitches = pitches
        self.history = history
        self.nextPlayerID = nextPlayerID
        self.nextPitchID = nextPitchID
        self.tournament = tournament
    }

    public func player(_ id: Player.ID) -> Player? {
        players.first { $0.id == id }
    }

    public func clubDate(_ id: String) -> ClubDateList? {
        clubDates.first { $0.date == id }
    }

    public func pitch(_ id: Pitch.ID) -> Pitch? {
        pitches.first { $0.id == id }
    }

    /// The pitch whose active gather holds the player, if any.
    public func pitch(playing playerID: Player.ID) -> Pitch? {
        pitches.first { $0.gather?.contains(playerID) == true }
    }

    func playerIndex(_ id: Player.ID) -> Int? {
        players.firstIndex { $0.id == id }
    }

    func pitchIndex(_ id: Pitch.ID) -> Int? {
        pitches.firstIndex { $0.id == id }
    }
}
