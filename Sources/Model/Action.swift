/// A validated organiser action (`command.action` on the wire).
public enum Action: Equatable, Sendable {
    // MARK: Roster
    case addPlayer(PlayerChanges)
    case editPlayer(Player.ID, PlayerChanges)
    case removePlayer(Player.ID)

    // MARK: Pitches
    case addPitch(name: String)
    case renamePitch(Pitch.ID, name: String)
    case removePitch(Pitch.ID)

    // MARK: A pitch's gather
    case onPitch(Pitch.ID, GatherAction)

    // MARK: The tournament
    case tournament(TournamentAction)

    public var kind: ActionKind {
        switch self {
        case .addPlayer: .addPlayer
        case .editPlayer: .editPlayer
        case .removePlayer: .removePlayer
        case .addPitch: .addPitch
        case .renamePitch: .renamePitch
        case .removePitch: .removePitch
        case .onPitch(_, let action): action.kind
        case .tournament(let action): action.kind
        }
    }
}

/// What organisers do to the day's tournament (docs/PROTOCOL.md "A tournament day"). The
/// Coordinator's tournament scope applies them: they need the venue (its pitches, its gathers).
public enum TournamentAction: Equatable, Sendable {
    /// `createTournament`'s fields, read by `TournamentSetup.draft` against the venue's pitches and
    /// clock when applied (only then are both known).
    case create(JSONValue)
    case setTeam(TournamentTeam.ID, TournamentTeamChanges)
    /// `startEarly`: the organiser lets the day run early (the pitch's next matches may be
    /// expected before their planned times).
    case startMatch(TournamentMatch.ID, startEarly: Bool = false)
    case correctResult(TournamentMatch.ID, score: HomeAway, penalties: HomeAway?)
    case cancel
    /// `moveMatches`: every unplayed match of pitch `from` goes to pitch `to`.
    case moveMatches(from: Pitch.ID, to: Pitch.ID)

    public var kind: ActionKind {
        switch self {
        case .create: .createTournament
        case .setTeam: .setTournamentTeam
        case .startMatch: .startMatch
        case .correctResult: .correctResult
        case .cancel: .cancelTournament
        case .moveMatches: .moveMatches
        }
    }
}

/// What organisers do to one pitch's gather.
public enum GatherAction: Equatable, Sendable {
    case createGather(playerIDs: [Player.ID])
    /// A gather of a club date's confirmed members and their guests (docs/PROTOCOL.md §21).
    case selectFromClubDate(date: String)
    case assign(Player.ID, to: Placement)
    case renameTeam(TeamSide, name: String)
    case startGather
    /// +1 may name the scorer and the assist; −1 cancels the team's latest goal still standing.
    case score(TeamSide, delta: Int, scorer: Player.ID? = nil, assist: Player.ID? = nil)
    /// Names (or, with nil, clears) the scorer of goal `seq` a moment after the +1.
    case setScorer(seq: Int, scorer: Player.ID?, assist: Player.ID?)
    case cancelGoal(seq: Int)
    /// Undoes the cancellation of goal `seq`: the goal counts again, scorer and assist kept.
    case restoreGoal(seq: Int)
    /// The team's kit colour, one of `KitColour`'s eight, for every page to paint it with.
    case setTeamColour(TeamSide, KitColour)
    case balanceTeams
    case setTimer(minutes: Int, seconds: Int)
    case startTimer
    case pauseTimer
    case resetTimer
    case endGather
    case cancelGather

    public var kind: ActionKind {
        switch self {
        case .createGather: .createGather
        case .selectFromClubDate: .selectFromClubDate
        case .assign: .assign
        case .renameTeam: .renameTeam
        case .startGather: .startGather
        case .score: .score
        case .setScorer: .setScorer
        case .cancelGoal: .cancelGoal
        case .restoreGoal: .restoreGoal
        case .setTeamColour: .setTeamColour
        case .balanceTeams: .balanceTeams
        case .setTimer: .setTimer
        case .startTimer: .startTimer
        case .pauseTimer: .pauseTimer
        case .resetTimer: .resetTimer
        case .endGather: .endGather
        case .cancelGather: .cancelGather
        }
    }
}

extension Action {
    /// Whether this action draws a new id: a gather (also a tournament match's) or a tournament. Only
    /// these do, so ids are not spent on every command.
    public var createsGather: Bool {
        switch self {
        case .onPitch(_, .createGather), .onPitch(_, .selectFromClubDate), .tournament(.startMatch): true
        // The new tournament's id is drawn the same way.
        case .tournament(.create): true
        default: false
        }
    }
}

// MARK: - Arbitration subjects

/// What a change touches, for arbitration: two changes conflict only when their subjects meet.
/// Everything about a gather is per pitch, so "+1 Team A" on pitch 2 never meets pitch 1's.
public enum Subject: Hashable, Sendable, CustomStringConvertible {
    /// A player's details and their place in a line-up.
    case player(Player.ID)
    /// A pitch's name and existence.
    case pitch(Pitch.ID)
    case score(Pitch.ID, TeamSide)
    case teamName(Pitch.ID, TeamSide)
    case timer(Pitch.ID)
    /// The gather's existence and phase on that pitch.
    case gather(Pitch.ID)
    /// One goal of the pitch's gather: its scorer, its assist, whether it stands.
    case goal(Pitch.ID, seq: Int)
    /// One match of the tournament: its status and result.
    case tournamentMatch(Int)
    /// One team of the tournament: its name, colour and roster.
    case tournamentTeam(Int)
    /// The tournament itself: whether there is one, and its rules.
    case tournamentSettings

