import GatherDelivery
import GatherModel
import GatherPresenters
import GatherStore
import Logging

/// The single writer's logic, synchronous and free of Dispatch: every event goes in, the list of
/// effects comes out. `GatherCoordinator` runs it on one serial queue; tests drive it directly
/// with a test clock and assert the whole state and every effect.
///
/// Its one kind of I/O is the Store, an explicit dependency: every durable write is a call on
/// `store` (a change is committed before it is adopted and acknowledged, which is the promise an
/// `ack` makes). Everything else it wants done is returned as an `Effect`.
public final class CoordinatorCore {
    public internal(set) var state: GatherState
    public internal(set) var version: Int
    /// Decisions so far, for `/metrics`.
    public internal(set) var tally = DecisionTally()

    let store: GatherStore
    let environment: CoordinatorEnvironment
    let logger: Logger
    var clients = ClientRegistry()
    var arbiter: Arbiter
    var attempts: AttemptLimiter
    var passwordChecks = PasswordChecks()
    /// The wake-up each running timer has asked for, by pitch.
    var countdownWakes: [Pitch.ID: Int64] = [:]
    var publishedPresence = Presence(organisers: [], spectators: 0)
    var presencePublishedAt: Int64 = .min
    var presenceWakeScheduled = false
    var remoteSpectators = 0
    /// The kept invite code: stored, replaced only by `rotateInvite` or at start.
    var inviteCode: String

    /// Loads the durable state. Call `start()` next for the effects that follow from it.
    public init(store: GatherStore, environment: CoordinatorEnvironment, logger: Logger) throws {
        let loaded = try store.load()
        self.state = loaded.state
        self.version = loaded.version
        if let kept = try store.inviteCode() {
            self.inviteCode = kept
        } else {
            try store.setInviteCode(environment.inviteCode)
            self.inviteCode = environment.inviteCode
        }
        self.store = store
        self.environment = environment
        self.logger = logger
        // Read once at start-up: afterwards arbitration never reads the journal.
        self.arbiter = Arbiter(journal: try store.journal(after: max(0, loaded.version - environment.limits.journalKept)),
                               version: loaded.version)
        self.attempts = AttemptLimiter(allowed: environment.limits.failedLoginsAllowed,
                                       windowMs: environment.limits.failureWindowMs,
                                       lockoutMs: environment.limits.lockoutMs)
    }

    /// A timer that ran out while the server was down finishes now, dated when it really ended;
    /// one still running is woken on its next second.
    /// Always publishes the state once, so the Transport has a snapshot for the first phone.
    public func start() -> [Effect] {
        pruneMemory()
        var effects: [Effect] = []
        if !expireTimersIfDue(into: &effects) {
            effects.append(.publishSnapshot(version: version, state: state))
        }
        rescheduleCountdowns(into: &effects)
        return effects
    }

    public func handle(_ event: CoordinatorEvent) -> [Effect] {
        var effects: [Effect] = []
        switch event {
        case .clientConnected(let client, let address, let wire, let door):
            let now = environment.now()
            clients[client] = ClientSession(address: address, door: door,
                                            commandBucket: TokenBucket(capacity: environment.limits.commandBurst,
                                                                       ratePerSecond: environment.limits.commandsPerSecond,
                                                                       now: now))
            effects.append(.greet(client, .welcome(serverTime: now, protocol: wire)))
        case .clientDisconnected(let client):
            noteOrganiserLeft(client)
            clients[client] = nil
            passwordChecks.forget(client)
            tallyPasswordChecks()
        case .messageReceived(let client, let text):
            guard clients[client] != nil else { break }
            // A command that lands in the few ms between zero and the countdown's wake-up
            // sees the timer finished, as it is, rather than running at 00:00.
            if expireTimersIfDue(into: &effects) { rescheduleCountdowns(into: &effects) }
            receive(text, from: client, into: &effects)
        case .messagesDropped(let client, let count):
            guard clients[client] != nil, count > 0 else { break }
            sendError(.rateLimited, "The server is busy; \(count) of your messages were not read. Wait a moment and try again.",
                      id: nil, to: client, into: &effects)
        case .countdownWoke(let pitch):
            countdownWakes[pitch] = nil
            // Another pitch's full time published in the same instant does not replace this
            // pitch's tick; a timer that just finished has no tick (its snapshot says it all).
            expireTimersIfDue(into: &effects)
            if let timer = state.pitch(pitch)?.gather?.timer, timer.status == .running {
                effects.append(.publishTick(pitch: pitch, timer: timer))
            }
            rescheduleCountdowns(into: &effects)
        case .presenceWoke:
            presenceWakeScheduled = false
        case .remoteSpectatorsCounted(let count):
            remoteSpectators = min(max(0, count), 100_000_000)
        case .passwordHashed(let job, let encodedHash):
            finishRegistration(job, encodedHash: encodedHash, into: &effects)
            startNextPasswordCheck(into: &effects)
        case .passwordChecked(let job, let matches):
            finishLogin(job, matches: matches, into: &effects)
            startNextPasswordCheck(into: &effects)
        }
        updatePresence(into: &effects)
        return effects
    }

