import Synchronization
import GatherModel
import GatherPresenters

/// The exports (`/api/history.*`, `/api/players.*`), rendered on the Coordinator's queue when
/// what they show changes and handed to the HTTP routes ready to send, so a download costs the
/// Transport's service thread no SQLite read and no rendering.
///
/// Unchecked only for `history` and `players`, which the Coordinator's queue alone touches; what
/// other threads read is behind the mutex.
public final class ExportDocuments: @unchecked Sendable {
    public struct Rendered: Sendable {
        public var historyJSON: [UInt8] = HistoryPresenter.json([])
        public var historyCSV: [UInt8] = Array(HistoryExport.csv([]).utf8)
        public var playersJSON: [UInt8] = PlayersExport.json([])
        public var playersCSV: [UInt8] = Array(PlayersExport.csv([]).utf8)
    }

    private let rendered = Mutex(Rendered())
    /// Every finished gather, newest first; Coordinator's queue only.
    private var history: [HistoryEntry] = []
    private var players: [Player] = []

    public init() {}

    public func read() -> Rendered { rendered.withLock { $0 } }

    /// The whole history, once, at start.
    func load(history entries: [HistoryEntry], players roster: [Player]) {
        history = entries
        players = roster
        renderHistory()
        renderPlayers()
    }

    /// Takes in what changed: gathers that ended since the last call (the live state's recent
    /// list starts with them) and the roster. Cheap when neither changed.
    func follow(_ state: GatherState) {
        if state.players != players {
            players = state.players
            renderPlayers()
        }
        guard let newest = state.history.first, newest.id != history.first?.id else { return }
        let known = history.first?.id
        let ended = state.history.prefix { $0.id != known }
        history.insert(contentsOf: ended, at: 0)
        renderHistory()
    }

    private func renderHistory() {
        let roster = Dictionary(players.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let json = HistoryPresenter.json(history)
        let csv = Array(HistoryExport.csv(history, roster: roster).utf8)
        rendered.withLock { rendered in
            rendered.historyJSON = json
            rendered.historyCSV = csv
        }
    }

    private func renderPlayers() {
        let json = PlayersExport.json(players)
        let csv = Array(PlayersExport.csv(players).utf8)
        rendered.withLock { rendered in
            rendered.playersJSON = json
            rendered.playersCSV = csv
        }
    }
}
