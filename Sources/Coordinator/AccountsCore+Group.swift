import GatherDelivery
import GatherModel
import GatherPresenters
import GatherStore
import Logging

// MARK: - The group's accounts: owner, invite code, removal, passwords, who did what

extension AccountsCore {
    func handleAccount(_ request: AccountRequest, id: String?, from client: ConnectionID,
                       into effects: inout [Effect]) {
        guard let session = clients[client], session.role == .organiser, let username = session.username else {
            return sendError(.forbidden, "Only organisers can do that; log in first.", id: id, to: client,
                             into: &effects, reason: Sentence(.organisersOnly))
        }
        do {
            switch request {
            case .organisers:
                effects.append(.send(client, .account(id: id, .organisers(try organiserSummaries()))))
            case .activity(let before, let limit):
                effects.append(.send(client, .activity(id: id, items: try GroupDirectory(store: store, environment: environment)
                    .activity(before: before, limit: limit))))
            case .malformed(let sentence):
                sendError(.invalid, sentence, id: id, to: client, into: &effects)
            case .logoutEverywhere:
                let ended = try store.deleteSessions(username: username)
                effects.append(.send(client, .account(id: id, .sessionsEnded(ended))))
                endConnections(of: username, except: nil, reason: .loggedOut, into: &effects)
            case .changePassword(let current, let new):
                changePassword(current: current, new: new, username: username, id: id, from: client, into: &effects)
            case .rotateInvite, .removeOrganiser, .transferOwner:
                guard try store.organiser(username: username)?.owner == true else {
                    return sendError(.forbidden, "Only the owner of the group can do that.", id: id, to: client,
                                     into: &effects, reason: Sentence(.ownerOnly))
                }
                try ownerAction(request, owner: username, id: id, from: client, into: &effects)
            }
        } catch {
            internalError(error, id: id, client: client, into: &effects)
        }
    }

    private func ownerAction(_ request: AccountRequest, owner: String, id: String?, from client: ConnectionID,
                             into effects: inout [Effect]) throws {
        switch request {
        case .rotateInvite:
            let code = environment.newInviteCode()
            try store.setInviteCode(code)
            inviteCode = code
            logger.notice("invite code rotated by the owner", metadata: ["organiser.username": "\(owner)"])
            effects.append(.send(client, .account(id: id, .inviteCode(code))))
            for other in organiserConnections(of: nil) { effects.append(.send(other, .session(try sessionGrant(for: other)))) }
        case .removeOrganiser(let target), .transferOwner(let target):
            guard let target, Credentials.isValidUsername(target) else {
                return sendError(.invalid, "Name an organiser: a username is 3–32 letters, digits, '_', '.' or '-'.",
                                 id: id, to: client, into: &effects, reason: Sentence(.nameAnOrganiser))
            }
            guard target.lowercased() != owner.lowercased() else {
                let sentence = if case .removeOrganiser = request {
                    "You cannot remove yourself: make another organiser the owner first."
                } else {
                    "You are the owner already; name another organiser."
                }
                return sendError(.invalid, sentence, id: id, to: client, into: &effects, reason: Sentence(
                    { if case .removeOrganiser = request { true } else { false } }() ? .cannotRemoveSelf : .alreadyOwner))
            }
            if case .removeOrganiser = request {
                try remove(target, id: id, replyTo: client, into: &effects)
            } else {
                try transfer(to: target, from: owner, id: id, replyTo: client, into: &effects)
            }
        default:
            break
        }
    }

    private func remove(_ target: String, id: String?, replyTo client: ConnectionID?, into effects: inout [Effect]) throws {
        switch try store.removeOrganiser(username: target, at: environment.now()) {
        case .notFound:
            if let client {
                sendError(.notFound, "There is no organiser called \(target).", id: id, to: client, into: &effects,
                          reason: Sentence(.noSuchOrganiser, ["username": .text(target)]))
            }
        case .isOwner:
            if let client {
                sendError(.invalid, "\(target) is the owner; make another organiser the owner first.", id: id, to: client,
                          into: &effects, reason: Sentence(.ownerStays, ["username": .text(target)]))
            }
        case .done(let name, _):
            logger.notice("organiser removed", metadata: ["organiser.username": "\(name)"])
            if let client { effects.append(.send(client, .account(id: id, .removed(name)))) }
            endConnections(of: name, except: nil, reason: .removed, into: &effects)
        }
    }

    func transfer(to target: String, from owner: String?, id: String?, replyTo client: ConnectionID?,
                          into effects: inout [Effect]) throws {
        switch try store.makeOwner(username: target) {
        case .notFound, .isOwner:
            if let client {
                sendError(.notFound, "There is no organiser called \(target).", id: id, to: client, into: &effects,
                          reason: Sentence(.noSuchOrganiser, ["username": .text(target)]))
            }
        case .done(let name, _):
            logger.notice("ownership transferred", metadata: ["organiser.username": "\(name)"])
            if let client { effects.append(.send(client, .account(id: id, .owner(name)))) }
            // Both the new owner's and the old owner's phones learn their new role at once.
            for other in organiserConnections(of: nil) { effects.append(.send(other, .session(try sessionGrant(for: other)))) }
        }
    }

    // MARK: - Passwords

