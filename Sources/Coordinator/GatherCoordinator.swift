import Dispatch
import Synchronization
import Foundation
import GatherDelivery
import GatherModel
import GatherPresenters
import GatherStore
import Logging

/// The slow password KDF, run off the Coordinator's queue.
public struct PasswordService: Sendable {
    public var hash: @Sendable (String) -> String
    public var verify: @Sendable (_ password: String, _ encodedHash: String) -> Bool

    public init(hash: @escaping @Sendable (String) -> String,
                verify: @escaping @Sendable (String, String) -> Bool) {
        self.hash = hash
        self.verify = verify
    }
}

/// The single writer: runs `CoordinatorCore` on one serial Dispatch queue and carries out its
/// effects — rendering them into `Delivery`s for the Transport, the countdown's
/// `DispatchSourceTimer`, the KDF off-queue. It is the Transport's `TransportSource`.
///
/// Checked `Sendable`: what only the queue may touch is in one `QueueBound` box (a precondition
/// on every access, release builds too), what other threads share is behind a mutex, the rest is
/// immutable.
public final class GatherCoordinator: TransportSource, Sendable {
    public let queue: DispatchQueue
    public let metrics: CoordinatorMetrics
    public let exports: ExportDocuments
    /// What waits for the queue, in lanes (`CoordinatorLanes` gives the order); `draining` says a
    /// batch is scheduled or running, so exactly one is.
    private let lanes = LockedLanes()

    /// The queue's own state: the core, the last rendering, the timers.
    private struct Confined {
        let core: CoordinatorCore
        /// The last published version's rendering, for `StateRenderer` to patch the next one from.
        var lastRendering: StateRendering?
        /// While referee links exist: what organisers' state and presence add (docs/PROTOCOL.md §20).
        /// The last organisers' rendering to patch from: nil while organisers read the shared
        /// frames (no links and no club list held, §21.3).
        var organiserView: (referees: JSONValue, connected: [Int])?
        var lastOrganiserRendering: StateRendering?
        /// Connections the Transport was told are organisers (`setAudience`), so it is told only of changes.
        var organiserAudience: Set<ConnectionID> = []
        /// The presence line last published, for the organisers' copy of it.
        var presence: (organisers: [String], spectators: Int, remote: Int) = ([], 0, 0)
        /// One countdown per running timer, all on the Coordinator's queue.
        var countdownTimers: [Pitch.ID: (timer: DispatchSourceTimer, dueAt: Int64)] = [:]
        var presenceTimer: DispatchSourceTimer?
        /// The next referee link's expiry (docs/PROTOCOL.md §20).
        var refereeExpiryTimer: DispatchSourceTimer?
    }

    private let confined: QueueBound<Confined>
    private let environment: CoordinatorEnvironment
    private let passwords: PasswordService
    private let deliver: @Sendable ([Delivery]) -> Void
    /// A clean address's KDF runs at the Coordinator's own priority, so an organiser's login is
    /// not slowed by a crowd's traffic; a suspect's ranks far below (`KDFThreads`).
    private let kdf: KDFThreads
    private let logger: Logger
    private var core: CoordinatorCore { confined.value.core }

    /// Loads the durable state and the whole history for the exports; throws when the Store cannot.
    /// `deliver` is called on the Coordinator's queue with each event's deliveries, in order.
    public init(store: GatherStore, environment: CoordinatorEnvironment, passwords: PasswordService, logger: Logger,
                deliver: @escaping @Sendable ([Delivery]) -> Void) throws {
        let queue = DispatchQueue(label: "gather.coordinator", qos: .userInteractive)
        let core = try CoordinatorCore(store: store, environment: environment, logger: logger)
        self.queue = queue
        self.confined = QueueBound(Confined(core: core), queue: queue)
        self.exports = ExportDocuments(queue: queue)
        self.environment = environment
        self.passwords = passwords
        self.logger = logger
        self.deliver = deliver
        self.kdf = KDFThreads(logger: logger)
        self.metrics = CoordinatorMetrics(queue: { [lanes] in
            let now = DispatchTime.now().uptimeNanoseconds
            return lanes.withLock { box in
                CoordinatorMetrics.QueueReading(
                    depth: Dictionary(uniqueKeysWithValues: CoordinatorLanes.Lane.allCases.map { ($0.rawValue, box.lanes.depth($0)) }),
                    oldestWaitMs: Dictionary(uniqueKeysWithValues: CoordinatorLanes.Lane.allCases.map {
                        ($0.rawValue, Double(box.lanes.oldestWait($0, now: now)) / 1_000_000)
                    }),
                    dropped: box.lanes.droppedTotal)
            }
        })
        let history = try store.allHistory()
        let tournaments = try store.allTournaments()
        queue.sync {
            exports.load(history: history, players: core.state.players, tournaments: tournaments, state: core.state)
            metrics.update(version: core.version, decisions: core.tally)
        }
    }

