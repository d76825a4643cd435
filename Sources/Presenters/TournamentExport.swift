import GatherModel

/// `/api/tournament.csv`: one row per match, for a spreadsheet, with `HistoryExport`'s quoting and
/// formula guard (the route adds the UTF-8 BOM, as for the other CSV exports).
public enum TournamentExport {
    public static let columns = [
        "id", "stage", "group", "pitch", "planned_at", "expected_at", "home", "away", "score_home", "score_away",
        "penalties_home", "penalties_away", "status",
    ]

    /// `pitchNames` names the venue's pitches; a pitch removed since is "Pitch N". No tournament:
    /// the header alone.
    public static func csv(_ tournament: Tournament?, pitchNames: [Pitch.ID: String]) -> String {
        var lines = [columns.joined(separator: ",")]
        for match in tournament?.matches ?? [] {
            let tournament = tournament!
            let fields = [
                String(match.id),
                match.stage.rawValue,
                HistoryExport.text(match.group ?? ""),
                HistoryExport.text(pitchNames[match.pitch] ?? Pitch.defaultName(for: match.pitch)),
                HistoryExport.iso8601(epochMilliseconds: match.plannedAt),
                HistoryExport.iso8601(epochMilliseconds: match.expectedAt),
                HistoryExport.text(tournament.placeLabel(match, home: true)),
                HistoryExport.text(tournament.placeLabel(match, home: false)),
                match.score.map { String($0.home) } ?? "",
                match.score.map { String($0.away) } ?? "",
                match.penalties.map { String($0.home) } ?? "",
                match.penalties.map { String($0.away) } ?? "",
                match.status.rawValue,
            ]
            lines.append(fields.map(HistoryExport.quoted).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}