    private func changePassword(current: String?, new: String?, username: String, id: String?, from client: ConnectionID,
                                into effects: inout [Effect]) {
        guard let new, Credentials.passwordLength.contains(new.count), new.utf8.count <= Credentials.passwordLength.upperBound * 4 else {
            return sendError(.invalid, "A new password is 8–128 characters.", id: id, to: client, into: &effects,
                             reason: Sentence(.newPasswordRule))
        }
        guard admitAttempt(username: username, id: id, from: client, into: &effects) else { return }
        guard let current, Credentials.passwordLength.contains(current.count) else {
            return failAttempt(.unauthorized, "That is not your current password.", username: username, id: id,
                               client: client, into: &effects, reason: Sentence(.wrongPassword))
        }
        do {
            guard let account = try store.organiser(username: username) else {
                return failAttempt(.unauthorized, "That is not your current password.", username: username, id: id,
                                   client: client, into: &effects, reason: Sentence(.wrongPassword))
            }
            clients[client]?.awaitingPassword = true
            requestPasswordCheck(.verifyPassword(PasswordJob(client: client, purpose: .changePassword, username: username,
                                                             password: current, requestID: id, newPassword: new),
                                                 against: account.passwordHash), into: &effects)
        } catch {
            internalError(error, id: id, client: client, into: &effects)
        }
    }

    /// The current password was checked: a wrong one is a failed attempt; a right one has the new
    /// one hashed, in the same bounded queue.
    func finishCurrentPasswordCheck(_ job: PasswordJob, matches: Bool, into effects: inout [Effect]) {
        guard isStill(job.username, on: job.client) else { return }
        guard matches, let new = job.newPassword else {
            clients[job.client]?.awaitingPassword = false
            return failAttempt(.unauthorized, "That is not your current password.", username: job.username,
                               id: job.requestID, client: job.client, into: &effects, reason: Sentence(.wrongPassword))
        }
        attemptSucceeded(job.client)
        requestPasswordCheck(.hashPassword(PasswordJob(client: job.client, purpose: .changePassword,
                                                       username: job.username, password: new,
                                                       requestID: job.requestID)), into: &effects)
    }

    func finishPasswordChange(_ job: PasswordJob, encodedHash: String, into effects: inout [Effect]) {
        guard isStill(job.username, on: job.client) else { return }
        clients[job.client]?.awaitingPassword = false
        do {
            let keep = clients[job.client]?.tokenHash
            guard case .done(let name, let ended) = try store.setPassword(username: job.username,
                                                                          passwordHash: encodedHash, keeping: keep)
            else {
                return sendError(.unauthorized, "That session has ended; log in again.", id: job.requestID,
                                 to: job.client, into: &effects)
            }
            logger.notice("password changed", metadata: ["organiser.username": "\(name)"])
            effects.append(.send(job.client, .account(id: job.requestID, .sessionsEnded(ended))))
            endConnections(of: name, except: keep, reason: .passwordChanged, into: &effects)
        } catch {
            internalError(error, id: job.requestID, client: job.client, into: &effects)
        }
    }

    /// The connection that asked is still signed in as that account (not removed, not logged out meanwhile).
    private func isStill(_ username: String, on client: ConnectionID) -> Bool {
        guard let session = clients[client] else { return false }
        if session.role == .organiser, session.username?.lowercased() == username.lowercased() { return true }
        clients[client]?.awaitingPassword = false
        return false
    }

    // MARK: - Reading

    func organiserSummaries() throws -> [OrganiserSummary] {
        let online = Set(clients.sessions.values.compactMap { $0.role == .organiser ? $0.username?.lowercased() : nil })
        return try GroupDirectory(store: store, environment: environment).organisers(online: online)
    }

    // MARK: - Sessions of an account

    /// The complete `session` of an organiser connection: its own token, the kept code, its role.
    func sessionGrant(for client: ConnectionID) throws -> SessionGrant? {
        guard let session = clients[client], session.role == .organiser, let username = session.username,
              let token = session.token else { return nil }
        return SessionGrant(username: username, token: token, inviteCode: inviteCode,
                            owner: try store.organiser(username: username)?.owner ?? false)
    }

    /// Organiser connections, of one account (any spelling) or of all when nil, in a stable order.
    func organiserConnections(of username: String?) -> [ConnectionID] {
        clients.sessions.filter { _, session in
            session.role == .organiser
                && (username == nil || session.username?.lowercased() == username?.lowercased())
        }.map(\.key).sorted()
    }

    /// Every connection of the account (but the one holding `keep`) becomes a spectator at once
    /// and is told why.
    func endConnections(of username: String, except keep: String?, reason: SessionEndReason,
                        into effects: inout [Effect]) {
        for client in organiserConnections(of: username) where keep == nil || clients[client]?.tokenHash != keep {
            clients[client]?.role = .spectator
            clients[client]?.username = nil
            clients[client]?.tokenHash = nil
            clients[client]?.token = nil
            effects.append(.send(client, .sessionEnded(reason: reason)))
        }
    }

    /// An organiser's goodbye is their "last seen".
    func noteOrganiserLeft(_ client: ConnectionID) {
        guard let session = clients[client], session.role == .organiser, let username = session.username else { return }
        do {
            try store.touchLastSeen(username: username, at: environment.now())
        } catch {
            logger.warning("could not record when an organiser was last seen", metadata: ["error": "\(error)"])
        }
    }
}
