/// The fields of the tournament actions other than `createTournament` (`TournamentSetup`), read
/// from `command.action` with the same checks as every other action: types, ranges, sizes. What
/// needs the tournament (does the match exist, is it finished) is the transitions' to check.
public enum TournamentActionFields {
    /// `setTournamentTeam`: `team`, and any of `name`, `colour`, `players`.
    public static func teamChanges(_ json: JSONValue) -> Result<(TournamentTeam.ID, TournamentTeamChanges), Rejection> {
        read {
            guard let team = json["team"]?.intValue else { throw invalid("Say which team (\"team\", a number).") }
            var changes = TournamentTeamChanges()
            if let value = json["name"] {
                changes.name = try ActionDecoder.text(value, field: "The team's name", length: TournamentSetup.teamNameLength)
            }
            if let value = json["colour"] {
                guard let colour = value.stringValue.flatMap(KitColour.init(rawValue:)) else {
                    throw invalid("\"colour\" must be one of " + KitColour.allCases.map(\.rawValue).joined(separator: ", ") + ".")
                }
                changes.colour = colour
            }
            if let value = json["players"] {
                guard case .array(let values) = value, values.count <= TournamentSetup.playersPerTeam else {
                    throw invalid("\"players\" is a list of at most \(TournamentSetup.playersPerTeam) player ids.")
                }
                let ids = try values.map { value -> Int in
                    guard let id = value.intValue else { throw invalid("Player ids are whole numbers.") }
                    return id
                }
                guard Set(ids).count == ids.count else { throw invalid("Each player can be on the team only once.") }
                changes.players = ids
            }
            guard changes != TournamentTeamChanges() else {
                throw invalid("Say what to change: \"name\", \"colour\" or \"players\".")
            }
            return (team, changes)
        }
    }

    /// `startMatch`'s (and `correctResult`'s) `match`.
    public static func match(_ json: JSONValue) -> Result<TournamentMatch.ID, Rejection> {
        read {
            guard let id = json["match"]?.intValue else { throw invalid("Say which match (\"match\", a number).") }
            return id
        }
    }

    /// `startMatch`: `match`, and `startEarly` (a boolean, default false).
    public static func start(_ json: JSONValue) -> Result<(TournamentMatch.ID, Bool), Rejection> {
        read {
            let id = try match(json).get()
            guard let value = json["startEarly"], !value.isNull else { return (id, false) }
            guard case .bool(let early) = value else { throw invalid("\"startEarly\" is true or false.") }
            return (id, early)
        }
    }

    /// `moveMatches`: `from` and `to`, two pitch ids (whole numbers from 1 to 1,000,000).
    public static func move(_ json: JSONValue) -> Result<(Pitch.ID, Pitch.ID), Rejection> {
        read {
            guard let from = json["from"]?.intValue, let to = json["to"]?.intValue, (1...1_000_000).contains(from),
                  (1...1_000_000).contains(to)
            else { throw invalid("Say which pitch's matches to move (\"from\") and where (\"to\"), two pitch numbers.") }
            return (from, to)
        }
    }

    /// `correctResult`: `match`, `score` `{"home", "away"}` and, for a level knockout score, `penalties`.
    public static func correction(_ json: JSONValue) -> Result<(TournamentMatch.ID, HomeAway, HomeAway?), Rejection> {
        read {
            let id = try match(json).get()
            guard let score = pair(json["score"], "home", "away", range: Score.range) else {
                throw invalid("\"score\" is {\"home\", \"away\"}, each a whole number from 0 to 99.")
            }
            var penalties: HomeAway?
            if let value = json["penalties"], !value.isNull {
                guard let pair = pair(value, "home", "away", range: TournamentSetup.penaltyRange) else {
                    throw invalid("\"penalties\" is {\"home\", \"away\"}, each a whole number from 0 to 99.")
                }
                penalties = pair
            }
            return (id, score, penalties)
        }
    }

    /// `endGather`'s `penalties` `{"A", "B"}` (Team A is home); nil when absent or null.
    public static func endGatherPenalties(_ json: JSONValue) -> Result<HomeAway?, Rejection> {
        read {
            guard let value = json["penalties"], !value.isNull else { return nil }
            guard let pair = pair(value, "A", "B", range: TournamentSetup.penaltyRange) else {
                throw invalid("\"penalties\" is {\"A\", \"B\"}, each a whole number from 0 to 99.")
            }
            return pair
        }
    }

    // MARK: - Helpers

    private static func pair(_ value: JSONValue?, _ first: String, _ second: String, range: ClosedRange<Int>) -> HomeAway? {
        guard case .object(let members)? = value, members.count == 2, let home = members[first]?.intValue,
              let away = members[second]?.intValue, range.contains(home), range.contains(away)
        else { return nil }
        return HomeAway(home: home, away: away)
    }

    private static func read<Value>(_ body: () throws -> Value) -> Result<Value, Rejection> {
        do {
            return .success(try body())
        } catch let rejection as Rejection {
            return .failure(rejection)
        } catch {
            return .failure(invalid("The action could not be read."))
        }
    }

    private static func invalid(_ message: String) -> Rejection { Rejection(.invalid, .actionUnreadable, message) }
}