    // MARK: - Messages

    private func receive(_ text: String, from client: ConnectionID, into effects: inout [Effect]) {
        let envelope: ClientEnvelope
        switch ClientMessageDecoder.decode(text) {
        case .success(let decoded): envelope = decoded
        case .failure(let failure):
            sendError(failure.code, failure.message, id: failure.id, to: client, into: &effects)
            return
        }
        // Every message type, through either door, shares the connection's token bucket, so none
        // can be sent without limit.
        guard takeToken(client) else {
            if case .command(let command) = envelope.message {
                return reject(command.id, Rejection(.rateLimited, "Too many commands at once; wait a moment and try again."),
                              to: client, into: &effects)
            }
            return sendError(.rateLimited, "Too many messages at once; wait a moment and try again.",
                             id: envelope.id, to: client, into: &effects)
        }
        if clients[client]?.door == .spectator {
            return refuseOnSpectatorDoor(envelope, from: client, into: &effects)
        }
        switch envelope.message {
        case .command(let command):
            handleCommand(command, from: client, into: &effects)
        case .register(let credentials, let inviteCode):
            register(credentials, inviteCode: inviteCode, id: envelope.id, from: client, into: &effects)
        case .login(let credentials):
            login(credentials, id: envelope.id, from: client, into: &effects)
        case .resume(let token):
            resume(token: token, id: envelope.id, from: client, into: &effects)
        case .logout:
            logout(id: envelope.id, from: client, into: &effects)
        case .account(let request):
            handleAccount(request, id: envelope.id, from: client, into: &effects)
        }
    }

    /// The plain-HTTP door is for watching: logins are sent to TLS (a password must never cross
    /// the Wi-Fi in the clear) and commands are refused, whatever they carry.
    private func refuseOnSpectatorDoor(_ envelope: ClientEnvelope, from client: ConnectionID,
                                       into effects: inout [Effect]) {
        switch envelope.message {
        case .register, .login, .resume, .account:
            sendError(.tlsRequired, "Organisers log in over the secure address: \(environment.organiserAddress()).",
                      id: envelope.id, to: client, into: &effects)
        case .logout:
            effects.append(.send(client, .session(nil)))
        case .command(let command):
            tally.rejectionsByCode[RejectionCode.forbidden.rawValue, default: 0] += 1
            effects.append(.send(client, .rejected(id: command.id, rejection: Rejection(
                .forbidden, "This address is for watching; organisers use \(environment.organiserAddress())."),
                version: version)))
        }
    }

    /// Takes one token from the connection's bucket; false when it is empty.
    func takeToken(_ client: ConnectionID) -> Bool {
        guard var session = clients[client] else { return false }
        let taken = session.commandBucket.take(now: environment.now())
        clients[client] = session
        return taken
    }

    /// Every `error` goes through here, so each one is counted once.
    func sendError(_ code: ErrorCode, _ message: String, id: String?, to client: ConnectionID,
                   into effects: inout [Effect]) {
        tally.errorsByCode[code.rawValue, default: 0] += 1
        effects.append(.send(client, .error(code: code, message: message, id: id)))
    }

    // MARK: - Presence

    func updatePresence(into effects: inout [Effect]) {
        var presence = clients.presence
        presence.remote = remoteSpectators
        guard presence != publishedPresence else { return }
        let now = environment.now()
        let due = presencePublishedAt == .min ? now : presencePublishedAt + environment.limits.presenceIntervalMs
        if now >= due {
            publishedPresence = presence
            presencePublishedAt = now
            effects.append(.publishPresence(organisers: presence.organisers, spectators: presence.spectators,
                                            remote: presence.remote))
        } else if !presenceWakeScheduled {
            presenceWakeScheduled = true
            effects.append(.schedulePresence(at: due))
        }
    }
}
