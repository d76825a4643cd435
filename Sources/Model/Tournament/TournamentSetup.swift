/// `createTournament`'s fields read and checked (docs/PROTOCOL.md "Actions"). Unlike the other
/// actions, which stop at the first thing wrong, it names every rule broken, one sentence each:
/// the organiser filled in a whole form and fixes it in one go.
public enum TournamentSetup {
    public static let nameLength = 1...60
    public static let teamNameLength = 1...30
    public static let teamCount = 2...64
    public static let groupCounts = [1, 2, 4, 8, 16]
    /// `groups × advance`: the knockout's places.
    public static let bracketSizes = [2, 4, 8, 16, 32]
    public static let matchMinutes = 1...90
    public static let breakMinutes = 0...60
    public static let points = 0...100
    public static let penaltyRange = 0...99
    /// A team's roster goes whole into a gather, which holds at most 60 players.
    public static let playersPerTeam = ActiveGather.maximumPlayers / 2
    /// 1970 to the end of 9999: anything else is a mistake, not a date.
    public static let startsAtRange: ClosedRange<Int> = 0...253_402_300_799_999
    /// Sentences in one rejection; a pasted list of 64 bad names does not make a page of text.
    static let sentenceLimit = 8

    /// What a valid `createTournament` asks for.
    public struct Draft: Equatable, Sendable {
        public var name: String
        public var teamNames: [String]
        public var groupCount: Int
        public var settings: TournamentSettings
    }

    /// Reads `action`; `pitches` are the venue's pitch ids in order (the default: all of them),
    /// `now` the default start.
    public static func draft(from action: JSONValue, pitches venuePitches: [Pitch.ID], now: Int64) -> Result<Draft, Rejection> {
        var problems: [Problem] = []
        func note(_ body: () throws -> Void) {
            do { try body() } catch let rejection as Rejection { problems.append(Problem(sentence: rejection.reason, rejection.message)) } catch {}
        }
        var name = ""
        note { name = try ActionDecoder.text(action["name"], field: "The tournament's name", length: nameLength)! }

        var teamNames: [String] = []
        if case .array(let values)? = action["teams"], teamCount.contains(values.count) {
            var seen: [String: Int] = [:]
            for (index, value) in values.enumerated() {
                note {
                    let team = try ActionDecoder.text(value, field: "Team \(index + 1)'s name", length: teamNameLength)!
                    let key = VisibleText.comparisonKey(team)
                    if let first = seen[key] {
                        throw Rejection(.invalid, .teamNamesSame, ["first": .number(first + 1), "second": .number(index + 1), "name": .text(team)],
                                        "Teams \(first + 1) and \(index + 1) have the same name (\(team)).")
                    }
                    seen[key] = index
                    teamNames.append(team)
                }
            }
        } else {
            problems.append(Problem(.teamCount, ["lowest": .number(teamCount.lowerBound), "highest": .number(teamCount.upperBound)],
                                    "List \(teamCount.lowerBound) to \(teamCount.upperBound) teams (\"teams\", one name each)."))
        }
        let teams = (action["teams"].flatMap { if case .array(let values) = $0 { values.count } else { nil } }) ?? 0

        let groups = integer(action["groups"], default: nil)
        if let groups, groupCounts.contains(groups) {
            if teamCount.contains(teams), teams < groups * 2 {
                problems.append(Problem(.groupsNeedTeams, ["groups": .number(groups), "teams": .number(groups * 2)],
                                        "\(groups) groups need at least \(groups * 2) teams (two in each)."))
            }
        } else {
            problems.append(Problem(.groupCount, "Choose 1, 2, 4, 8 or 16 groups (\"groups\")."))
        }
        let smallest = groups.map { groupCounts.contains($0) ? teams / $0 : 0 } ?? 0
        let advance = integer(action["advance"], default: nil)
        if let advance, advance >= 1 {
            if smallest >= 2, advance > smallest - 1 {
                problems.append(Problem(.advanceAtMost, ["advance": .number(smallest - 1), "smallest": .number(smallest)],
                                        "At most \(smallest - 1) team\(smallest - 1 == 1 ? "" : "s") per group can go through: "
                                            + "the smallest group has \(smallest)."))
            }
            if let groups, groupCounts.contains(groups), !bracketSizes.contains(groups * advance) {
                problems.append(Problem(.bracketSize, ["groups": .number(groups), "advance": .number(advance),
                                                       "places": .number(groups * advance)],
                                        "Groups × teams going through must be 2, 4, 8, 16 or 32 (now \(groups) × \(advance) = \(groups * advance))."))
            }
        } else {
            problems.append(Problem(.advanceMissing, "Say how many teams of each group go through (\"advance\", at least 1)."))
        }

        let matchMinutes = checked(action["matchMinutes"], default: 12, range: matchMinutes, .matchMinutesRange,
                                   "A match lasts 1 to 90 minutes (\"matchMinutes\").", &problems)
        let breakMinutes = checked(action["breakMinutes"], default: 3, range: breakMinutes, .breakMinutesRange,
                                   "The break between matches is 0 to 60 minutes (\"breakMinutes\").", &problems)
        let startsAt = checked(action["startsAt"], default: Int(now), range: startsAtRange, .startsAtRule,
                               "The start is a time in epoch milliseconds (\"startsAt\").", &problems)
        let pointsForWin = checked(action["pointsForWin"], default: 3, range: points, .pointsForWinRange,
                                   "Points for a win are 0 to 100 (\"pointsForWin\").", &problems)
        let pointsForDraw = checked(action["pointsForDraw"], default: 1, range: points, .pointsForDrawRange,
                                    "Points for a draw are 0 to 100 (\"pointsForDraw\").", &problems)

        var tieBreak = TieBreak.goalDifference
        if let value = action["tieBreak"], !value.isNull {
            if let rule = value.stringValue.flatMap(TieBreak.init(rawValue:)) { tieBreak = rule } else {
                problems.append(Problem(.tieBreakChoice, "The tie-break is \"goalDifference\" or \"headToHead\"."))
            }
        }
        var thirdPlace = false
        if let value = action["thirdPlace"], !value.isNull {
            if case .bool(let flag) = value { thirdPlace = flag } else { problems.append(Problem(.thirdPlaceFlag, "\"thirdPlace\" is true or false.")) }
        }
        if thirdPlace, let groups, let advance, groups * advance < 4 {
            problems.append(Problem(.thirdPlaceNeedsFour, "A third-place match needs at least 4 teams going through."))
        }

        var pitches = venuePitches
        if let value = action["pitches"], !value.isNull {
            pitches = []
            if case .array(let values) = value, (1...Pitch.maximumCount).contains(values.count) {
                for value in values {
                    guard let id = value.intValue else { problems.append(Problem(.pitchNumbers, "Pitches are given by their numbers.")); break }
                    if pitches.contains(id) { problems.append(Problem(.pitchListedTwice, ["pitch": .number(id)], "Pitch \(id) is listed twice.")); break }
                    if !venuePitches.contains(id) { problems.append(Problem(.noSuchPitch, ["id": .number(id)], "There is no pitch \(id).")); break }
                    pitches.append(id)
                }
            } else {
                problems.append(Problem(.pitchesList, ["highest": .number(Pitch.maximumCount)],
                                        "List the pitches to play on (\"pitches\", 1 to \(Pitch.maximumCount) pitch numbers)."))
            }
        }

        guard problems.isEmpty, let groups, let advance else {
            let shown = problems.prefix(sentenceLimit).map(\.message).joined(separator: " ")
            let more = problems.count > sentenceLimit ? " (and \(problems.count - sentenceLimit) more)" : ""
            // One rule broken: its own sentence; several: their number (the page's preview lists them in its language).
            let reason = problems.count == 1 ? problems[0].sentence : Sentence(.tournamentRulesBroken, ["count": .number(problems.count)])
            return .failure(Rejection(.invalid, sentence: reason, shown + more))
        }
        let settings = TournamentSettings(matchMinutes: matchMinutes, breakMinutes: breakMinutes, startsAt: Int64(startsAt),
                                          pitches: pitches, pointsForWin: pointsForWin, pointsForDraw: pointsForDraw,
                                          tieBreak: tieBreak, advance: advance, thirdPlace: thirdPlace)
        return .success(Draft(name: name, teamNames: teamNames, groupCount: groups, settings: settings))
    }

