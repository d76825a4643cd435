import GatherModel

/// The short sentence the activity list shows for one applied change ("Added a goal for Whites
/// (Ann, assist Bob)"), as a key and the names and numbers in it, and in English. Written once,
/// when the change is committed, from the state before and after it, so a later rename or
/// removal does not rewrite what people read about the past.
public enum ActivitySentence {
    /// The sentence and the pitch the change was about (nil for the roster).
    public static func describe(_ action: Action, before: GatherState, after: GatherState) -> (Sentence, Int?) {
        func player(_ id: Player.ID?) -> SentenceParam? {
            guard let id else { return nil }
            return .text((before.players.first { $0.id == id } ?? after.players.first { $0.id == id })?.name ?? "#\(id)")
        }
        func pitchName(_ id: Pitch.ID, _ fallback: String) -> SentenceParam { .text(before.pitch(id)?.name ?? fallback) }
        switch action {
        case .addPlayer:
            return (Sentence(.addedPlayer, ["player": player(before.nextPlayerID) ?? .text("?")]), nil)
        case .editPlayer(let id, _):
            return (Sentence(.editedPlayer, ["player": player(id) ?? .text("?")]), nil)
        case .removePlayer(let id):
            return (Sentence(.removedPlayer, ["player": player(id) ?? .text("?")]), nil)
        case .addPitch(let name):
            return (Sentence(.addedPitch, ["pitch": .text(name)]), before.nextPitchID)
        case .renamePitch(let id, let name):
            return (Sentence(.renamedPitch, ["pitch": pitchName(id, "\(id)"), "name": .text(name)]), id)
        case .removePitch(let id):
            return (Sentence(.removedPitch, ["pitch": pitchName(id, "\(id)")]), id)
        case .onPitch(let pitch, .selectFromClubDate):
            return (Sentence(.createdGather, ["count": .number(after.pitch(pitch)?.gather?.memberIDs.count ?? 0)]), pitch)
        case .onPitch(let pitch, let gatherAction):
            let gather = before.pitch(pitch)?.gather ?? after.pitch(pitch)?.gather
            func team(_ side: TeamSide) -> SentenceParam {
                guard let gather else { return .text(side.rawValue) }
                return .text(side == .A ? gather.teamA.name : gather.teamB.name)
            }
            func goal(_ seq: Int) -> GatherEvent? { gather?.events.first { $0.seq == seq && $0.kind == .goal } }
            return (sentence(gatherAction, team: team, goal: goal, player: player, before: before.pitch(pitch)?.gather),
                    pitch)
        case .tournament(let action):
            return sentence(action, before: before.tournament, after: after.tournament)
        }
    }

    /// A tournament action's sentence; a match is named by its id and its two places ("A1 v B2"
    /// until the teams are known).
    private static func sentence(_ action: TournamentAction, before: Tournament?, after: Tournament?) -> (Sentence, Int?) {
        func match(_ key: SentenceKey, _ id: TournamentMatch.ID) -> Sentence {
            guard let tournament = after ?? before, let match = tournament.match(id) else {
                return Sentence(key, ["match": .number(id), "home": .text("?"), "away": .text("?")])
            }
            return Sentence(key, ["match": .number(id), "home": .text(tournament.placeLabel(match, home: true)),
                                  "away": .text(tournament.placeLabel(match, home: false))])
        }
        switch action {
        case .create: return (Sentence(.createdTournament, ["name": .text(after?.name ?? "")]), nil)
        case .setTeam(let id, _):
            return (Sentence(.changedTournamentTeam, ["team": .text(after?.team(id)?.name ?? "\(id)")]), nil)
        case .startMatch(let id, _): return (match(.startedMatch, id), after?.match(id)?.pitch)
        case .correctResult(let id, _, _): return (match(.correctedResult, id), nil)
        case .cancel: return (Sentence(.cancelledTournament, ["name": .text(before?.name ?? "")]), nil)
        case .moveMatches(let from, let to):
            let count = before?.unplayedMatches(on: from).count ?? 0
            return (Sentence(.movedMatches, ["from": .number(from), "to": .number(to), "count": .number(count)]), to)
        }
    }