    /// Finishes a timer that ran out while down and starts the countdown; call once, before traffic.
    public func start() {
        queue.sync { self.execute(self.core.start()) }
    }

    /// The kept invite code, for the start-up banner.
    public func inviteCode() -> String {
        queue.sync { core.inviteCode }
    }

    /// The venue's pitches, for the start-up banner.
    public func pitchNames() -> [(id: Int, name: String)] {
        queue.sync { core.state.pitches.map { ($0.id, $0.name) } }
    }

    /// A request from the laptop (`gather organisers …` over the admin socket), answered on the
    /// Coordinator's queue like any message, its effects (sessions ended) delivered at once.
    /// Called from the admin socket's thread, never from the queue.
    public func admin(_ request: AdminRequest) -> AdminReply {
        queue.sync {
            let (reply, effects) = core.handleAdmin(request)
            execute(effects)
            return reply
        }
    }

    /// Cancels the timers; the Store stays as committed.
    public func stop() {
        queue.sync {
            confined.withValue { confined in
                confined.countdownTimers.values.forEach { $0.timer.cancel() }
                confined.presenceTimer?.cancel()
                confined.countdownTimers = [:]
                confined.presenceTimer = nil
                confined.refereeExpiryTimer?.cancel()
                confined.refereeExpiryTimer = nil
            }
        }
    }

    // MARK: - TransportSource (the Transport's service thread)

    public func connectionOpened(_ id: ConnectionID, remoteAddress: String, protocol wire: WireProtocol, door: Door) {
        post(.clientConnected(id, address: remoteAddress, protocol: wire, door: door))
    }

    public func connectionClosed(_ id: ConnectionID) { post(.clientDisconnected(id)) }

    /// The message waits in its lane (organisers' or spectators'). Once it is handled, or its
    /// lane drops it, the Transport hears so (`.handled`, after the replies it caused): the
    /// Transport reads no further from a connection with too many messages waiting here.
    public func received(_ text: String, from id: ConnectionID) {
        if !post(.messageReceived(id, text: text)) { deliver([.handled(id)]) }
    }

    /// The relays' spectators, from the venue stream's publisher (any thread).
    public func remoteSpectatorsCounted(_ count: Int) { post(.remoteSpectatorsCounted(count)) }

    /// A verified list of the club's stream (any thread).
    public func clubListVerified(_ list: ClubDateList) { post(.clubListVerified(list)) }

    /// The `seq` of each club date's list held at start, for the stream's reader (call before `start`).
    public func heldClubSeqs() -> [String: Int64] {
        queue.sync { Dictionary(core.state.clubDates.map { ($0.date, $0.seq) }, uniquingKeysWith: max) }
    }

