import GatherDelivery
import GatherModel
import GatherPresenters
import GatherStore
import Logging

/// Who is who: the connections and the organiser each is signed in as, registration, login,
/// resume and logout with their limits and the bounded KDF, and the group's accounts (owner,
/// invite code, removal, passwords, the activity list). One scope of `CoordinatorCore`.
///
/// Its I/O is the Store's accounts; the KDF itself runs in the shell (`hashPassword`/`verifyPassword`
/// effects, answered by `passwordHashed`/`passwordChecked`).
final class AccountsCore: CoreScope {
    enum Event: Equatable {
        case clientConnected(ConnectionID, address: String)
        case clientDisconnected(ConnectionID)
        case registrationReceived(Credentials, inviteCode: String?, id: String?, from: ConnectionID)
        case loginReceived(Credentials, id: String?, from: ConnectionID)
        case resumeReceived(token: String?, id: String?, from: ConnectionID)
        case logoutReceived(id: String?, from: ConnectionID)
        case accountRequestReceived(AccountRequest, id: String?, from: ConnectionID)
        case passwordHashed(PasswordJob, encodedHash: String)
        case passwordChecked(PasswordJob, matches: Bool)
    }

    var clients = ClientRegistry()
    /// Who may try a password now, and whose KDF runs next.
    var gate: SignInGate
    /// The kept invite code; this scope is its one writer (at start, and `rotateInvite`).
    var inviteCode: String
    var tally = DecisionTally()

    let store: GatherStore
    let environment: CoordinatorEnvironment
    let logger: Logger

    /// Keeps the stored invite code, or the operator's replacement (`environment.inviteCode`),
    /// or draws one the first time.
    init(store: GatherStore, environment: CoordinatorEnvironment, logger: Logger) throws {
        let kept = try store.inviteCode()
        if let wanted = environment.inviteCode ?? kept {
            if wanted != kept { try store.setInviteCode(wanted) }
            self.inviteCode = wanted
        } else {
            let fresh = environment.newInviteCode()
            try store.setInviteCode(fresh)
            self.inviteCode = fresh
        }
        self.store = store
        self.environment = environment
        self.logger = logger
        self.gate = SignInGate(attempts: AttemptLimiter(allowed: environment.limits.failedLoginsAllowed,
                                                        windowMs: environment.limits.failureWindowMs,
                                                        lockoutMs: environment.limits.lockoutMs))
    }

    func event(for arrival: Arrival) -> Event? {
        switch arrival.message {
        case .register(let credentials, let inviteCode):
            .registrationReceived(credentials, inviteCode: inviteCode, id: arrival.id, from: arrival.client)
        case .login(let credentials): .loginReceived(credentials, id: arrival.id, from: arrival.client)
        case .resume(let token): .resumeReceived(token: token, id: arrival.id, from: arrival.client)
        case .logout: .logoutReceived(id: arrival.id, from: arrival.client)
        case .account(let request): .accountRequestReceived(request, id: arrival.id, from: arrival.client)
        case .command, .referee, .refereeLink: nil
        }
    }

    func handle(_ event: Event) -> [Effect] {
        var effects: [Effect] = []
        switch event {
        case .clientConnected(let client, let address):
            clients[client] = ClientSession(address: address)
        case .clientDisconnected(let client):
            noteOrganiserLeft(client)
            clients[client] = nil
            gate.checks.forget(client)
            gate.tallied(into: &tally)
        case .registrationReceived(let credentials, let inviteCode, let id, let client):
            register(credentials, inviteCode: inviteCode, id: id, from: client, into: &effects)
        case .loginReceived(let credentials, let id, let client):
            login(credentials, id: id, from: client, into: &effects)
        case .resumeReceived(let token, let id, let client):
            resume(token: token, id: id, from: client, into: &effects)
        case .logoutReceived(let id, let client):
            logout(id: id, from: client, into: &effects)
        case .accountRequestReceived(let request, let id, let client):
            handleAccount(request, id: id, from: client, into: &effects)
        case .passwordHashed(let job, let encodedHash):
            // An abandoned check was answered when it was abandoned; its result changes nothing.
            if !gate.checks.isAbandoned(job.client) { finishRegistration(job, encodedHash: encodedHash, into: &effects) }
            startNextPasswordCheck(after: job.client, into: &effects)
        case .passwordChecked(let job, let matches):
            if !gate.checks.isAbandoned(job.client) { finishLogin(job, matches: matches, into: &effects) }
            startNextPasswordCheck(after: job.client, into: &effects)
        }
        // A failure may have locked an address out: its checks give up their places now.
        settleLockedOutChecks(into: &effects)
        // A failure (or a refusal for room, which counts as one) may have made the address of a
        // running check unclean: that check's KDF yields to clean addresses' from now on.
        for client in gate.checksToLower(now: environment.now()) { effects.append(.lowerPasswordCheck(client)) }
        return effects
    }

    /// The organiser a connection is signed in as; nil for a spectator (or a stranger).
    func organiser(_ client: ConnectionID) -> String? {
        guard let session = clients[client], session.role == .organiser else { return nil }
        return session.username
    }

    /// Every `error` of this scope goes through here, so each one is counted once.
    func sendError(_ code: ErrorCode, _ message: String, id: String?, to client: ConnectionID,
                   into effects: inout [Effect], reason: Sentence? = nil) {
        tally.errorsByCode[code.rawValue, default: 0] += 1
        effects.append(.send(client, .error(code: code, message: message, id: id, reason: reason)))
    }
}
