import Dispatch
import Foundation
import GatherModel
import GatherPresenters
import GatherStore
import Logging

/// Bytes for the Transport, rendered once by the Presenters. The App maps these 1:1 onto the
/// Transport's commands, so neither layer imports the other.
public enum Delivery: Sendable {
    case greet(ClientID, [UInt8])
    case send(ClientID, [UInt8])
    case publishSnapshot(version: Int, bytes: [UInt8])
    case publishTick([UInt8])
    case publishPresence([UInt8])
    case close(ClientID, code: UInt16, reason: String)
}

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
/// effects — rendering, delivery, the countdown's `DispatchSourceTimer`, the KDF off-queue.
public final class GatherCoordinator: @unchecked Sendable {
    public let queue = DispatchQueue(label: "gather.coordinator", qos: .userInteractive)
    public let metrics = CoordinatorMetrics()

    private let core: CoordinatorCore
    private let environment: CoordinatorEnvironment
    private let passwords: PasswordService
    private let deliver: @Sendable ([Delivery]) -> Void
    private let kdfQueue = DispatchQueue(label: "gather.kdf", qos: .utility, attributes: .concurrent)
    private let logger: Logger
    private var countdownTimer: DispatchSourceTimer?
    private var countdownDueAt: Int64?
    private var presenceTimer: DispatchSourceTimer?

    /// Loads the durable state; throws when the Store cannot.
    public init(store: GatherStore, environment: CoordinatorEnvironment, passwords: PasswordService, logger: Logger,
                deliver: @escaping @Sendable ([Delivery]) -> Void) throws {
        self.core = try CoordinatorCore(store: store, environment: environment, logger: logger)
        self.environment = environment
        self.passwords = passwords
        self.logger = logger
        self.deliver = deliver
        metrics.setVersion(core.version)
    }

    /// Finishes a timer that ran out while down and starts the countdown; call once, before traffic.
    public func start() {
        queue.sync { self.execute(self.core.start()) }
    }

    // MARK: - Events from the Transport (any thread)

    public func clientConnected(_ client: ClientID, address: String) { post(.clientConnected(client, address: address)) }
    public func clientDisconnected(_ client: ClientID) { post(.clientDisconnected(client)) }
    public func messageReceived(_ text: String, from client: ClientID) { post(.messageReceived(client, text: text)) }

    /// The current state, for HTTP endpoints and tests.
    public func currentState() -> (version: Int, state: GatherState) {
        queue.sync { (core.version, core.state) }
    }

    /// Cancels the timers; the Store stays as committed.
    public func stop() {
        queue.sync {
            countdownTimer?.cancel()
            presenceTimer?.cancel()
            countdownTimer = nil
            presenceTimer = nil
        }
    }

    private func post(_ event: CoordinatorEvent) {
        queue.async { self.execute(self.core.handle(event)) }
    }

    // MARK: - Effects (on the queue)

    private func execute(_ effects: [Effect]) {
        dispatchPrecondition(condition: .onQueue(queue))
        var deliveries: [Delivery] = []
        let now = environment.now()
        for effect in effects {
            switch effect {
            case .greet(let client, let message):
                deliveries.append(.greet(client, MessagePresenter.bytes(message)))
            case .send(let client, let message):
                metrics.record(message)
                deliveries.append(.send(client, MessagePresenter.bytes(message)))
            case .publishSnapshot(let version, let state):
                let bytes = MessagePresenter.bytes(.snapshot(version: version, state: state, now: now))
                metrics.setVersion(version)
                metrics.setSnapshot(bytes)
                deliveries.append(.publishSnapshot(version: version, bytes: bytes))
            case .publishTick(let timer):
                deliveries.append(.publishTick(MessagePresenter.bytes(.tick(timer: timer, now: now))))
            case .publishPresence(let organisers, let spectators):
                metrics.setPresence(organisers: organisers.count, spectators: spectators)
                deliveries.append(.publishPresence(MessagePresenter.bytes(.presence(organisers: organisers,
                                                                                   spectators: spectators))))
            case .close(let client, let code, let reason):
                deliveries.append(.close(client, code: code, reason: reason))
            case .scheduleCountdown(let at):
                scheduleCountdown(at: at)
            case .schedulePresence(let at):
                presenceTimer = makeTimer(at: at, previous: presenceTimer) { [weak self] in
                    guard let self else { return }
                    self.execute(self.core.handle(.presenceWoke))
                }
            case .hashPassword(let job):
                kdfQueue.async { [passwords] in
                    let encoded = passwords.hash(job.password)
                    self.post(.passwordHashed(job, encodedHash: encoded))
                }
            case .verifyPassword(let job, let encodedHash):
                kdfQueue.async { [passwords] in
                    let matches = passwords.verify(job.password, encodedHash)
                    self.post(.passwordChecked(job, matches: matches))
                }
            }
        }
        if !deliveries.isEmpty { deliver(deliveries) }
    }

    private func scheduleCountdown(at: Int64?) {
        countdownDueAt = at
        guard let at else {
            countdownTimer?.cancel()
            countdownTimer = nil
            return
        }
        countdownTimer = makeTimer(at: at, previous: countdownTimer) { [weak self] in
            guard let self else { return }
            if let due = self.countdownDueAt { self.metrics.recordTickLateness(ms: self.environment.now() - due) }
            self.execute(self.core.handle(.countdownWoke))
        }
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
