import GatherDelivery
import GatherModel
import GatherPresenters
import GatherStore
import Logging

// MARK: - Accounts: register, login, resume, logout

extension AccountsCore {
    func register(_ credentials: Credentials, inviteCode: String?, id: String?, from client: ConnectionID,
                  into effects: inout [Effect]) {
        let name = credentials.username
        guard admitAttempt(username: name, id: id, from: client, into: &effects) else { return }
        guard let name, Credentials.isValidUsername(name) else {
            return failAttempt(.invalid, "A username is 3–32 letters, digits, '_', '.' or '-'.", username: name,
                               id: id, client: client, into: &effects, reason: Sentence(.usernameRule))
        }
        guard let secret = credentials.password, Credentials.passwordLength.contains(secret.count) else {
            return failAttempt(.invalid, "A password is 8–128 characters.", username: name, id: id, client: client,
                               into: &effects, reason: Sentence(.passwordRule))
        }
        guard let code = inviteCode, code.uppercased() == self.inviteCode.uppercased()
        else {
            return failAttempt(.badInvite, "That invite code is not right; ask an organiser for the current one.",
                               username: name, id: id, client: client, into: &effects)
        }
        do {
            if try store.organiser(username: name) != nil {
                return failAttempt(.usernameTaken, "The username \(name) is taken; choose another.", username: name,
                                   id: id, client: client, into: &effects,
                                   reason: Sentence(.usernameTaken, ["username": .text(name)]))
            }
        } catch {
            return internalError(error, id: id, client: client, into: &effects)
        }
        clients[client]?.awaitingPassword = true
        requestPasswordCheck(.hashPassword(PasswordJob(client: client, purpose: .register, username: name,
                                                       password: secret, requestID: id)), into: &effects)
    }

    func finishRegistration(_ job: PasswordJob, encodedHash: String, into effects: inout [Effect]) {
        if job.purpose == .changePassword { return finishPasswordChange(job, encodedHash: encodedHash, into: &effects) }
        guard clients[job.client] != nil else { return }
        clients[job.client]?.awaitingPassword = false
        do {
            guard try store.insertOrganiser(username: job.username, passwordHash: encodedHash, at: environment.now())
            else {
                return failAttempt(.usernameTaken, "The username \(job.username) is taken; choose another.",
                                   username: job.username, id: job.requestID, client: job.client, into: &effects,
                                   reason: Sentence(.usernameTaken, ["username": .text(job.username)]))
            }
            try grantSession(username: job.username, id: job.requestID, to: job.client, into: &effects)
            logger.info("organiser registered", metadata: ["organiser.username": "\(job.username)"])
        } catch {
            internalError(error, id: job.requestID, client: job.client, into: &effects)
        }
    }

    func login(_ credentials: Credentials, id: String?, from client: ConnectionID, into effects: inout [Effect]) {
        let name = credentials.username
        guard admitAttempt(username: name, id: id, from: client, into: &effects) else { return }
        guard let name, let secret = credentials.password, Credentials.passwordLength.contains(secret.count) else {
            return failAttempt(.unauthorized, "Wrong username or password.", username: name, id: id, client: client,
                               into: &effects, reason: Sentence(.wrongCredentials))
        }
        do {
            let organiser = try store.organiser(username: name)
            clients[client]?.awaitingPassword = true
            requestPasswordCheck(.verifyPassword(
                PasswordJob(client: client, purpose: .login, username: organiser?.username ?? name, password: secret,
                            requestID: id),
                against: organiser?.passwordHash ?? environment.decoyPasswordHash), into: &effects)
        } catch {
            internalError(error, id: id, client: client, into: &effects)
        }
    }

    func finishLogin(_ job: PasswordJob, matches: Bool, into effects: inout [Effect]) {
        if job.purpose == .changePassword { return finishCurrentPasswordCheck(job, matches: matches, into: &effects) }
        guard clients[job.client] != nil else { return }
        clients[job.client]?.awaitingPassword = false
        do {
            guard matches, try store.organiser(username: job.username) != nil else {
                return failAttempt(.unauthorized, "Wrong username or password.", username: job.username,
                                   id: job.requestID, client: job.client, into: &effects,
                                   reason: Sentence(.wrongCredentials))
            }
            try grantSession(username: job.username, id: job.requestID, to: job.client, into: &effects)
        } catch {
            internalError(error, id: job.requestID, client: job.client, into: &effects)
        }
    }

    func resume(token: String?, id: String?, from client: ConnectionID, into effects: inout [Effect]) {
        let now = environment.now()
        guard let token, (16...256).contains(token.utf8.count) else {
            return sendError(.unauthorized, "That session has ended; log in again.", id: id, to: client, into: &effects,
                             reason: Sentence(.sessionOver))
        }
        let tokenHash = environment.hashToken(token)
        do {
            guard let username = try store.sessionUsername(tokenHash: tokenHash,
                                                           usedSince: now - environment.limits.sessionIdleExpiryMs,
                                                           now: now)
            else {
                return sendError(.unauthorized, "That session has ended; log in again.", id: id, to: client,
                                 into: &effects, reason: Sentence(.sessionOver))
            }
            try becomeOrganiser(client, username: username, token: token, tokenHash: tokenHash)
            effects.append(.send(client, .session(try sessionGrant(for: client))))
        } catch {
            internalError(error, id: id, client: client, into: &effects)
        }
    }

