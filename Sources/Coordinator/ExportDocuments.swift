import Foundation
import GatherModel
import GatherPresenters

/// The finished-gather exports (`/api/history.json`, `/api/history.csv`), rendered on the
/// Coordinator's queue when a gather ends and handed to the HTTP routes ready to send, so a
/// download costs the Transport's service thread no SQLite read and no rendering.
public final class ExportDocuments: @unchecked Sendable {
    public struct Rendered: Sendable {
        public var historyJSON: [UInt8] = HistoryPresenter.json([])
        public var historyCSV: [UInt8] = Array(HistoryExport.csv([]).utf8)
    }

    private let lock = NSLock()
    private var rendered = Rendered()
    /// Every finished gather, newest first; Coordinator's queue only.
    private var history: [HistoryEntry] = []

    public init() {}

    public func read() -> Rendered { lock.withLock { rendered } }

    /// The whole history, once, at start.
    func load(history entries: [HistoryEntry]) {
        history = entries
        render()
    }

    /// Takes in the gathers that ended since the last call: the live state's recent list starts
    /// with them. Cheap when nothing ended (one id comparison per change).
    func follow(recent: [HistoryEntry]) {
        guard let newest = recent.first, newest.id != history.first?.id else { return }
        let known = history.first?.id
        let ended = recent.prefix { $0.id != known }
        history.insert(contentsOf: ended, at: 0)
        render()
    }

    private func render() {
        let next = Rendered(historyJSON: HistoryPresenter.json(history), historyCSV: Array(HistoryExport.csv(history).utf8))
        lock.withLock { rendered = next }
    }
}
