// MARK: - A history entry's result: the score, a shoot-out, and a correction

extension Score {
    /// Team A is home.
    public init(_ homeAway: HomeAway) {
        self.init(A: homeAway.home, B: homeAway.away)
    }
}

extension HistoryEntry {
    /// Sets the result: a level score decided by a shoot-out has the shoot-out's winner, so
    /// `draw` means no shoot-out decided it (docs/PROTOCOL.md "One result everywhere").
    public mutating func settle(score: Score, penalties: Score?) {
        self.score = score
        self.penalties = score.A == score.B ? penalties : nil
        if let shootOut = self.penalties, shootOut.A != shootOut.B {
            winner = shootOut.A > shootOut.B ? .A : .B
        } else {
            winner = score.winner
        }
    }
}

extension GatherRules {
    /// `correctResult`'s change to the match's history entry (and the copy a pitch shows at full
    /// time): the score, penalties and winner, `correctedAt` and `correctedBy`; the players'
    /// records lose the old result and gain the new one. Only an entry in the state's history is
    /// found here: an older one is put there for the change by `apply(_:to:context:stored:)`.
    static func correctHistory(_ id: String, score: Score, penalties: Score?, in state: inout GatherState,
                               _ context: ActionContext) {
        guard let index = state.history.firstIndex(where: { $0.id == id }) else { return }
        let before = state.history[index]
        var after = before
        after.settle(score: score, penalties: penalties)
        guard after.score != before.score || after.penalties != before.penalties || after.winner != before.winner else { return }
        after.correctedAt = context.now
        after.correctedBy = context.by
        removeRecords(of: before, from: &state.players)
        applyRecords(of: after, to: &state.players)
        state.history[index] = after
        for pitch in state.pitches.indices where state.pitches[pitch].lastResult?.id == id {
            state.pitches[pitch].lastResult = after
        }
    }
}
