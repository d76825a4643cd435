import Foundation

/// Puts a live gather on the server so `score` can be pressed.
extension GatherDriver {
    static let playerPrefix = "Bench player "

    /// Makes sure the roster holds `players` bench players (added once per database).
    func ensureRoster(players: Int) throws -> [Int] {
        var ids = benchPlayerIDs()
        let positions = ["goalkeeper", "defender", "midfielder", "winger", "striker"]
        var next = ids.count + 1
        while ids.count < players {
            try require(["kind": "addPlayer", "name": "\(Self.playerPrefix)\(next)", "age": 20 + next % 20,
                         "skill": "amateur", "position": positions[next % positions.count]])
            next += 1
            ids = benchPlayerIDs()
        }
        return Array(ids.prefix(players))
    }

    /// A fresh gather every time: cancels whatever is active, then create → one player per team →
    /// start → start the timer (so spectators receive ticks while the presses run).
    func startFreshGather(players: Int) throws {
        if !(latestState()["gather"] is NSNull), latestState()["gather"] != nil {
            try require(["kind": "cancelGather"])
        }
        let ids = try ensureRoster(players: max(2, players))
        try require(["kind": "createGather", "playerIds": ids])
        try require(["kind": "assign", "playerId": ids[0], "to": "A"])
        try require(["kind": "assign", "playerId": ids[1], "to": "B"])
        try require(["kind": "startGather"])
        try require(["kind": "startTimer"])
    }

    private func benchPlayerIDs() -> [Int] {
        let players = latestState()["players"] as? [[String: Any]] ?? []
        return players.compactMap { player in
            guard let name = player["name"] as? String, name.hasPrefix(Self.playerPrefix) else { return nil }
            return player["id"] as? Int
        }.sorted()
    }
}
