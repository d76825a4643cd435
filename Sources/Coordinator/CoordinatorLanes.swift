import GatherDelivery

/// The work waiting for the Coordinator's queue, in lanes, so what a spectator sends can never
/// delay a tick or an organiser's command (under a flood: one spectator's junk once pushed the queue's
/// round trip to 23 s). The order of work, as docs/PROTOCOL.md §12 states it:
///
/// 1. **Timers** (countdown ticks, presence) are Dispatch timers on the queue itself: the queue
///    runs the lanes in short batches (`batchItems`, `batchNanoseconds`), so a timer that fires
///    waits for one batch at most, whatever the lanes hold.
/// 2. **Control**: connections opened, password-check results, "your messages were dropped"
///    notices. Never dropped; bounded by the Transport's connection limits.
/// 3. **Organisers**: messages (and the close) of connections signed in as organisers, in order.
/// 4. **Spectators**: messages of every other connection, one connection at a time in turn, so a
///    connection that floods only waits behind itself.
///
/// Lanes 3 and 4 are bounded per connection and in total; a message beyond a bound is dropped and
/// its connection told once how many were (`CoordinatorEvent.messagesDropped`). A value type,
/// free of locks and clocks, so tests hold every rule; `GatherCoordinator` keeps it under a lock.
struct CoordinatorLanes {
    struct Limits {
        var organiserPerConnection = 512
        var organiserTotal = 4_096
        var spectatorPerConnection = 512
        var spectatorTotal = 8_192
        var spectatorBytes = 32 << 20
        /// A batch ends after this many events or this long, whichever comes first.
        var batchItems = 32
        var batchNanoseconds: UInt64 = 4_000_000
    }

    enum Lane: String, CaseIterable, Sendable {
        case control, organiser, spectator
    }

    private struct Waiting {
        var event: CoordinatorEvent
        var bytes: Int
        /// Monotonic nanoseconds when it arrived.
        var since: UInt64
    }

    let limits: Limits
    private var control: [Waiting] = []
    private var organiser: [Waiting] = []
    private var organiserCount: [ConnectionID: Int] = [:]
    private var spectator: [ConnectionID: [Waiting]] = [:]
    /// Spectator connections with messages waiting, in turn order.
    private var turn: [ConnectionID] = []
    private var spectatorCount = 0
    private var spectatorBytes = 0
    private var organisers: Set<ConnectionID> = []
    /// Messages dropped per connection since it was last told.
    private var untold: [ConnectionID: Int] = [:]
    private(set) var droppedTotal = 0

    init(limits: Limits = Limits()) {
        self.limits = limits
    }

    // MARK: - In

    /// Files `event` in its lane; false when it was dropped (a message beyond a bound).
    @discardableResult
    mutating func push(_ event: CoordinatorEvent, now: UInt64) -> Bool {
        switch event {
        case .messageReceived(let client, let text):
            let item = Waiting(event: event, bytes: text.utf8.count, since: now)
            if organisers.contains(client) {
                guard organiserCount[client, default: 0] < limits.organiserPerConnection,
                      organiser.count < limits.organiserTotal
                else { return drop(client, now: now) }
                organiser.append(item)
                organiserCount[client, default: 0] += 1
            } else {
                guard spectator[client, default: []].count < limits.spectatorPerConnection,
                      spectatorCount < limits.spectatorTotal, spectatorBytes + item.bytes <= limits.spectatorBytes
                else { return drop(client, now: now) }
                if spectator[client] == nil { turn.append(client) }
                spectator[client, default: []].append(item)
                spectatorCount += 1
                spectatorBytes += item.bytes
            }
        case .clientDisconnected(let client):
            // A close follows the connection's messages, whatever the bounds: a command sent just
            // before leaving still lands, and a login abandoned before its answer still counts.
            let item = Waiting(event: event, bytes: 0, since: now)
            if organisers.contains(client) {
                organiser.append(item)
                organiserCount[client, default: 0] += 1
            } else {
                if spectator[client] == nil { turn.append(client) }
                spectator[client, default: []].append(item)
                spectatorCount += 1
            }
        default:
            control.append(Waiting(event: event, bytes: 0, since: now))
        }
        return true
    }

    /// The connection signed in (true) or out (false). Its waiting messages keep their order:
    /// on signing in they move to the organisers' lane, which runs first.
    mutating func setOrganiser(_ client: ConnectionID, _ isOrganiser: Bool) {
        guard isOrganiser else { return _ = organisers.remove(client) }
        guard organisers.insert(client).inserted else { return }
        let waiting = spectator[client] ?? []
        forgetSpectator(client)
        organiser.append(contentsOf: waiting)
        organiserCount[client, default: 0] += waiting.count
    }

    // MARK: - Out

    /// The next event in order (control, organisers, spectators in turn); nil when all are empty.
    mutating func next() -> CoordinatorEvent? {
        if !control.isEmpty {
            let event = control.removeFirst().event
            if case .messagesDropped(let client, _) = event {
                return .messagesDropped(client, count: untold.removeValue(forKey: client) ?? 0)
            }
            return event
        }
        if !organiser.isEmpty {
            let item = organiser.removeFirst()
            if let client = item.event.client {
                organiserCount[client, default: 1] -= 1
                if organiserCount[client] == 0 { organiserCount[client] = nil }
                if case .clientDisconnected = item.event { organisers.remove(client) }
            }
            return item.event
        }
        guard !turn.isEmpty else { return nil }
        let client = turn.removeFirst()
        var waiting = spectator[client] ?? []
        let item = waiting.removeFirst()
        spectatorCount -= 1
        spectatorBytes -= item.bytes
        if case .clientDisconnected = item.event { untold[client] = nil }
        if waiting.isEmpty {
            spectator[client] = nil
        } else {
            spectator[client] = waiting
            turn.append(client)
        }
        return item.event
    }

    // MARK: - Metrics

    func depth(_ lane: Lane) -> Int {
        switch lane {
        case .control: control.count
        case .organiser: organiser.count
        case .spectator: spectatorCount
        }
    }

    /// How long the oldest waiting event of the lane has waited, in ns (0 when empty).
    func oldestWait(_ lane: Lane, now: UInt64) -> UInt64 {
        let since: UInt64? = switch lane {
        case .control: control.first?.since
        case .organiser: organiser.first?.since
        case .spectator: turn.compactMap { spectator[$0]?.first?.since }.min()
        }
        guard let since else { return 0 }
        return now >= since ? now - since : 0
    }

    // MARK: - Helpers

    private mutating func drop(_ client: ConnectionID, now: UInt64) -> Bool {
        droppedTotal += 1
        if untold[client] == nil {
            control.append(Waiting(event: .messagesDropped(client, count: 0), bytes: 0, since: now))
        }
        untold[client, default: 0] += 1
        return false
    }

    private mutating func forgetSpectator(_ client: ConnectionID) {
        guard let waiting = spectator.removeValue(forKey: client) else { return }
        spectatorCount -= waiting.count
        spectatorBytes -= waiting.reduce(0) { $0 + $1.bytes }
        turn.removeAll { $0 == client }
    }
}

extension CoordinatorEvent {
    /// The connection a lane files this event under.
    var client: ConnectionID? {
        switch self {
        case .clientConnected(let id, _, _, _), .clientDisconnected(let id), .messageReceived(let id, _),
             .messagesDropped(let id, _): id
        default: nil
        }
    }
}
