import GatherModel

/// The short sentence the activity list shows for one applied change ("Added a goal for Whites
/// (Ann, assist Bob)"). Written once, when the change is committed, from the state before and
/// after it, so a later rename or removal does not rewrite what people read about the past.
public enum ActivitySentence {
    /// The sentence and the pitch the change was about (nil for the roster).
    public static func describe(_ action: Action, before: GatherState, after: GatherState) -> (String, Int?) {
        func player(_ id: Player.ID?) -> String? {
            guard let id else { return nil }
            return (before.players.first { $0.id == id } ?? after.players.first { $0.id == id })?.name ?? "player \(id)"
        }
        switch action {
        case .addPlayer:
            return ("Added \(player(before.nextPlayerID) ?? "a player") to the roster", nil)
        case .editPlayer(let id, _):
            return ("Edited \(player(id) ?? "a player")'s details", nil)
        case .removePlayer(let id):
            return ("Removed \(player(id) ?? "a player") from the roster", nil)
        case .addPitch(let name):
            return ("Added the pitch \(name)", before.nextPitchID)
        case .renamePitch(let id, let name):
            return ("Renamed \(before.pitch(id)?.name ?? "a pitch") to \(name)", id)
        case .removePitch(let id):
            return ("Removed the pitch \(before.pitch(id)?.name ?? "\(id)")", id)
        case .onPitch(let pitch, let gatherAction):
            let gather = before.pitch(pitch)?.gather ?? after.pitch(pitch)?.gather
            func team(_ side: TeamSide) -> String {
                guard let gather else { return "Team \(side.rawValue)" }
                return side == .A ? gather.teamA.name : gather.teamB.name
            }
            func goal(_ seq: Int) -> GatherEvent? { gather?.events.first { $0.seq == seq && $0.kind == .goal } }
            func scorers(_ scorer: Player.ID?, _ assist: Player.ID?) -> String {
                switch (player(scorer), player(assist)) {
                case (let scorer?, let assist?): " (\(scorer), assist \(assist))"
                case (let scorer?, nil): " (\(scorer))"
                case (nil, let assist?): " (assist \(assist))"
                case (nil, nil): ""
                }
            }
            return (sentence(gatherAction, team: team, goal: goal, scorers: scorers, player: player,
                             before: before.pitch(pitch)?.gather, after: after.pitch(pitch)?.gather), pitch)
        case .tournament(let action):
            return sentence(action, before: before.tournament, after: after.tournament)
        }
    }

    private static func sentence(_ action: TournamentAction, before: Tournament?, after: Tournament?) -> (String, Int?) {
        func teams(_ id: TournamentMatch.ID) -> String {
            guard let tournament = after ?? before, let match = tournament.match(id) else { return "" }
            return " (\(tournament.placeLabel(match, home: true)) v \(tournament.placeLabel(match, home: false)))"
        }
        switch action {
        case .create: return ("Created the tournament \(after?.name ?? "")", nil)
        case .setTeam(let id, _): return ("Changed the team \(after?.team(id)?.name ?? "\(id)")", nil)
        case .startMatch(let id): return ("Started match \(id)\(teams(id))", after?.match(id)?.pitch)
        case .correctResult(let id, _, _): return ("Corrected the result of match \(id)\(teams(id))", nil)
        case .cancel: return ("Cancelled the tournament \(before?.name ?? "")", nil)
        }
    }

    private static func sentence(_ action: GatherAction, team: (TeamSide) -> String, goal: (Int) -> GatherEvent?,
                                 scorers: (Player.ID?, Player.ID?) -> String, player: (Player.ID?) -> String?,
                                 before: ActiveGather?, after: ActiveGather?) -> String {
        switch action {
        case .createGather(let ids):
            return "Created a gather of \(ids.count) players"
        case .assign(let id, let placement):
            let name = player(id) ?? "a player"
            switch placement {
            case .A: return "Put \(name) in \(team(.A))"
            case .B: return "Put \(name) in \(team(.B))"
            case .bench: return "Put \(name) on the bench"
            case .out: return "Took \(name) out of the gather"
            }
        case .renameTeam(let side, let name):
            return "Renamed \(team(side)) to \(name)"
        case .startGather:
            return "Kicked off: \(team(.A)) v \(team(.B))"
        case .score(let side, let delta, let scorer, let assist):
            if delta > 0 { return "Added a goal for \(team(side))" + scorers(scorer, assist) }
            return "Took back a goal for \(team(side))"
        case .setScorer(let seq, let scorer, let assist):
            guard let scored = goal(seq), let side = scored.team else { return "Named a scorer" }
            if scorer == nil { return "Cleared the scorer of a goal for \(team(side))" }
            return "Named the scorer of a goal for \(team(side))" + scorers(scorer, assist)
        case .cancelGoal(let seq):
            guard let scored = goal(seq), let side = scored.team else { return "Cancelled a goal" }
            return "Cancelled a goal for \(team(side))" + scorers(scored.playerId, scored.assistId)
        case .balanceTeams:
            return "Balanced the teams"
        case .setTimer(let minutes, let seconds):
            return "Set the timer to \(minutes):\(seconds < 10 ? "0" : "")\(seconds)"
        case .startTimer:
            return "Started the timer"
        case .pauseTimer:
            return "Paused the timer"
        case .resetTimer:
            return "Reset the timer"
        case .endGather:
            guard let before else { return "Ended the gather" }
            return "Ended the gather: \(team(.A)) \(before.score.A)–\(before.score.B) \(team(.B))"
        case .cancelGather:
            return "Cancelled the gather"
        @unknown default:
            return "Changed the gather"
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
        case "timerExpired": "Full time: the timer ran out"
        default: "Changed the gather (\(kind))"
        }
    }

    /// The pitch of an old journal row, from its subjects (pitch 1's are spelled without `@`).
    public static func pitch(of subjects: Set<Subject>) -> Int? {
        let pitches = Set(subjects.compactMap { subject -> Int? in
            switch subject {
            case .player: nil
            case .pitch(let id), .score(let id, _), .teamName(let id, _), .timer(let id), .gather(let id),
                 .goal(let id, _): id
            @unknown default: nil
            }
        })
        return pitches.count == 1 ? pitches.first : nil
    }
}
