/// Turns `command.action` from the wire into an `Action`, checking every field's type, range
/// and length. Range checks that need no state happen here; the rules check the rest.
public enum ActionDecoder {
    public static let nameLength = 1...50
    public static let teamNameLength = 1...30
    public static let favouriteTeamMaxLength = 50
    public static let ageRange = 1...99
    public static let clockRange = 0...59
    /// A sanity bound on `playerIds` before the rules look at it (a gather holds at most 60).
    public static let playerListLimit = 1000
    /// Bytes per character allowed in text: the most UTF-8 needs for one scalar, so a "name"
    /// of one letter with thousands of combining marks is refused by its size.
    public static let bytesPerCharacter = 4

    /// `action.confirmed`: absent or false unless the organiser answered "Add another" to a
    /// possible duplicate; anything but a boolean is `invalid`.
    public static func confirmed(_ json: JSONValue?) -> Result<Bool, Rejection> {
        guard let value = json?["confirmed"], !value.isNull else { return .success(false) }
        guard case .bool(let flag) = value else {
            return .failure(invalid("\"confirmed\" is true or false."))
        }
        return .success(flag)
    }

    public static func decode(_ json: JSONValue) -> Result<Action, Rejection> {
        do {
            return .success(try action(from: json))
        } catch let rejection as Rejection {
            return .failure(rejection)
        } catch {
            return .failure(Rejection(.invalid, .actionUnreadable, "The action could not be read."))
        }
    }

    private static func action(from json: JSONValue) throws -> Action {
        guard case .object = json else { throw invalid("The action must be an object with a \"kind\".") }
        guard let name = json["kind"]?.stringValue else { throw invalid("The action needs a \"kind\" string.") }
        guard let kind = ActionKind(rawValue: name) else {
            throw invalid("Unknown action \"\(String(name.prefix(40)))\".")
        }
        switch kind {
        case .addPlayer:
            var changes = try playerChanges(json)
            guard changes.name != nil else { throw invalid("A new player needs a name.") }
            // A new player has nothing to keep: "keep" and "clear" both mean unset.
            if changes.age == .clear { changes.age = .keep }
            if changes.skill == .clear { changes.skill = .keep }
            if changes.position == .clear { changes.position = .keep }
            if changes.favouriteTeam == .clear { changes.favouriteTeam = .keep }
            return .addPlayer(changes)
        case .editPlayer:
            let id = try playerID(json)
            let changes = try playerChanges(json)
            guard !changes.isEmpty else { throw invalid("Say which field of the player to change.") }
            return .editPlayer(id, changes)
        case .removePlayer:
            return .removePlayer(try playerID(json))
        case .addPitch:
            return .addPitch(name: try text(json["name"], field: "The pitch name", length: Pitch.nameLength)!)
        case .renamePitch:
            return .renamePitch(try pitchID(json, required: true),
                                name: try text(json["name"], field: "The pitch name", length: Pitch.nameLength)!)
        case .removePitch:
            return .removePitch(try pitchID(json, required: true))
        case .createGather, .assign, .renameTeam, .startGather, .score, .setScorer, .cancelGoal, .restoreGoal,
             .setTeamColour, .balanceTeams, .selectFromClubDate,
             .setTimer, .startTimer, .pauseTimer, .resetTimer, .endGather, .cancelGather:
            let action = try gatherAction(kind, json)
            return .onPitch(try pitchID(json, required: false), action)
        case .timerExpired:
            // The server's own change: no organiser can send it.
            throw invalid("Unknown action \"\(name)\".")
        case .createTournament:
            return .tournament(.create(json))
        case .setTournamentTeam:
            let (team, changes) = try TournamentActionFields.teamChanges(json).get()
            return .tournament(.setTeam(team, changes))
        case .startMatch:
            let (match, startEarly) = try TournamentActionFields.start(json).get()
            return .tournament(.startMatch(match, startEarly: startEarly))
        case .correctResult:
            let (match, score, penalties) = try TournamentActionFields.correction(json).get()
            return .tournament(.correctResult(match, score: score, penalties: penalties))
        case .cancelTournament:
            return .tournament(.cancel)
        case .moveMatches:
            let (from, to) = try TournamentActionFields.move(json).get()
            return .tournament(.moveMatches(from: from, to: to))
        }
    }

