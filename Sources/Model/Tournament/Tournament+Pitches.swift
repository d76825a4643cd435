/// A tournament's matches and the venue's pitches (docs/PROTOCOL.md "A pitch with unplayed
/// matches"): a pitch that still has matches to play cannot go, and its matches can be moved to
/// another of the tournament's pitches in one change.
extension Tournament {
    /// The matches still to be played on `pitch` (scheduled, not yet started), in the order the
    /// pitch plays them: by planned start, then id.
    public func unplayedMatches(on pitch: Pitch.ID) -> [TournamentMatch.ID] {
        matches.filter { $0.pitch == pitch && $0.status == .scheduled }
            .sorted { ($0.plannedAt, $0.id) < ($1.plannedAt, $1.id) }
            .map(\.id)
    }

    /// `moveMatches`: every unplayed match of `from` goes to `to`, which then plays its live match
    /// and its unplayed matches by planned start (the moved ones keep their order among them);
    /// `expectedAt` follows. Refused `wrong_phase` on a finished tournament, `invalid` when `to`
    /// is `from` or not among `rules.pitches` (`venuePitches` also must hold it), `not_found`
    /// when `from` has nothing to move.
    public mutating func moveMatches(from: Pitch.ID, to: Pitch.ID, venuePitches: Set<Pitch.ID>, now: Int64?) throws {
        guard phase != .finished else {
            throw Rejection(.wrongPhase, .tournamentFinished, ["tournament": .text(name)],
                            "\(name) is already finished; there is nothing to move.")
        }
        guard to != from, rules.pitches.contains(to), venuePitches.contains(to) else {
            throw Rejection(.invalid, .moveToTournamentPitch, ["pitch": .number(to)],
                            "Matches can move only to another pitch the tournament is played on, which pitch \(to) is not.")
        }
        let moving = unplayedMatches(on: from)
        guard !moving.isEmpty else {
            throw Rejection(.notFound, .noMatchesToMove, ["pitch": .number(from)],
                            "Pitch \(from) has no matches still to play; there is nothing to move.")
        }
        var next = self
        for id in moving {
            next.matches[next.matchIndex(id)!].pitch = to
        }
        next.settle(after: self, now: now)
        self = next
    }

    /// The refusal of `removePitch` while the tournament still has matches to play on `pitch`.
    public func refusalToRemove(pitch: Pitch.ID, named pitchName: String) -> Rejection? {
        let unplayed = unplayedMatches(on: pitch)
        guard !unplayed.isEmpty else { return nil }
        let list = unplayed.map(String.init).joined(separator: ", ")
        var rejection = Rejection(.inUse, .pitchHasMatches, ["pitch": .text(pitchName), "matches": .text(list)],
                                  "\(pitchName) still has tournament matches to play (\(unplayed.count == 1 ? "match" : "matches") "
                                      + "\(list)); move them to another pitch first.")
        rejection.matches = unplayed
        return rejection
    }
}
