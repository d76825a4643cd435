import GatherModel

/// Finished gathers as CSV for `/api/history.csv`: RFC 4180 (CRLF line ends, fields quoted when they
/// hold a comma, a quote, CR or LF, quotes doubled), with a header row.
///
/// Names come from whoever typed them on a phone, and the file is meant to be opened in a spreadsheet,
/// so a text field starting with `=`, `+`, `-`, `@`, tab or CR gets a leading `'`: the spreadsheet then
/// shows it as text instead of running it as a formula (OWASP "CSV injection").
public enum HistoryExport {
    public static let columns = [
        "id", "ended_at", "team_a", "team_a_players", "team_b", "team_b_players", "score_a", "score_b", "winner",
        "pitch", "goals", "penalties_a", "penalties_b", "corrected_at", "corrected_by",
    ]

    /// One row per entry, in the order given (the Store gives newest first). `roster` names the
    /// scorers who were no longer on a team when the gather ended.
    public static func csv(_ entries: [HistoryEntry], roster: [Player.ID: String] = [:]) -> String {
        var lines = [columns.joined(separator: ",")]
        for entry in entries {
            let fields = [
                text(entry.id),
                iso8601(epochMilliseconds: entry.endedAt),
                text(entry.teamA.name),
                text(playerNames(entry.teamA)),
                text(entry.teamB.name),
                text(playerNames(entry.teamB)),
                String(entry.score.A),
                String(entry.score.B),
                entry.winner.rawValue,
                text(entry.pitch.name),
                text(goals(entry, roster: roster)),
                entry.penalties.map { String($0.A) } ?? "",
                entry.penalties.map { String($0.B) } ?? "",
                entry.correctedAt.map(iso8601(epochMilliseconds:)) ?? "",
                text(entry.correctedBy ?? ""),
            ]
            lines.append(fields.map(quoted).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    // MARK: - Fields

    private static func playerNames(_ lineup: HistoryEntry.Lineup) -> String {
        lineup.players.map(\.name).joined(separator: "; ")
    }

    /// "A 12:34 Ann (Bob); B 20:01 ?": team, time played, scorer and (assist), in order.
    static func goals(_ entry: HistoryEntry, roster: [Player.ID: String]) -> String {
        let names = Dictionary((entry.teamA.players + entry.teamB.players).map { ($0.id, $0.name) },
                               uniquingKeysWith: { first, _ in first })
        func name(_ id: Player.ID) -> String { names[id] ?? roster[id] ?? "#\(id)" }
        return entry.goals.map { goal in
            var text = "\(goal.team.rawValue) \(MatchTimer.format(milliseconds: goal.matchMs)) "
                + (goal.playerId.map(name) ?? "?")
            if let assist = goal.assistId { text += " (\(name(assist)))" }
            return text
        }.joined(separator: "; ")
    }

    /// Neutralises a would-be formula; applied to free text only, never to the numbers we write.
    static func text(_ value: String) -> String {
        guard let first = value.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) else { return value }
        return "'" + value
    }

    static func quoted(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else {
            return field
        }
        var result = "\""
        for character in field {
            if character == "\"" { result += "\"\"" } else { result.append(character) }
        }
        return result + "\""
    }

    // MARK: - Dates

    /// `YYYY-MM-DDTHH:MM:SSZ` in UTC, to the second. Computed rather than formatted so that rendering
    /// needs no Foundation formatter (not thread-safe to share) and no locale.
    static func iso8601(epochMilliseconds: Int64) -> String {
        let seconds = floorDivide(epochMilliseconds, 1000)
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(secondOfDay / 3600, 2) + ":"
            + pad(secondOfDay % 3600 / 60, 2) + ":" + pad(secondOfDay % 60, 2) + "Z"
    }

    /// Howard Hinnant's days-to-civil algorithm (proleptic Gregorian calendar).
    private static func civilDate(daysSinceEpoch: Int64) -> (Int64, Int64, Int64) {
        let z = daysSinceEpoch + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