    private static func gatherAction(_ kind: ActionKind, _ json: JSONValue) throws -> GatherAction {
        switch kind {
        case .createGather:
            guard case .array(let values)? = json["playerIds"] else {
                throw invalid("Choose the players for the gather (\"playerIds\").")
            }
            guard values.count <= playerListLimit else { throw invalid("A gather can hold at most \(ActiveGather.maximumPlayers) players.") }
            let ids = try values.map { value -> Int in
                guard let id = value.intValue else { throw invalid("Player ids are whole numbers.") }
                return id
            }
            guard Set(ids).count == ids.count else { throw invalid("Each player can be selected only once.") }
            guard ids.count >= 2 else { throw invalid("Select at least two players to start a gather.") }
            return .createGather(playerIDs: ids)
        case .selectFromClubDate:
            guard let date = json["date"]?.stringValue, ClubDateList.isId(date) else {
                throw invalid("\"date\" must be the club date's id (1–64 of A-Za-z0-9-_).")
            }
            return .selectFromClubDate(date: date)
        case .assign:
            let id = try playerID(json)
            guard let to = json["to"]?.stringValue.flatMap(Placement.init(rawValue:)) else {
                throw invalid("\"to\" must be \"A\", \"B\", \"bench\" or \"out\".")
            }
            return .assign(id, to: to)
        case .renameTeam:
            let side = try team(json)
            let name = try text(json["name"], field: "Team name", length: teamNameLength)
            return .renameTeam(side, name: name!)
        case .startGather: return .startGather
        case .score:
            let side = try team(json)
            guard let delta = json["delta"]?.intValue, delta == 1 || delta == -1 else {
                throw invalid("A score change is +1 or -1 (\"delta\").")
            }
            let scorer = try optionalPlayerID(json["playerId"], field: "playerId")
            let assist = try optionalPlayerID(json["assistId"], field: "assistId")
            guard delta == 1 || (scorer == nil && assist == nil) else {
                throw invalid("Only a goal (+1) names a scorer; to take a goal back, say which with cancelGoal.")
            }
            return .score(side, delta: delta, scorer: scorer, assist: assist)
        case .setScorer:
            let seq = try goalSeq(json)
            guard json["playerId"] != nil else {
                throw invalid("Say who scored (\"playerId\"), or null to clear the scorer.")
            }
            return .setScorer(seq: seq, scorer: try optionalPlayerID(json["playerId"], field: "playerId"),
                              assist: try optionalPlayerID(json["assistId"], field: "assistId"))
        case .cancelGoal:
            return .cancelGoal(seq: try goalSeq(json))
        case .restoreGoal:
            return .restoreGoal(seq: try goalSeq(json))
        case .setTeamColour:
            let side = try team(json)
            guard let colour = json["colour"]?.stringValue.flatMap(KitColour.init(rawValue:)) else {
                throw invalid("\"colour\" must be one of " + KitColour.allCases.map(\.rawValue).joined(separator: ", ") + ".")
            }
            return .setTeamColour(side, colour)
        case .balanceTeams: return .balanceTeams
        case .setTimer:
            guard let minutes = json["minutes"]?.intValue, clockRange.contains(minutes),
                  let seconds = json["seconds"]?.intValue, clockRange.contains(seconds)
            else { throw invalid("Minutes and seconds must each be whole numbers from 0 to 59.") }
            guard minutes > 0 || seconds > 0 else { throw invalid("Set at least one second on the timer.") }
            return .setTimer(minutes: minutes, seconds: seconds)
        case .startTimer: return .startTimer
        case .pauseTimer: return .pauseTimer
        case .resetTimer: return .resetTimer
        case .endGather: return .endGather
        case .cancelGather: return .cancelGather
        case .addPlayer, .editPlayer, .removePlayer, .addPitch, .renamePitch, .removePitch, .timerExpired,
             .createTournament, .setTournamentTeam, .startMatch, .correctResult, .cancelTournament, .moveMatches:
            throw invalid("Unknown action \"\(kind.rawValue)\".")
        }
    }

    // MARK: - Fields

    private static func playerID(_ json: JSONValue) throws -> Player.ID {
        guard let id = json["playerId"]?.intValue else { throw invalid("Say which player (\"playerId\", a number).") }
        return id
    }

    /// `pitch` is optional on gather actions (pitch 1) and required on pitch actions.
    private static func pitchID(_ json: JSONValue, required: Bool) throws -> Pitch.ID {
        guard let value = json["pitch"] else {
            if required { throw invalid("Say which pitch (\"pitch\", a number).") }
            return Pitch.firstID
        }
        guard let id = value.intValue else { throw invalid("\"pitch\" is a pitch's number.") }
        return id
    }

