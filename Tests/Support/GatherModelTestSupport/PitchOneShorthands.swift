import GatherModel

/// Conveniences for tests written against the first release's one-pitch world. They live here,
/// not in the Model's public API, so production code always says which pitch it means.

// MARK: - Pitch 1's gather

extension GatherState {
    /// A venue of one pitch holding `gather`: the first release's whole world.
    public init(players: [Player] = [], gather: ActiveGather?, history: [HistoryEntry] = [],
                nextPlayerID: Player.ID = 1) {
        self.init(players: players, pitches: [Pitch(id: Pitch.firstID, name: "Pitch 1", gather: gather)],
                  history: history, nextPlayerID: nextPlayerID)
    }

    /// Pitch 1's gather, read and written in place.
    public var gather: ActiveGather? {
        get { pitch(Pitch.firstID)?.gather }
        set {
            guard let index = pitches.firstIndex(where: { $0.id == Pitch.firstID }) else { return }
            pitches[index].gather = newValue
        }
    }
}

// MARK: - Pitch 1's actions

/// Gather actions without a pitch mean pitch 1, as they do on the wire.
extension Action {
    public static func createGather(playerIDs: [Player.ID]) -> Action { .onPitch(Pitch.firstID, .createGather(playerIDs: playerIDs)) }
    public static func assign(_ id: Player.ID, to placement: Placement) -> Action { .onPitch(Pitch.firstID, .assign(id, to: placement)) }
    public static func renameTeam(_ side: TeamSide, name: String) -> Action { .onPitch(Pitch.firstID, .renameTeam(side, name: name)) }
    public static var startGather: Action { .onPitch(Pitch.firstID, .startGather) }
    public static func score(_ side: TeamSide, delta: Int, scorer: Player.ID? = nil, assist: Player.ID? = nil) -> Action {
        .onPitch(Pitch.firstID, .score(side, delta: delta, scorer: scorer, assist: assist))
    }
    public static func setTimer(minutes: Int, seconds: Int) -> Action { .onPitch(Pitch.firstID, .setTimer(minutes: minutes, seconds: seconds)) }
    public static var startTimer: Action { .onPitch(Pitch.firstID, .startTimer) }
    public static var pauseTimer: Action { .onPitch(Pitch.firstID, .pauseTimer) }
    public static var resetTimer: Action { .onPitch(Pitch.firstID, .resetTimer) }
    public static var endGather: Action { .onPitch(Pitch.firstID, .endGather) }
    public static var cancelGather: Action { .onPitch(Pitch.firstID, .cancelGather) }
}
