import GatherModel

/// `/api/tournament.ics[?team=ID]`: the schedule as an iCalendar feed a phone subscribes to, so a
/// player's calendar follows the team (docs/PROTOCOL.md "Endpoints and pages"). One `VEVENT` per
/// match, its `UID` made of the tournament's and the match's ids (never changes), its `SEQUENCE`
/// the match's `revision` (up each time its time or teams change; kept in the Store, so the same
/// after a restart).
public enum TournamentCalendar {
    public static let productID = "-//Football Gather Live//Tournament//EN"

    /// `team`: only the matches it is known to play. `now` is the feed's `DTSTAMP`. The route
    /// answers `404` for a team the tournament does not have (`tournament.team(id) == nil`); no
    /// tournament is an empty calendar.
    public static func ics(_ tournament: Tournament?, team: TournamentTeam.ID? = nil, pitchNames: [Pitch.ID: String],
                           now: Int64) -> String
    {
        var calendar = ICalendarText()
        calendar.property("BEGIN", "VCALENDAR")
        calendar.property("VERSION", "2.0")
        calendar.property("PRODID", productID)
        calendar.property("CALSCALE", "GREGORIAN")
        calendar.property("METHOD", "PUBLISH")
        if let tournament {
            let teamName = team.flatMap(tournament.team).map { " – " + $0.name } ?? ""
            calendar.text("X-WR-CALNAME", tournament.name + teamName)
            for match in tournament.matches where team == nil || match.involves(team!) {
                event(match, of: tournament, pitchNames: pitchNames, now: now, into: &calendar)
            }
        }
        calendar.property("END", "VCALENDAR")
        return calendar.document
    }

    private static func event(_ match: TournamentMatch, of tournament: Tournament, pitchNames: [Pitch.ID: String],
                              now: Int64, into calendar: inout ICalendarText)
    {
        calendar.property("BEGIN", "VEVENT")
        calendar.property("UID", "\(uidPart(tournament.id))-match-\(match.id)@football-gather.local")
        calendar.property("DTSTAMP", ICalendarText.dateTime(epochMilliseconds: now))
        calendar.property("SEQUENCE", String(match.revision))
        calendar.property("DTSTART", ICalendarText.dateTime(epochMilliseconds: match.expectedAt))
        calendar.property("DURATION", ICalendarText.duration(minutes: tournament.rules.matchMinutes))
        calendar.text("SUMMARY", summary(match, of: tournament))
        calendar.text("LOCATION", pitchNames[match.pitch] ?? Pitch.defaultName(for: match.pitch))
        calendar.text("DESCRIPTION", description(match, of: tournament))
        calendar.property("END", "VEVENT")
    }

    /// "Reds v Blues (Group A)"; "Semi-final: A1 v B2" while the places are not known.
    public static func summary(_ match: TournamentMatch, of tournament: Tournament) -> String {
        let teams = tournament.placeLabel(match, home: true) + " v " + tournament.placeLabel(match, home: false)
        if match.stage == .group { return teams + " (Group \(match.group ?? "?"))" }
        return stageName(match.stage) + ": " + teams
    }

    /// "Match 5 of Riverside Cup." then, once finished, the result: "Full time: Reds 2–1 Blues
    /// (4–3 on penalties)."
    public static func description(_ match: TournamentMatch, of tournament: Tournament) -> String {
        var text = "Match \(match.id) of \(tournament.name)."
        switch match.status {
        case .scheduled: break
        case .live: text += " Being played now."
        case .finished:
            if let score = match.score {
                text += " Full time: \(tournament.placeLabel(match, home: true)) \(score.home)–\(score.away) "
                    + tournament.placeLabel(match, home: false)
                if let penalties = match.penalties { text += " (\(penalties.home)–\(penalties.away) on penalties)" }
                text += "."
            }
        }
        return text
    }

    public static func stageName(_ stage: TournamentStage) -> String {
        switch stage {
        case .group: "Group"
        case .roundOf32: "Round of 32"
        case .roundOf16: "Round of 16"
        case .quarterFinal: "Quarter-final"
        case .semiFinal: "Semi-final"
        case .thirdPlace: "Third place"
        case .final: "Final"
        }
    }

    /// A UID is ASCII without spaces; a tournament id is ours (a UUID), but this keeps the line
    /// valid whatever it holds.
    private static func uidPart(_ id: String) -> String {
        String(id.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }
            .map(Character.init))
    }
}