    /// Files the event in its lane and makes sure a batch will run; never blocks the caller.
    /// False when the event was dropped (a message beyond its lane's bounds).
    @discardableResult
    private func post(_ event: CoordinatorEvent) -> Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        let (filed, start) = lanes.withLock { box -> (Bool, Bool) in
            let filed = box.lanes.push(event, now: now)
            guard !box.draining else { return (filed, false) }
            box.draining = true
            return (filed, true)
        }
        if start { queue.async { self.drain() } }
        return filed
    }

    /// Runs one short batch of waiting events in lane order, then yields the queue (so timers
    /// that came due run) and schedules the next batch if any are left.
    private func drain() {
        let limits = CoordinatorLanes.Limits()
        let started = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<limits.batchItems {
            let event = lanes.withLock { box -> CoordinatorEvent? in
                let event = box.lanes.next()
                if event == nil { box.draining = false }
                return event
            }
            guard let event else { return }
            // A message's `.handled` rides in the same hand-off as the replies it caused.
            var handled: [Delivery] = []
            if case .messageReceived(let id, _) = event { handled = [.handled(id)] }
            if case .clientDisconnected(let id) = event { confined.value.organiserAudience.remove(id) }
            execute(core.handle(event), then: handled)
            if DispatchTime.now().uptimeNanoseconds - started > limits.batchNanoseconds { break }
        }
        queue.async { self.drain() }
    }

    // MARK: - Effects (on the queue)

    private func execute(_ effects: [Effect], then after: [Delivery] = []) {
        var deliveries: [Delivery] = []
        let now = environment.now()
        for effect in effects {
            switch effect {
            case .greet(let client, let message):
                deliveries.append(.greet(client, MessagePresenter.greeting(message, epoch: environment.epoch)))
            case .send(let client, let message):
                // Who reads the organisers' frames follows the session sent (§20).
                var organiser: Bool?
                switch message {
                case .session(let grant):
                    lanes.withLock { $0.lanes.setOrganiser(client, grant != nil) }
                    organiser = grant != nil
                // A referee's commands are scoring: they take the organisers' lane.
                case .refereeSession:
                    lanes.withLock { $0.lanes.setOrganiser(client, true) }
                    organiser = false
                case .sessionEnded:
                    lanes.withLock { $0.lanes.setOrganiser(client, false) }
                    organiser = false
                default: break
                }
                deliveries.append(.send(client, MessagePresenter.bytes(message)))
                if let organiser, organiser != confined.value.organiserAudience.contains(client) {
                    if organiser { confined.value.organiserAudience.insert(client) } else {
                        confined.value.organiserAudience.remove(client)
                    }
                    deliveries.append(.setAudience(client, organiser: organiser))
                }
            case .publishSnapshot(let version, let state):
                let rendered = StateRenderer.render(version: version, state: state, now: now,
                                                    after: confined.value.lastRendering, epoch: environment.epoch)
                confined.value.lastRendering = rendered.rendering
                deliveries.append(.publishState(rendered.frames))
                let extra = organiserExtra(state, now: now)
                if !extra.isEmpty {
                    deliveries.append(organiserState(version: version, state: state, now: now, extra: extra,
                                                     patchingFrom: confined.value.lastOrganiserRendering))
                }
                exports.follow(state)
            case .exportAmendedHistory(let entries):
                exports.amend(entries)
            case .publishTick(let pitch, let timer):
                deliveries.append(.publishTick(pitch: pitch, bytes: MessagePresenter.bytes(.tick(pitch: pitch, timer: timer,
                                                                                               now: now))))
            case .publishPresence(let organisers, let spectators, let remote):
                metrics.setPresence(organisers: organisers.count, spectators: spectators)
                deliveries.append(.publishPresence(MessagePresenter.bytes(.presence(organisers: organisers,
                                                                                   spectators: spectators,
                                                                                   remote: remote))))
                confined.value.presence = (organisers, spectators, remote)
                if let view = confined.value.organiserView {
                    deliveries.append(organiserPresence(view))
                } else if confined.value.lastOrganiserRendering != nil {
                    deliveries.append(.publishOrganiserPresence(MessagePresenter.bytes(.presence(
                        organisers: organisers, spectators: spectators, remote: remote))))
                }
            case .publishReferees(let links, let connected):
                guard !links.isEmpty else {
                    confined.value.organiserView = nil
                    let presence = confined.value.presence
                    let extra = organiserExtra(core.state, now: now)
                    if !extra.isEmpty {
                        // Organisers keep their own frames for the club's lists: the same version
                        // again without the links, and the shared presence on their timeline.
                        deliveries.append(organiserState(version: core.version, state: core.state, now: now,
                                                         extra: extra, patchingFrom: nil))
                        deliveries.append(.publishOrganiserPresence(MessagePresenter.bytes(.presence(
                            organisers: presence.organisers, spectators: presence.spectators, remote: presence.remote))))
                        break
                    }
                    confined.value.lastOrganiserRendering = nil
                    deliveries.append(.clearOrganiserView)
                    // The shared presence again, newer than the organisers' last (which named links).
                    deliveries.append(.publishPresence(MessagePresenter.bytes(.presence(
                        organisers: presence.organisers, spectators: presence.spectators, remote: presence.remote))))
                    break
                }
                let view = (referees: JSONValue.array(links.map(MessagePresenter.refereeJSON)), connected: connected)
                confined.value.organiserView = view
                // The same version again, with the links: organisers are sent it as a new snapshot.
                deliveries.append(organiserState(version: core.version, state: core.state, now: now,
                                                 extra: organiserExtra(core.state, now: now), patchingFrom: nil))
                deliveries.append(organiserPresence(view))
            case .scheduleCountdown(let pitch, let at):
                scheduleCountdown(pitch: pitch, at: at)
            case .schedulePresence(let at):
                confined.value.presenceTimer = makeTimer(at: at, previous: confined.value.presenceTimer) { [weak self] in
                    guard let self else { return }
                    self.execute(self.core.handle(.presenceWoke))
                }
            case .scheduleRefereeExpiry(let at):
                confined.value.refereeExpiryTimer?.cancel()
                confined.value.refereeExpiryTimer = at.map {
                    makeTimer(at: $0, previous: nil) { [weak self] in
                        guard let self else { return }
                        self.execute(self.core.handle(.refereeExpiryWoke))
                    }
                }
            case .hashPassword(let job):
                kdf.run(for: job.client, fromSuspect: job.fromSuspect) { [passwords] in
                    let encoded = passwords.hash(job.password)
                    self.post(.passwordHashed(job, encodedHash: encoded))
                }
            case .verifyPassword(let job, let encodedHash):
                kdf.run(for: job.client, fromSuspect: job.fromSuspect) { [passwords] in
                    let matches = passwords.verify(job.password, encodedHash)
                    self.post(.passwordChecked(job, matches: matches))
                }
            case .lowerPasswordCheck(let client):
                kdf.lower(client)
            }
        }
        metrics.update(version: core.version, decisions: core.tally)
        deliveries += after
        if !deliveries.isEmpty { deliver(deliveries) }
    }

    /// What organisers' state adds to the shared one: the referee links while any exist (§20), and
    /// the club's lists while the venue holds any (§21.3); empty when organisers read the shared frames.
    private func organiserExtra(_ state: GatherState, now: Int64) -> [String: JSONValue] {
        var extra: [String: JSONValue] = [:]
        if let view = confined.value.organiserView { extra["referees"] = view.referees }
        if !state.clubDates.isEmpty {
            extra["clubDates"] = ClubDatesPresenter.json(state.clubDates, players: state.players, now: now)
        }
        return extra
    }

    /// The organisers' frames of a version: the shared state plus `extra` (`organiserExtra`).
    private func organiserState(version: Int, state: GatherState, now: Int64, extra: [String: JSONValue],
                                patchingFrom previous: StateRendering?) -> Delivery
    {
        let rendered = StateRenderer.render(version: version, state: state, now: now, after: previous,
                                            epoch: environment.epoch, extra: extra)
        confined.value.lastOrganiserRendering = rendered.rendering
        return .publishOrganiserState(rendered.frames)
    }

    private func organiserPresence(_ view: (referees: JSONValue, connected: [Int])) -> Delivery {
        let presence = confined.value.presence
        return .publishOrganiserPresence(MessagePresenter.organiserPresence(
            organisers: presence.organisers, spectators: presence.spectators, remote: presence.remote,
            referees: view.connected))
    }

    private func scheduleCountdown(pitch: Pitch.ID, at: Int64?) {
        let previous = confined.value.countdownTimers.removeValue(forKey: pitch)
        guard let at else {
            previous?.timer.cancel()
            return
        }
        let timer = makeTimer(at: at, previous: previous?.timer) { [weak self] in
            guard let self else { return }
            if let due = self.confined.value.countdownTimers[pitch]?.dueAt {
                self.metrics.recordTickLateness(ms: self.environment.now() - due)
            }
            self.execute(self.core.handle(.countdownWoke(pitch: pitch)))
        }
        confined.value.countdownTimers[pitch] = (timer, at)
    }

    /// A one-shot timer on the Coordinator's queue with a tight leeway, so ticks land on the second.
    private func makeTimer(at: Int64, previous: DispatchSourceTimer?, handler: @escaping () -> Void)
        -> DispatchSourceTimer
    {
        previous?.cancel()
        let delay = max(0, at - environment.now())
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .milliseconds(Int(delay)), leeway: .milliseconds(2))
        timer.setEventHandler(handler: handler)
        timer.resume()
        return timer
    }
}

/// The lanes and whether a batch is scheduled, shared by the Transport's thread (filing), the
/// queue (taking) and `/metrics` (reading).
private final class LockedLanes: Sendable {
    private let state = Mutex((lanes: CoordinatorLanes(), draining: false))

    func withLock<Result: Sendable>(_ body: (inout sending (lanes: CoordinatorLanes, draining: Bool)) -> sending Result) -> Result {
        state.withLock(body)
    }
}
