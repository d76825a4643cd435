import GatherModel

/// `/api/players.json` and `/api/players.csv`: every roster player's record, for the table on the
/// spectator page and for spreadsheets. The CSV follows `HistoryExport`'s quoting and formula guard.
public enum PlayersExport {
    public static let columns = [
        "id", "name", "position", "skill", "rating", "games", "wins", "draws", "losses", "goals", "assists",
    ]

    public static func json(_ players: [Player]) -> [UInt8] {
        JSONWriter.bytes(["players": .array(players.map { player in
            ["id": .int(player.id), "name": .string(player.name),
             "position": player.position.map { .string($0.rawValue) } ?? .null,
             "skill": player.skill.map { .string($0.rawValue) } ?? .null,
             "rating": .int(player.rating), "stats": StatePresenter.json(player.stats)]
        })])
    }

    public static func csv(_ players: [Player]) -> String {
        var lines = [columns.joined(separator: ",")]
        for player in players {
            let stats = player.stats
            let fields = [
                String(player.id), HistoryExport.text(player.name), player.position?.rawValue ?? "",
                player.skill?.rawValue ?? "", String(player.rating), String(stats.games), String(stats.wins),
                String(stats.draws), String(stats.losses), String(stats.goals), String(stats.assists),
            ]
            lines.append(fields.map(HistoryExport.quoted).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}
