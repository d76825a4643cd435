/// Every kind of change, in one list: `Action.kind` returns one, the decoder switches over them,
/// the journal stores their raw values, and a test holds docs/PROTOCOL.md's action tables to them,
/// so a new action cannot be added to one place and forgotten in another.
public enum ActionKind: String, CaseIterable, Sendable, Codable {
    // MARK: Roster
    case addPlayer, editPlayer, removePlayer
    // MARK: Pitches
    case addPitch, renamePitch, removePitch
    // MARK: A pitch's gather
    case createGather, assign, renameTeam, startGather, score, setScorer, cancelGoal, restoreGoal, setTeamColour
    case balanceTeams, selectFromClubDate
    case setTimer, startTimer, pauseTimer, resetTimer, endGather, cancelGather
    // MARK: A tournament
    case createTournament, setTournamentTeam, startMatch, correctResult, cancelTournament, moveMatches
    // MARK: The server's own
    /// A countdown ran out: the server's change, journalled like a command but never sent by one.
    case timerExpired

    /// The kinds an organiser may send in `command.action`.
    public static var commands: [ActionKind] { allCases.filter { $0 != .timerExpired } }

    /// Pitch actions name their pitch; gather actions default to pitch 1.
    public var isGatherAction: Bool {
        switch self {
        case .addPlayer, .editPlayer, .removePlayer, .addPitch, .renamePitch, .removePitch, .timerExpired: false
        case .createTournament, .setTournamentTeam, .startMatch, .correctResult, .cancelTournament, .moveMatches: false
        default: true
        }
    }
}