    private static func sentence(_ action: GatherAction, team: (TeamSide) -> SentenceParam, goal: (Int) -> GatherEvent?,
                                 player: (Player.ID?) -> SentenceParam?, before: ActiveGather?) -> Sentence {
        /// A goal's team with its scorer and assist when known.
        func credited(_ key: SentenceKey, _ side: TeamSide, _ scorer: Player.ID?, _ assist: Player.ID?) -> Sentence {
            var params = ["team": team(side)]
            params["scorer"] = player(scorer)
            params["assist"] = player(assist)
            return Sentence(key, params)
        }
        switch action {
        case .createGather(let ids):
            return Sentence(.createdGather, ["count": .number(ids.count)])
        case .selectFromClubDate:
            return Sentence(.createdGather, ["count": .number(0)])
        case .assign(let id, let placement):
            let name = player(id) ?? .text("?")
            switch placement {
            case .A: return Sentence(.putInTeam, ["player": name, "team": team(.A)])
            case .B: return Sentence(.putInTeam, ["player": name, "team": team(.B)])
            case .bench: return Sentence(.putOnBench, ["player": name])
            case .out: return Sentence(.tookOut, ["player": name])
            }
        case .renameTeam(let side, let name):
            return Sentence(.renamedTeam, ["team": team(side), "name": .text(name)])
        case .startGather:
            return Sentence(.kickedOff, ["teamA": team(.A), "teamB": team(.B)])
        case .score(let side, let delta, let scorer, let assist):
            if delta > 0 { return credited(.addedGoal, side, scorer, assist) }
            return Sentence(.tookBackGoal, ["team": team(side)])
        case .setScorer(let seq, let scorer, let assist):
            guard let scored = goal(seq), let side = scored.team else { return Sentence(.namedScorer) }
            if scorer == nil { return Sentence(.clearedScorer, ["team": team(side)]) }
            return credited(.namedScorer, side, scorer, assist)
        case .cancelGoal(let seq):
            guard let scored = goal(seq), let side = scored.team else { return Sentence(.cancelledGoal) }
            return credited(.cancelledGoal, side, scored.playerId, scored.assistId)
        case .restoreGoal(let seq):
            guard let scored = goal(seq), let side = scored.team else { return Sentence(.restoredGoal) }
            return credited(.restoredGoal, side, scored.playerId, scored.assistId)
        case .setTeamColour(let side, _):
            return Sentence(.changedKit, ["team": team(side)])
        case .balanceTeams:
            return Sentence(.balancedTeams)
        case .setTimer(let minutes, let seconds):
            return Sentence(.setTimer, ["minutes": .number(minutes), "seconds": .number(seconds)])
        case .startTimer:
            return Sentence(.startedTimer)
        case .pauseTimer:
            return Sentence(.pausedTimer)
        case .resetTimer:
            return Sentence(.resetTimer)
        case .endGather:
            guard let before else { return Sentence(.endedGather) }
            return Sentence(.endedGather, ["teamA": team(.A), "teamB": team(.B),
                                           "scoreA": .number(before.score.A), "scoreB": .number(before.score.B)])
        case .cancelGather:
            return Sentence(.cancelledGather)
        @unknown default:
            return Sentence(.changedGather)
        }
    }

    /// The server's own change: the countdowns of `pitches` ran out.
    public static func fullTime(pitches names: [String]) -> Sentence {
        Sentence(.fullTime, ["pitches": .text(names.joined(separator: ", "))])
    }

    /// An old journal row's sentence (no key was kept): its kind.
    public static func earlier(kind: String) -> Sentence { Sentence(.earlierChange, ["kind": .text(kind)]) }

