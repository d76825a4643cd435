/// Every sentence the server can send, by a stable key, so a page can say it in its reader's
/// language from the key and its params instead of the English `message` (docs/PROTOCOL.md,
/// "Sentences as keys"). The raw values are the wire's `reason`s; each page catalogue
/// (`Public/i18n/*.json`) has `server.<key>` for every case, which a test checks.
public enum SentenceKey: String, CaseIterable, Sendable, Codable {
    // MARK: Generic, one per rejection or error code (a sentence without a key of its own)
    case invalid, notFound = "not_found", wrongPhase = "wrong_phase", outOfRange = "out_of_range", inUse = "in_use"
    case conflict, forbidden, rateLimited = "rate_limited", possibleDuplicate = "possible_duplicate"
    case badJSON = "bad_json", badMessage = "bad_message", unknownType = "unknown_type", internalError = "internal"
    case badInvite = "bad_invite", usernameTaken = "username_taken", unauthorized, tlsRequired = "tls_required"

    // MARK: Rejections of the rules (Model)
    case actionUnreadable = "action_unreadable", textLength = "text_length", textTooLong = "text_too_long"
    case textCharacters = "text_characters"
    case rosterFull = "roster_full", playerInGather = "player_in_gather", pitchesFull = "pitches_full"
    case firstPitchKept = "first_pitch_kept", pitchInUse = "pitch_in_use", pitchNameTaken = "pitch_name_taken"
    case noSuchPlayer = "no_such_player", noSuchPitch = "no_such_pitch", gatherUnderWay = "gather_under_way"
    case gatherFull = "gather_full", playerNotInGather = "player_not_in_gather"
    case balanceBeforeKickOff = "balance_before_kick_off", balanceNeedsTwo = "balance_needs_two"
    case alreadyKickedOff = "already_kicked_off", teamsNeedPlayers = "teams_need_players"
    case scoreAtMost = "score_at_most", noGoalsToTake = "no_goals_to_take", noSuchGoal = "no_such_goal"
    case assistNeedsScorer = "assist_needs_scorer", noStandingGoal = "no_standing_goal"
    case noCancelledGoal = "no_cancelled_goal", pauseBeforeSetting = "pause_before_setting"
    case timerRunning = "timer_running", timeUpReset = "time_up_reset", noTimeLeft = "no_time_left"
    case timerNotRunning = "timer_not_running", timerFinishing = "timer_finishing"
    case duplicateGoal = "duplicate_goal", scorerNotInTeam = "scorer_not_in_team"
    case assistNotInTeam = "assist_not_in_team", ownAssist = "own_assist", noGather = "no_gather"
    case kickOffFirst = "kick_off_first", timelineFull = "timeline_full", playerOnOtherPitch = "player_on_other_pitch"

    // MARK: Rejections of a tournament's rules (createTournament's fields, then the day's actions)
    case tournamentRulesBroken = "tournament_rules_broken", teamCount = "team_count", teamNamesSame = "team_names_same"
    case groupCount = "group_count", groupsNeedTeams = "groups_need_teams", advanceMissing = "advance_missing"
    case advanceAtMost = "advance_at_most", bracketSize = "bracket_size", matchMinutesRange = "match_minutes_range"
    case breakMinutesRange = "break_minutes_range", startsAtRule = "starts_at_rule"
    case pointsForWinRange = "points_for_win_range", pointsForDrawRange = "points_for_draw_range"
    case tieBreakChoice = "tie_break_choice", thirdPlaceFlag = "third_place_flag"
    case thirdPlaceNeedsFour = "third_place_needs_four", pitchNumbers = "pitch_numbers"
    case pitchListedTwice = "pitch_listed_twice", pitchesList = "pitches_list"
    case tournamentUnderWay = "tournament_under_way", noTournament = "no_tournament"
    case tournamentFinished = "tournament_finished", noSuchMatch = "no_such_match", noSuchTeam = "no_such_team"
    case matchUnderWay = "match_under_way", matchPlayed = "match_played", matchTeamsUnknown = "match_teams_unknown"
    case matchNotLive = "match_not_live", matchNotFinished = "match_not_finished", matchPitchGone = "match_pitch_gone"
    case resultMovesLiveMatch = "result_moves_live_match", resultMovesPlayedMatch = "result_moves_played_match"
    case resultScoreRange = "result_score_range", penaltiesNeeded = "penalties_needed"
    case penaltiesNotLevel = "penalties_not_level", penaltiesGroupMatch = "penalties_group_match"
    case penaltiesNoMatch = "penalties_no_match", penaltiesRange = "penalties_range", penaltiesEqual = "penalties_equal"
    case teamNameTaken = "team_name_taken", playerOnOtherTeam = "player_on_other_team"
    case pitchHasMatches = "pitch_has_matches", noMatchesToMove = "no_matches_to_move"
    case moveToTournamentPitch = "move_to_tournament_pitch"

