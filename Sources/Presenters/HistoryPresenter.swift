import GatherModel

/// `/api/history.json`: every finished gather, newest first, in the same shape as `state.history`.
public enum HistoryPresenter {
    public static func json(_ entries: [HistoryEntry]) -> [UInt8] {
        JSONWriter.bytes(["history": .array(entries.map(StatePresenter.json))])
    }
}
