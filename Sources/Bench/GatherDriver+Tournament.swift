import Foundation

/// A tournament day over the wire, as the organisers on each pitch play it: pitches added,
/// `createTournament`, then slot by slot every pitch's next match kicked off, its goals pressed
/// pitch after pitch, and full time (penalties when a knockout match is level).
extension GatherDriver {
    /// The state once organiser 0 holds the version the last command made (its reply can come
    /// before its snapshot).
    func settledState() -> [String: Any] {
        let version = currentVersion
        organiserEngine.wait(seconds: 10) { ($0.organiserVersions[0] ?? -1) >= version }
        return latestState()
    }

    /// Adds pitches until the venue has `count`; returns their ids in order.
    func ensurePitches(_ count: Int) throws -> [Int] {
        var ids = pitchIDs()
        while ids.count < count {
            try require(["kind": "addPitch", "name": "Bench pitch \(ids.count + 1)"])
            ids = pitchIDs()
        }
        return Array(ids.prefix(count))
    }

    private func pitchIDs() -> [Int] {
        ((settledState()["pitches"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? Int }.sorted()
    }

    /// The tournament in the state, or nil.
    func tournament() -> [String: Any]? { settledState()["tournament"] as? [String: Any] }

    /// What a day's match scores, fixed by its id so every run plays the same day: 0–3 goals for
    /// the home team, 0–2 for the away team (a quarter of the matches level).
    static func plannedScore(match id: Int) -> (home: Int, away: Int) { ((id * 7) % 4, (id * 5 + 1) % 3) }

    /// The matches to kick off now: on each pitch its lowest-numbered match not yet played, when
    /// its two teams are known and nothing is live there.
    static func nextKickOffs(_ tournament: [String: Any]) -> [[String: Any]] {
        let matches = (tournament["matches"] as? [[String: Any]]) ?? []
        var busy = Set(matches.filter { $0["status"] as? String == "live" }.compactMap { $0["pitch"] as? Int })
        var kickOffs: [[String: Any]] = []
        for match in matches where match["status"] as? String == "scheduled" {
            guard let pitch = match["pitch"] as? Int, !busy.contains(pitch) else { continue }
            busy.insert(pitch)  // a later match on this pitch waits for this one
            if match["home"] is Int, match["away"] is Int { kickOffs.append(match) }
        }
        return kickOffs
    }
}
