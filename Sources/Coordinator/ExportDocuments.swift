import Dispatch
import Synchronization
import GatherDelivery
import GatherModel
import GatherPresenters

/// The exports (`/api/history.*`, `/api/players.*`, `/api/tournament*`), rendered on the Coordinator's queue when
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
        public var tournamentJSON: [UInt8] = TournamentPresenter.document(nil)
        public var tournamentsJSON: [UInt8] = TournamentPresenter.list([])
        public var tournamentCSV: [UInt8] = Array(TournamentExport.csv(nil, pitchNames: [:]).utf8)
        /// What the calendar feeds are made of (`calendar(team:now:)`).
        public var tournament: Tournament?
        public var pitchNames: [Pitch.ID: String] = [:]
        /// Goes up each time the tournament's documents are rendered again.
        var tournamentGeneration = 0
        /// Goes up each time the history changes (a gather ended, a result corrected): the venue
        /// stream's results publisher reads the history only then.
        public var historyGeneration = 0
    }

    private let rendered = Mutex(Rendered())
    /// The calendar feeds already asked for since the tournament last changed, by team (0: the
    /// whole feed): rendered on the first request, at most one per team (64) plus one, and dropped
    /// when the tournament changes, so a subscribed phone polling the feed costs a lookup.
    private let calendars = Mutex((generation: 0, byTeam: [Int: [UInt8]]()))
    /// What the documents were rendered from: every finished gather, newest first, and the roster.
    private struct Source {
        var history: [HistoryEntry] = []
        var players: [Player] = []
        /// Every tournament kept, newest first, and whether it was cancelled.
        var tournaments: [(tournament: Tournament, cancelled: Bool)] = []
        var tournament: Tournament?
        var pitchNames: [Pitch.ID: String] = [:]
    }

    private let source: QueueBound<Source>

    /// `queue`: the one queue that loads and follows the state (the Coordinator's).
    public init(queue: DispatchQueue = DispatchQueue(label: "gather.exports")) {
        source = QueueBound(Source(), queue: queue)
    }

    public func read() -> Rendered { rendered.withLock { $0 } }

    /// `/api/tournament.ics[?team=ID]`; nil for a team the tournament does not have (or any team
    /// while there is none). `now`, the feed's `DTSTAMP`, is when it was first asked for since the
    /// tournament last changed.
    public func calendar(team: TournamentTeam.ID?, now: Int64) -> [UInt8]? {
        let (tournament, pitchNames, generation) = rendered.withLock {
            ($0.tournament, $0.pitchNames, $0.tournamentGeneration)
        }
        if let team, tournament?.team(team) == nil { return nil }
        let key = team ?? 0
        if let kept = calendars.withLock({ $0.generation == generation ? $0.byTeam[key] : nil }) { return kept }
        let body = Array(TournamentCalendar.ics(tournament, team: team, pitchNames: pitchNames, now: now).utf8)
        // Kept only while it is of the newest tournament rendered (a change may have landed meanwhile).
        calendars.withLock { kept in
            if generation > kept.generation { kept = (generation, [:]) }
            if generation == kept.generation { kept.byTeam[key] = body }
        }
        return body
    }

    /// The whole history, once, at start.
    func load(history entries: [HistoryEntry], players roster: [Player],
              tournaments: [(tournament: Tournament, cancelled: Bool)] = [], state: GatherState? = nil) {
        source.value = Source(history: entries, players: roster, tournaments: tournaments,
                              tournament: state?.tournament, pitchNames: state.map(Self.pitchNames) ?? [:])
        renderHistory()
        renderPlayers()
        renderTournament()
    }

    /// Takes in what changed: gathers that ended since the last call (the live state's recent
    /// list starts with them), entries of that list changed since (a corrected result) and the
    /// roster. Cheap when none changed.
    func follow(_ state: GatherState) {
        followTournament(state)
        if state.players != source.value.players {
            source.value.players = state.players
            renderPlayers()
        }
        var changed = false
        let known = source.value.history.first?.id
        if let newest = state.history.first, newest.id != known {
            let ended = state.history.prefix { $0.id != known }
            source.value.history.insert(contentsOf: ended, at: 0)
            changed = true
        }
        // The recent list is the newest end of the whole history, in the same order.
        for (index, entry) in state.history.enumerated() where index < source.value.history.count {
            guard source.value.history[index].id == entry.id, source.value.history[index] != entry else { continue }
            source.value.history[index] = entry
            changed = true
        }
        if changed { renderHistory() }
    }

    /// Entries older than the live state's recent list that a change corrected (the recent list's
    /// own corrections come through `follow`): each replaces the one with its id, in its place.
    func amend(_ entries: [HistoryEntry]) {
        var changed = false
        for entry in entries {
            guard let index = source.value.history.firstIndex(where: { $0.id == entry.id }),
                  source.value.history[index] != entry else { continue }
            source.value.history[index] = entry
            changed = true
        }
        if changed { renderHistory() }
    }

    private func renderHistory() {
        let (history, players) = (source.value.history, source.value.players)
        let roster = Dictionary(players.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let json = HistoryPresenter.json(history)
        let csv = Array(HistoryExport.csv(history, roster: roster).utf8)
        rendered.withLock { rendered in
            rendered.historyJSON = json
            rendered.historyCSV = csv
            rendered.historyGeneration += 1
        }
    }

    /// A tournament created, changed or cancelled since the last call: the list follows (a new one
    /// first; one that left the state without a successor was cancelled), and the documents.
    private func followTournament(_ state: GatherState) {
        let names = Self.pitchNames(state)
        guard state.tournament != source.value.tournament || names != source.value.pitchNames else { return }
        let before = source.value.tournament
        source.value.tournament = state.tournament
        source.value.pitchNames = names
        if let now = state.tournament {
            if let index = source.value.tournaments.firstIndex(where: { $0.tournament.id == now.id }) {
                source.value.tournaments[index].tournament = now
            } else {
                source.value.tournaments.insert((now, false), at: 0)
            }
        } else if let before, let index = source.value.tournaments.firstIndex(where: { $0.tournament.id == before.id }) {
            source.value.tournaments[index].cancelled = true
        }
        renderTournament()
    }

    private static func pitchNames(_ state: GatherState) -> [Pitch.ID: String] {
        Dictionary(state.pitches.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
    }

    private func renderTournament() {
        let source = source.value
        let json = TournamentPresenter.document(source.tournament)
        let list = TournamentPresenter.list(source.tournaments)
        let csv = Array(TournamentExport.csv(source.tournament, pitchNames: source.pitchNames).utf8)
        rendered.withLock { rendered in
            rendered.tournamentJSON = json
            rendered.tournamentsJSON = list
            rendered.tournamentCSV = csv
            rendered.tournament = source.tournament
            rendered.pitchNames = source.pitchNames
            rendered.tournamentGeneration += 1
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
