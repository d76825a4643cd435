// MARK: - A correction that reaches a history entry the state no longer carries

extension GatherRules {
    /// The history entry `action` would change that `state` does not hold: a `correctResult` on a
    /// tournament match whose entry has left the recent list (the last `recentHistoryLimit`), as
    /// the group stage's do by the end of a day of 32 matches. The Store keeps every entry; the
    /// coordinator reads this one and hands it to `apply(_:to:context:stored:)`, so the rules stay pure.
    public static func storedHistoryNeeded(by action: Action, in state: GatherState) -> String? {
        guard case .tournament(.correctResult(let match, _, _)) = action,
              let id = state.tournament?.match(match)?.historyId,
              !state.history.contains(where: { $0.id == id })
        else { return nil }
        return id
    }

    /// `apply` with `stored` (the entry `storedHistoryNeeded` named, as the Store keeps it) in
    /// view: the state changes exactly as `apply` would change it if it still carried the entry
    /// (the players' records follow the corrected result, a pitch whose full time shows the entry
    /// too), and the entry comes back when the action changed it — for the Store to rewrite and the
    /// exports to follow. The state never keeps it: its recent list stays the newest entries.
    public static func apply(_ action: Action, to state: inout GatherState, context: ActionContext,
                             stored: HistoryEntry?) -> Result<HistoryEntry?, Rejection>
    {
        guard let stored, !state.history.contains(where: { $0.id == stored.id }) else {
            return apply(action, to: &state, context: context).map { nil }
        }
        // Seen at the old end of the list, where it would be had the list no limit.
        var widened = state
        widened.history.append(stored)
        switch apply(action, to: &widened, context: context) {
        case .failure(let rejection):
            return .failure(rejection)
        case .success:
            let index = widened.history.lastIndex { $0.id == stored.id }
            let amended = index.map { widened.history.remove(at: $0) }
            state = widened
            return .success(amended == stored ? nil : amended)
        }
    }
}