    /// Absent or null: nobody named.
    private static func optionalPlayerID(_ value: JSONValue?, field: String) throws -> Player.ID? {
        guard let value, !value.isNull else { return nil }
        guard let id = value.intValue else { throw invalid("\"\(field)\" is a player's id (a number) or null.") }
        return id
    }

    private static func goalSeq(_ json: JSONValue) throws -> Int {
        guard let seq = json["seq"]?.intValue else { throw invalid("Say which goal (\"seq\", a number).") }
        return seq
    }

    private static func team(_ json: JSONValue) throws -> TeamSide {
        guard let side = json["team"]?.stringValue.flatMap(TeamSide.init(rawValue:)) else {
            throw invalid("\"team\" must be \"A\" or \"B\".")
        }
        return side
    }

    private static func playerChanges(_ json: JSONValue) throws -> PlayerChanges {
        var changes = PlayerChanges()
        if let value = json["name"] {
            changes.name = try text(value, field: "The name", length: nameLength)
        }
        changes.age = try field(json["age"]) { value in
            guard let age = value.intValue, ageRange.contains(age) else {
                throw invalid("Age must be a whole number from 1 to 99.")
            }
            return age
        }
        changes.skill = try field(json["skill"]) { value in
            guard let skill = value.stringValue.flatMap(Skill.init(rawValue:)) else {
                throw invalid("Skill must be beginner, amateur or professional.")
            }
            return skill
        }
        changes.position = try field(json["position"]) { value in
            guard let position = value.stringValue.flatMap(Position.init(rawValue:)) else {
                throw invalid("Position must be goalkeeper, defender, midfielder, winger or striker.")
            }
            return position
        }
        changes.favouriteTeam = try field(json["favouriteTeam"]) { value in
            guard let team = try text(value, field: "The favourite team", length: 0...favouriteTeamMaxLength)
            else { throw invalid("The favourite team must be text.") }
            return team
        }
        if changes.favouriteTeam == .set("") { changes.favouriteTeam = .clear }
        return changes
    }

    private static func field<Value>(_ value: JSONValue?, _ read: (JSONValue) throws -> Value) throws
        -> FieldChange<Value>
    {
        guard let value else { return .keep }
        if value.isNull { return .clear }
        return .set(try read(value))
    }

    /// Trimmed text within `length` characters and `bytesPerCharacter` bytes per character, with
    /// no control characters, no invisible format characters (bidi overrides, zero-width marks)
    /// and no other invisible code points (`VisibleText`), which could make one name look like
    /// another's, a name look blank, or reorder what a phone shows.
    static func text(_ value: JSONValue?, field: String, length: ClosedRange<Int>) throws -> String? {
        guard let raw = value?.stringValue else {
            throw invalid(.textLength, ["min": .number(length.lowerBound), "max": .number(length.upperBound)], "\(field) must be text of \(length.lowerBound)–\(length.upperBound) characters.")
        }
        let trimmed = raw.trimmingWhitespace()
        guard trimmed.utf8.count <= length.upperBound * bytesPerCharacter else {
            throw invalid(.textTooLong, ["max": .number(length.upperBound)], "\(field) is too long: at most \(length.upperBound) characters.")
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw invalid(.textCharacters, "\(field) cannot contain control characters.")
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .format }) else {
            throw invalid(.textCharacters, "\(field) cannot contain invisible formatting characters.")
        }
        guard !trimmed.unicodeScalars.contains(where: VisibleText.isInvisible) else {
            throw invalid(.textCharacters, "\(field) cannot contain invisible characters (fillers, joiners or variation selectors).")
        }
        guard length.contains(trimmed.count) else {
            throw invalid(.textLength, ["min": .number(length.lowerBound), "max": .number(length.upperBound)], "\(field) must be \(length.lowerBound)–\(length.upperBound) characters long.")
        }
        return trimmed
    }

    /// A command the pages never send (they check first): one key, "the change could not be read".
    private static func invalid(_ message: String) -> Rejection { Rejection(.invalid, .actionUnreadable, message) }

    private static func invalid(_ key: SentenceKey, _ message: String) -> Rejection { Rejection(.invalid, key, message) }

    private static func invalid(_ key: SentenceKey, _ params: [String: SentenceParam], _ message: String) -> Rejection {
        Rejection(.invalid, key, params, message)
    }
}

extension String {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(scalars[first...last])
    }
}