    func logout(id: String?, from client: ConnectionID, into effects: inout [Effect]) {
        guard let tokenHash = clients[client]?.tokenHash else {
            effects.append(.send(client, .session(nil)))
            return
        }
        do {
            try store.deleteSession(tokenHash: tokenHash)
        } catch {
            return internalError(error, id: id, client: client, into: &effects)
        }
        for other in clients.clients(withTokenHash: tokenHash) {
            clients[other]?.role = .spectator
            clients[other]?.username = nil
            clients[other]?.tokenHash = nil
            clients[other]?.token = nil
            effects.append(.send(other, .session(nil)))
        }
    }

    // MARK: - Helpers

    private func grantSession(username: String, id: String?, to client: ConnectionID, into effects: inout [Effect]) throws {
        attemptSucceeded(client)
        let token = environment.newToken()
        let tokenHash = environment.hashToken(token)
        try store.insertSession(tokenHash: tokenHash, username: username, at: environment.now())
        try becomeOrganiser(client, username: username, token: token, tokenHash: tokenHash)
        effects.append(.send(client, .session(try sessionGrant(for: client))))
    }

    private func becomeOrganiser(_ client: ConnectionID, username: String, token: String, tokenHash: String) throws {
        clients[client]?.role = .organiser
        clients[client]?.referee = nil
        clients[client]?.username = username
        clients[client]?.tokenHash = tokenHash
        clients[client]?.token = token
        try store.touchLastSeen(username: username, at: environment.now())
    }

    /// Admits an attempt (`SignInGate` counts it at once) or answers why not.
    func admitAttempt(username: String?, id: String?, from client: ConnectionID,
                      into effects: inout [Effect]) -> Bool {
        guard let session = clients[client] else { return false }
        let keys = SignInGate.keys(address: session.address, username: username)
        if let refusal = gate.refusal(keys: keys, address: session.address, awaitingPassword: session.awaitingPassword,
                                      now: environment.now()) {
            sendError(.rateLimited, refusal, id: id, to: client, into: &effects)
            return false
        }
        clients[client]?.attemptKeys = keys
        return true
    }

    /// The attempt was counted when it was admitted; a failure may now lock its keys.
    func failAttempt(_ code: ErrorCode, _ message: String, username: String?, id: String?, client: ConnectionID,
                     into effects: inout [Effect], reason: Sentence? = nil) {
        gate.failed(clients[client]?.attemptKeys ?? [], now: environment.now())
        clients[client]?.attemptKeys = []
        sendError(code, message, id: id, to: client, into: &effects, reason: reason)
    }

    /// The attempt succeeded: it does not count against the limit.
    func attemptSucceeded(_ client: ConnectionID) {
        gate.succeeded(clients[client]?.attemptKeys ?? [], now: environment.now())
        clients[client]?.attemptKeys = []
    }

    // MARK: - The KDF, two at a time (PasswordChecks says who waits)

    func requestPasswordCheck(_ work: Effect, into effects: inout [Effect]) {
        guard let client = work.passwordClient, let address = clients[client]?.address else { return }
        switch gate.request(work, address: address, now: environment.now()) {
        case .started(let started): effects.append(started)
        case .queued(let pushedOut?):
            // A clean address took the place of a check from an address that failed recently.
            if let other = pushedOut.passwordClient, clients[other] != nil {
                clients[other]?.awaitingPassword = false
                failAttempt(.rateLimited, "The server is busy checking passwords; try again in a moment.",
                            username: nil, id: pushedOut.passwordRequestID, client: other, into: &effects)
            }
        case .queued(nil): break
        case .refused:
            // `admitAttempt` asked first; nothing changed since.
            assertionFailure("a password check admitted a moment ago was refused")
        }
        gate.tallied(into: &tally)
    }

    /// The check of `finished` (its connection) is done: the next one may start.
    func startNextPasswordCheck(after finished: ConnectionID, into effects: inout [Effect]) {
        let (next, dropped) = gate.finished(finished, stillConnected: { clients[$0] != nil }, now: environment.now())
        for work in dropped {
            guard let client = work.passwordClient, clients[client] != nil else { continue }
            clients[client]?.awaitingPassword = false
            clients[client]?.attemptKeys = []
            sendError(.rateLimited, "Too many failed attempts; wait a minute and try again.", id: work.passwordRequestID,
                      to: client, into: &effects)
        }
        if let next { effects.append(next) }
        gate.tallied(into: &tally)
    }

    /// The checks of addresses locked out meanwhile: each is answered as a locked-out attempt is,
    /// an abandoned one's thread lowered, and the checks that take their places started.
    func settleLockedOutChecks(into effects: inout [Effect]) {
        let (abandoned, dropped, started) = gate.settleLockedOut(stillConnected: { clients[$0] != nil },
                                                                 now: environment.now())
        guard !(abandoned.isEmpty && dropped.isEmpty && started.isEmpty) else { return }
        for work in dropped + abandoned {
            guard let client = work.passwordClient, clients[client] != nil else { continue }
            clients[client]?.awaitingPassword = false
            clients[client]?.attemptKeys = []
            sendError(.rateLimited, "Too many failed attempts; wait a minute and try again.", id: work.passwordRequestID,
                      to: client, into: &effects)
        }
        for work in abandoned {
            if let client = work.passwordClient { effects.append(.lowerPasswordCheck(client)) }
        }
        effects += started
        gate.tallied(into: &tally)
    }

    func internalError(_ error: Error, id: String?, client: ConnectionID, into effects: inout [Effect]) {
        clients[client]?.awaitingPassword = false
        logger.error("account request failed inside the server", metadata: ["client.id": "\(client)",
                                                                             "error": "\(error)"])
        sendError(.internalError, "The server could not do that; try again.", id: id, to: client, into: &effects,
                  reason: Sentence(.saveFailed))
    }
}
