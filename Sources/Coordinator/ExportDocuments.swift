import Dispatch
import Synchronization
import GatherDelivery
import GatherModel
import GatherPresenters

/// The exports (`/api/history.*`, `/api/players.*`), rendered on the Coordinator's queue when
/// what they show changes and handed to the HTTP routes ready to send, so a download costs the
/// Transport's service thread no SQLite read and no rendering.
///
/// Checked `Sendable`: `history` and `players` are the Coordinator's queue's alone (`QueueBound`),
/// what other threads read is behind the mutex.
public final class ExportDocuments: Sendable {
    public struct Rendered: Sendable {
        public var historyJSON: [UInt8] = HistoryPresenter.json([])
        public var historyCSV: [UInt8] = Array(HistoryExport.csv([]).utf8)
        public var playersJSON: [UInt8] = PlayersExport.json([])
        public var playersCSV: [UInt8] = Array(PlayersExport.csv([]).utf8)
    }

    private let rendered = Mutex(Rendered())
    /// What the documents were rendered from: every finished gather, newest first, and the roster.
    private struct Source {
        var history: [HistoryEntry] = []
        var players: [Player] = []
    }

    private let source: QueueBound<Source>

    /// `queue`: the one queue that loads and follows the state (the Coordinator's).
    public init(queue: DispatchQueue = DispatchQueue(label: "gather.exports")) {
        source = QueueBound(Source(), queue: queue)
    }

    public func read() -> Rendered { rendered.withLock { $0 } }

    /// The whole history, once, at start.
    func load(history entries: [HistoryEntry], players roster: [Player]) {
        source.value = Source(history: entries, players: roster)
        renderHistory()
        renderPlayers()
    }

    /// Takes in what changed: gathers that ended since the last call (the live state's recent
    /// list starts with them) and the roster. Cheap when neither changed.
    func follow(_ state: GatherState) {
        if state.players != source.value.players {
            source.value.players = state.players
            renderPlayers()
        }
        let known = source.value.history.first?.id
        guard let newest = state.history.first, newest.id != known else { return }
        let ended = state.history.prefix { $0.id != known }
        source.value.history.insert(contentsOf: ended, at: 0)
        renderHistory()
    }

    private func renderHistory() {
        let (history, players) = (source.value.history, source.value.players)
        let roster = Dictionary(players.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let json = HistoryPresenter.json(history)
        let csv = Array(HistoryExport.csv(history, roster: roster).utf8)
        rendered.withLock { rendered in
            rendered.historyJSON = json
            rendered.historyCSV = csv
        }
    }

    private func renderPlayers() {
        let players = source.value.players
        let json = PlayersExport.json(players)
        let csv = Array(PlayersExport.csv(players).utf8)
        rendered.withLock { rendered in
            rendered.playersJSON = json
            rendered.playersCSV = csv
        }
    }
}
