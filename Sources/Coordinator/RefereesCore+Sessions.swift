import GatherDelivery
import GatherModel
import GatherPresenters
import GatherStore
import Logging

// MARK: - A referee's phone: the code, resume, logout

extension RefereesCore {
    /// `{"type": "referee", "code"}`: admitted and counted by the accounts' sign-in gate like a
    /// login (a wrong, expired or revoked code is a failed attempt of the address), then looked up
    /// by its SHA-256: the code is 128 random bits, so no slow KDF is needed, and none is run.
    func signIn(code: String?, id: String?, from client: ConnectionID, into effects: inout [Effect]) {
        guard accounts.admitAttempt(username: nil, id: id, from: client, into: &effects) else { return }
        let now = environment.now()
        guard let code, RefereeLink.looksLikeCode(code),
              let link = registry.link(codeHash: environment.hashToken(code), now: now)
        else {
            return accounts.failAttempt(.unauthorized, "That referee link does not work: it has expired or was revoked. "
                                            + "Ask an organiser for a new one.",
                                        username: nil, id: id, client: client, into: &effects,
                                        reason: Sentence(.refereeCodeWrong))
        }
        // The right code: whatever follows, it is not a failed attempt.
        accounts.attemptSucceeded(client)
        guard registry.sessionCount(link.id) < RefereeLink.maximumSessions else {
            return accounts.sendError(.inUse, "\(RefereeLink.maximumSessions) phones are already signed in on this referee "
                                          + "link; log out on one of them first.",
                                      id: id, to: client, into: &effects,
                                      reason: Sentence(.refereeSessionsFull, ["max": .number(RefereeLink.maximumSessions)]))
        }
        let token = environment.newToken()
        let tokenHash = environment.hashToken(token)
        do {
            try store.insertRefereeSession(tokenHash: tokenHash, link: link.id, at: now)
        } catch {
            return accounts.internalError(error, id: id, client: client, into: &effects)
        }
        registry.addSession(tokenHash: tokenHash, link: link.id)
        become(client, link: link, token: token, tokenHash: tokenHash, into: &effects)
        logger.info("referee signed in", metadata: ["referee.link": "\(link.id)", "client.id": "\(client)"])
    }

    /// A referee session's token (only those reach here): a `session` again while its link lives.
    func resume(token: String, id: String?, from client: ConnectionID, into effects: inout [Effect]) {
        let tokenHash = environment.hashToken(token)
        guard let link = registry.link(tokenHash: tokenHash, now: environment.now()) else {
            return accounts.sendError(.unauthorized, "That session has ended; log in again.", id: id, to: client,
                                      into: &effects, reason: Sentence(.sessionOver))
        }
        become(client, link: link, token: token, tokenHash: tokenHash, into: &effects)
    }

    /// Frees the session's place on its link: every connection holding that token is a spectator again.
    func logout(id: String?, from client: ConnectionID, into effects: inout [Effect]) {
        guard let tokenHash = accounts.clients[client]?.tokenHash else {
            return effects.append(.send(client, .session(nil)))
        }
        do {
            try store.deleteRefereeSession(tokenHash: tokenHash)
        } catch {
            return accounts.internalError(error, id: id, client: client, into: &effects)
        }
        registry.removeSession(tokenHash: tokenHash)
        for other in accounts.clients.clients(withTokenHash: tokenHash) {
            accounts.clients[other]?.role = .spectator
            accounts.clients[other]?.referee = nil
            accounts.clients[other]?.tokenHash = nil
            accounts.clients[other]?.token = nil
            effects.append(.send(other, .session(nil)))
        }
    }

    private func become(_ client: ConnectionID, link: RefereeLink, token: String, tokenHash: String,
                        into effects: inout [Effect]) {
        accounts.clients[client]?.role = .referee
        accounts.clients[client]?.referee = link.id
        accounts.clients[client]?.username = nil
        accounts.clients[client]?.tokenHash = tokenHash
        accounts.clients[client]?.token = token
        effects.append(.send(client, .refereeSession(RefereeGrant(link: link, token: token))))
    }
}