    /// Stored in the journal. Pitch 1's subjects keep the first release's spelling ("score:A"),
    /// so journals written before pitches existed read back as pitch 1's.
    public var description: String {
        func on(_ pitch: Pitch.ID, _ text: String) -> String { pitch == Pitch.firstID ? text : "\(text)@\(pitch)" }
        switch self {
        case .player(let id): return "player:\(id)"
        case .pitch(let id): return "pitch:\(id)"
        case .score(let pitch, let side): return on(pitch, "score:\(side.rawValue)")
        case .teamName(let pitch, let side): return on(pitch, "teamName:\(side.rawValue)")
        case .timer(let pitch): return on(pitch, "timer")
        case .gather(let pitch): return on(pitch, "gather")
        case .goal(let pitch, let seq): return on(pitch, "goal:\(seq)")
        case .tournamentMatch(let id): return "tournamentMatch:\(id)"
        case .tournamentTeam(let id): return "tournamentTeam:\(id)"
        case .tournamentSettings: return "tournament"
        }
    }

    public init?(description: String) {
        var text = Substring(description)
        var pitch = Pitch.firstID
        if let at = text.lastIndex(of: "@") {
            guard let number = Int(text[text.index(after: at)...]), number > 0 else { return nil }
            pitch = number
            text = text[..<at]
        }
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        switch (parts.first, parts.count == 2 ? parts[1] : nil) {
        case ("player", let id?): guard let id = Int(id) else { return nil }; self = .player(id)
        case ("pitch", let id?): guard let id = Int(id) else { return nil }; self = .pitch(id)
        case ("score", let side?): guard let side = TeamSide(rawValue: side) else { return nil }; self = .score(pitch, side)
        case ("teamName", let side?):
            guard let side = TeamSide(rawValue: side) else { return nil }
            self = .teamName(pitch, side)
        case ("timer", nil): self = .timer(pitch)
        case ("gather", nil): self = .gather(pitch)
        case ("goal", let seq?): guard let seq = Int(seq) else { return nil }; self = .goal(pitch, seq: seq)
        case ("tournamentMatch", let id?): guard let id = Int(id) else { return nil }; self = .tournamentMatch(id)
        case ("tournamentTeam", let id?): guard let id = Int(id) else { return nil }; self = .tournamentTeam(id)
        case ("tournament", nil): self = .tournamentSettings
        default: return nil
        }
    }

    /// A phrase for conflict messages: "Ann changed Team A's score 12 s ago".
    public func phrase(in state: GatherState) -> String {
        switch self {
        case .player(let id):
            if let player = state.player(id) { return "\(player.name)'s details or place" }
            return "that player"
        case .pitch(let id): return "\(state.pitch(id)?.name ?? "that pitch")"
        case .score(let pitch, let side):
            return "\(state.pitch(pitch)?.gather?[side].name ?? "Team \(side.rawValue)")'s score\(location(pitch, state))"
        case .teamName(let pitch, let side): return "the name of Team \(side.rawValue)\(location(pitch, state))"
        case .timer(let pitch): return "the timer\(location(pitch, state))"
        case .gather(let pitch): return "the gather\(location(pitch, state))"
        case .goal(let pitch, let seq): return "goal #\(seq)\(location(pitch, state))"
        case .tournamentMatch(let id): return "match \(id) of the tournament"
        case .tournamentTeam(let id):
            return state.tournament?.team(id).map { "the team \($0.name)" } ?? "team \(id) of the tournament"
        case .tournamentSettings: return "the tournament"
        }
    }

    /// " on Pitch 2" once the venue has more than one pitch; nothing while there is one.
    private func location(_ pitch: Pitch.ID, _ state: GatherState) -> String {
        guard state.pitches.count > 1 else { return "" }
        return " on \(state.pitch(pitch)?.name ?? Pitch.defaultName(for: pitch))"
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
    /// Another organiser recorded a goal for that team seconds ago: probably the same goal.
    case possibleDuplicate = "possible_duplicate"
}

/// Why an action was not applied, in words a person can act on: the English `message`, and the
/// same sentence as a key and params (`reason`) that a page says in its reader's language.
public struct Rejection: Error, Equatable, Sendable, Codable {
    public let code: RejectionCode
    public let message: String
    public let reason: Sentence
    /// The tournament matches the refusal is about, sent as the `rejected` message's `matches`
    /// (a pitch with unplayed matches cannot be removed); nil for every other refusal.
    public var matches: [Int]?

    /// A rejection whose sentence has no key of its own: its code's generic key.
    public init(_ code: RejectionCode, _ message: String) {
        self.init(code, sentence: Sentence(SentenceKey(code)), message)
    }

    public init(_ code: RejectionCode, sentence reason: Sentence, _ message: String) {
        self.code = code
        self.message = message
        self.reason = reason
    }

    public init(_ code: RejectionCode, _ key: SentenceKey, _ message: String) {
        self.init(code, sentence: Sentence(key), message)
    }

    public init(_ code: RejectionCode, _ key: SentenceKey, _ params: [String: SentenceParam], _ message: String) {
        self.init(code, sentence: Sentence(key, params), message)
    }
}