    // MARK: Rejections and errors of the Coordinator
    case logInFirst = "log_in_first", watchingAddress = "watching_address", badBase = "bad_base"
    case changedMeanwhile = "changed_meanwhile", timerChangedMeanwhile = "timer_changed_meanwhile"
    case screenBehind = "screen_behind", diskFull = "disk_full", saveFailed = "save_failed"
    case tooManyCommands = "too_many_commands", tooManyMessages = "too_many_messages", unreadMessages = "unread_messages"
    case secureAddress = "secure_address", usernameRule = "username_rule", passwordRule = "password_rule"
    case sessionOver = "session_over", ownerOnly = "owner_only", organisersOnly = "organisers_only"
    case nameAnOrganiser = "name_an_organiser", cannotRemoveSelf = "cannot_remove_self", alreadyOwner = "already_owner"
    case noSuchOrganiser = "no_such_organiser", ownerStays = "owner_stays", newPasswordRule = "new_password_rule"
    case wrongCredentials = "wrong_credentials", wrongPassword = "wrong_password"

    // MARK: Referee links (docs/PROTOCOL.md §20)
    case refereePitchOnly = "referee_pitch_only", refereeHoursRule = "referee_hours_rule"
    case refereeLinksFull = "referee_links_full", noSuchRefereeLink = "no_such_referee_link"
    case refereeSessionsFull = "referee_sessions_full", refereeCodeWrong = "referee_code_wrong"
    case refereeLabelTaken = "referee_label_taken"

    // MARK: Session reasons (the `reason` of a `session` message) and the relay's link
    case removed, passwordChanged = "password_changed", loggedOut = "logged_out", revoked, expired
    case linkLost = "link_lost", linkRestored = "link_restored"
    case relayReadOnly = "relay_read_only", relaySendsOnly = "relay_sends_only"

    // MARK: Activity sentences
    case addedPlayer = "added_player", editedPlayer = "edited_player", removedPlayer = "removed_player"
    case addedPitch = "added_pitch", renamedPitch = "renamed_pitch", removedPitch = "removed_pitch"
    case createdGather = "created_gather", putInTeam = "put_in_team", putOnBench = "put_on_bench"
    case tookOut = "took_out", renamedTeam = "renamed_team", kickedOff = "kicked_off", addedGoal = "added_goal"
    case tookBackGoal = "took_back_goal", namedScorer = "named_scorer", clearedScorer = "cleared_scorer"
    case cancelledGoal = "cancelled_goal", balancedTeams = "balanced_teams", setTimer = "set_timer"
    case startedTimer = "started_timer", pausedTimer = "paused_timer", resetTimer = "reset_timer"
    case endedGather = "ended_gather", cancelledGather = "cancelled_gather", fullTime = "full_time"
    case restoredGoal = "restored_goal", changedKit = "changed_kit"
    case changedGather = "changed_gather"
    case createdTournament = "created_tournament", changedTournamentTeam = "changed_tournament_team"
    case startedMatch = "started_match", correctedResult = "corrected_result", cancelledTournament = "cancelled_tournament"
    case movedMatches = "moved_matches"
    /// Activity of journal rows older than keyed sentences: what their kind says (`kind` param).
    case earlierChange = "earlier_change"

    /// The key for a rejection that has none of its own.
    public init(_ code: RejectionCode) {
        self = SentenceKey(rawValue: code.rawValue) ?? .invalid
    }
}

/// One name or number in a sentence. Names stay as they were typed; numbers are numbers so a
/// page can choose the plural and write them in its reader's way.
public enum SentenceParam: Equatable, Sendable, Codable {
    case text(String)
    case number(Int)

    public var json: JSONValue {
        switch self {
        case .text(let text): .string(text)
        case .number(let number): .int(number)
        }
    }
}

/// A sentence as a key and its params (what a page translates), e.g. `added_goal` with
/// `team: "Whites", scorer: "Ann"`.
public struct Sentence: Equatable, Sendable, Codable {
    public var key: SentenceKey
    public var params: [String: SentenceParam]

    public init(_ key: SentenceKey, _ params: [String: SentenceParam] = [:]) {
        self.key = key
        self.params = params
    }

    public var paramsJSON: JSONValue { .object(params.mapValues(\.json)) }
}