    // MARK: - Fields

    /// One rule broken: its sentence for the pages, its English words for the message.
    struct Problem {
        let sentence: Sentence
        let message: String

        init(sentence: Sentence, _ message: String) {
            self.sentence = sentence
            self.message = message
        }

        init(_ key: SentenceKey, _ params: [String: SentenceParam], _ message: String) {
            self.init(sentence: Sentence(key, params), message)
        }

        init(_ key: SentenceKey, _ message: String) {
            self.init(sentence: Sentence(key), message)
        }
    }

    /// Absent or null: `fallback`; a whole number: it; anything else: nil.
    private static func integer(_ value: JSONValue?, default fallback: Int?) -> Int? {
        guard let value, !value.isNull else { return fallback }
        return value.intValue
    }

    private static func checked(_ value: JSONValue?, default fallback: Int, range: ClosedRange<Int>, _ key: SentenceKey,
                                _ sentence: String, _ problems: inout [Problem]) -> Int
    {
        guard let number = integer(value, default: fallback), range.contains(number) else {
            // The start's range is epoch milliseconds, not a number a person reads.
            let params: [String: SentenceParam] = key == .startsAtRule ? [:]
                : ["lowest": .number(range.lowerBound), "highest": .number(range.upperBound)]
            problems.append(Problem(key, params, sentence))
            return fallback
        }
        return number
    }
}

extension Tournament {
    /// The tournament a valid `createTournament` makes.
    public init(id: ID, draft: TournamentSetup.Draft) {
        self.init(id: id, name: draft.name, teamNames: draft.teamNames, groupCount: draft.groupCount, settings: draft.settings)
    }
}