    /// The English words of an activity sentence, for the `summary` other clients read; the
    /// pages' `en.json` says the same from the same key.
    public static func english(_ sentence: Sentence) -> String {
        func text(_ name: String) -> String {
            switch sentence.params[name] {
            case .text(let value)?: value
            case .number(let value)?: "\(value)"
            case nil: "?"
            }
        }
        let credit: String = switch (sentence.params["scorer"], sentence.params["assist"]) {
        case (_?, _?): " (\(text("scorer")), assist \(text("assist")))"
        case (_?, nil): " (\(text("scorer")))"
        case (nil, _?): " (assist \(text("assist")))"
        case (nil, nil): ""
        }
        let keyed = sentence.params["team"] != nil
        switch sentence.key {
        case .addedPlayer: return "Added \(text("player")) to the roster"
        case .editedPlayer: return "Edited \(text("player"))'s details"
        case .removedPlayer: return "Removed \(text("player")) from the roster"
        case .addedPitch: return "Added the pitch \(text("pitch"))"
        case .renamedPitch: return "Renamed \(text("pitch")) to \(text("name"))"
        case .removedPitch: return "Removed the pitch \(text("pitch"))"
        case .createdGather: return "Created a gather of \(text("count")) players"
        case .putInTeam: return "Put \(text("player")) in \(text("team"))"
        case .putOnBench: return "Put \(text("player")) on the bench"
        case .tookOut: return "Took \(text("player")) out of the gather"
        case .renamedTeam: return "Renamed \(text("team")) to \(text("name"))"
        case .kickedOff: return "Kicked off: \(text("teamA")) v \(text("teamB"))"
        case .addedGoal: return "Added a goal for \(text("team"))" + credit
        case .tookBackGoal: return "Took back a goal for \(text("team"))"
        case .namedScorer: return keyed ? "Named the scorer of a goal for \(text("team"))" + credit : "Named a scorer"
        case .clearedScorer: return "Cleared the scorer of a goal for \(text("team"))"
        case .cancelledGoal: return keyed ? "Cancelled a goal for \(text("team"))" + credit : "Cancelled a goal"
        case .restoredGoal: return keyed ? "Restored a goal for \(text("team"))" + credit : "Restored a goal"
        case .changedKit: return "Changed the kit colour of \(text("team"))"
        case .balancedTeams: return "Balanced the teams"
        case .setTimer:
            guard case .number(let minutes)? = sentence.params["minutes"],
                  case .number(let seconds)? = sentence.params["seconds"] else { return "Set the timer" }
            return "Set the timer to \(minutes):\(seconds < 10 ? "0" : "")\(seconds)"
        case .startedTimer: return "Started the timer"
        case .pausedTimer: return "Paused the timer"
        case .resetTimer: return "Reset the timer"
        case .endedGather:
            guard sentence.params["teamA"] != nil else { return "Ended the gather" }
            return "Ended the gather: \(text("teamA")) \(text("scoreA"))–\(text("scoreB")) \(text("teamB"))"
        case .cancelledGather: return "Cancelled the gather"
        case .fullTime: return "Full time on \(text("pitches")): the timer ran out"
        case .earlierChange: return fallback(kind: text("kind"))
        case .createdTournament: return "Created the tournament \(text("name"))"
        case .changedTournamentTeam: return "Changed the team \(text("team"))"
        case .startedMatch: return "Started match \(text("match")) (\(text("home")) v \(text("away")))"
        case .correctedResult: return "Corrected the result of match \(text("match")) (\(text("home")) v \(text("away")))"
        case .cancelledTournament: return "Cancelled the tournament \(text("name"))"
        case .movedMatches: return "Moved \(text("count")) \(text("count") == "1" ? "match" : "matches") from pitch \(text("from")) to pitch \(text("to"))"
        default: return "Changed the gather"
        }
    }

    /// For journal rows written before the group had accounts (no sentence was kept): what the kind says.
    public static func fallback(kind: String) -> String {
        switch kind {
        case "addPlayer": "Added a player to the roster"
        case "editPlayer": "Edited a player's details"
        case "removePlayer": "Removed a player from the roster"
        case "addPitch": "Added a pitch"
        case "renamePitch": "Renamed a pitch"
        case "removePitch": "Removed a pitch"
        case "createGather": "Created a gather"
        case "selectFromClubDate": "Created a gather from the club's list"
        case "assign": "Moved a player"
        case "renameTeam": "Renamed a team"
        case "startGather": "Kicked off"
        case "score": "Changed the score"
        case "setScorer": "Named a scorer"
        case "cancelGoal": "Cancelled a goal"
        case "balanceTeams": "Balanced the teams"
        case "setTimer": "Set the timer"
        case "startTimer": "Started the timer"
        case "pauseTimer": "Paused the timer"
        case "resetTimer": "Reset the timer"
        case "endGather": "Ended the gather"
        case "cancelGather": "Cancelled the gather"
        case "moveMatches": "Moved matches to another pitch"
        case "timerExpired": "Full time: the timer ran out"
        default: "Changed the gather (\(kind))"
        }
    }

    /// The pitch of an old journal row, from its subjects (pitch 1's are spelled without `@`).
    public static func pitch(of subjects: Set<Subject>) -> Int? {
        let pitches = Set(subjects.compactMap { subject -> Int? in
            switch subject {
            case .player, .tournamentMatch, .tournamentTeam, .tournamentSettings: nil
            case .pitch(let id), .score(let id, _), .teamName(let id, _), .timer(let id), .gather(let id),
                 .goal(let id, _): id
            @unknown default: nil
            }
        })
        return pitches.count == 1 ? pitches.first : nil
    }
}
