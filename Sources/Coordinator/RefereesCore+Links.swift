import GatherDelivery
import GatherModel
import GatherPresenters
import GatherStore
import Logging

// MARK: - Organisers' link commands: createRefereeLink, revokeRefereeLink

extension RefereesCore {
    func answerLinkRequest(_ request: RefereeLinkRequest, id: String, organiser: String?, from client: ConnectionID,
                           into effects: inout [Effect]) {
        guard let organiser else {
            return ledger.reject(id, Rejection(.forbidden, .logInFirst, "Only organisers can change the gather; log in first."),
                                 to: client, into: &effects)
        }
        if let earlier = ledger.replies.reply(organiser: organiser, commandID: id) {
            if case .ack(let version) = earlier {
                // After a restart the code is gone (only its hash was kept): the ack, without the address.
                let result = createdResults[organiser + "\n" + id] ?? .object([:])
                effects.append(.send(client, .ackWithResult(id: id, version: version, result: result)))
            } else {
                effects.append(.send(client, ledger.message(for: earlier, id: id)))
            }
            return
        }
        do {
            switch request {
            case .create(let pitch, let label, let hours):
                try create(pitch: pitch, label: label, hours: hours, id: id, organiser: organiser, client: client,
                           into: &effects)
            case .revoke(let link):
                guard registry.links[link] != nil else {
                    return refuse(Rejection(.notFound, .noSuchRefereeLink, ["id": .number(link)],
                                            "There is no referee link \(link); it may have ended already."),
                                  id: id, organiser: organiser, to: client, into: &effects)
                }
                try end([link], reason: .revoked, into: &effects)
                try acknowledge(id, organiser: organiser, to: client, result: nil, into: &effects)
                logger.info("referee link revoked", metadata: ["referee.link": "\(link)", "organiser.username": "\(organiser)"])
            }
        } catch {
            logger.error("referee link request failed inside the server", metadata: [
                "command.id": "\(LogText.escaped(id))", "client.id": "\(client)", "error": "\(error)"])
            ledger.sendError(.internalError, "The server could not save this change; nothing was applied. Try again.",
                             id: id, to: client, into: &effects, reason: Sentence(.saveFailed))
        }
    }

    private func create(pitch: Pitch.ID, label: String?, hours: Int, id: String, organiser: String,
                        client: ConnectionID, into effects: inout [Effect]) throws {
        guard let pitchName = ledger.state.pitch(pitch)?.name else {
            return refuse(GatherRules.pitchNotFound(pitch), id: id, organiser: organiser, to: client, into: &effects)
        }
        guard !registry.isFull else {
            return refuse(Rejection(.outOfRange, .refereeLinksFull, ["max": .number(RefereeLink.maximumCount)],
                                    "At most \(RefereeLink.maximumCount) referee links exist at once; revoke one first."),
                          id: id, organiser: organiser, to: client, into: &effects)
        }
        let label = label ?? RefereeLink.defaultLabel(pitchName: pitchName)
        // The label stands where an organiser's name does: it must not pass for one.
        guard try store.organiser(username: label) == nil else {
            return refuse(Rejection(.invalid, .refereeLabelTaken, ["label": .text(label)],
                                    "\(label) is an organiser's name; give the referee another label."),
                          id: id, organiser: organiser, to: client, into: &effects)
        }
        let now = environment.now()
        let code = environment.newRefereeCode()
        let codeHash = environment.hashToken(code)
        let expiresAt = now + Int64(hours) * 3_600_000
        let linkID = try store.insertRefereeLink(codeHash: codeHash, pitch: pitch, label: label, createdBy: organiser,
                                                 at: now, expiresAt: expiresAt)
        registry.add(StoredRefereeLink(link: RefereeLink(id: linkID, pitch: pitch, label: label, expiresAt: expiresAt,
                                                         createdAt: now, createdBy: organiser),
                                       codeHash: codeHash))
        let result: JSONValue = ["id": .int(linkID), "url": .string(RefereeLink.path(code: code))]
        try acknowledge(id, organiser: organiser, to: client, result: result, into: &effects)
        logger.info("referee link created", metadata: ["referee.link": "\(linkID)", "referee.pitch": "\(pitch)",
                                                       "referee.hours": "\(hours)", "organiser.username": "\(organiser)"])
    }

    /// Kept like a command's ack (the Store's replies, then in memory), so a resent id is not a second link.
    private func acknowledge(_ id: String, organiser: String, to client: ConnectionID, result: JSONValue?,
                             into effects: inout [Effect]) throws {
        let version = ledger.version
        try store.recordReply(.ack(version: version), organiser: organiser, commandID: id)
        ledger.replies.remember(.ack(version: version), organiser: organiser, commandID: id)
        if let result {
            if createdResults.count >= 1_024 { createdResults.removeAll() }
            createdResults[organiser + "\n" + id] = result
        }
        ledger.tally.commandsApplied += 1
        effects.append(.send(client, .ackWithResult(id: id, version: version, result: result ?? .object([:]))))
    }

    private func refuse(_ rejection: Rejection, id: String, organiser: String, to client: ConnectionID,
                        into effects: inout [Effect]) {
        do {
            try ledger.recordRejection(rejection, organiser: organiser, commandID: id)
        } catch {
            logger.error("could not keep a refusal", metadata: ["command.id": "\(LogText.escaped(id))", "error": "\(error)"])
        }
        ledger.reject(id, rejection, to: client, into: &effects)
    }

    func refuseLinkRequest(_ rejection: Rejection, id: String, organiser: String?, to client: ConnectionID,
                           into effects: inout [Effect]) {
        guard let organiser else {
            return ledger.reject(id, Rejection(.forbidden, .logInFirst, "Only organisers can change the gather; log in first."),
                                 to: client, into: &effects)
        }
        if let earlier = ledger.replies.reply(organiser: organiser, commandID: id) {
            return effects.append(.send(client, ledger.message(for: earlier, id: id)))
        }
        refuse(rejection, id: id, organiser: organiser, to: client, into: &effects)
    }

    // MARK: - Ending links

    /// Ends links and every session they opened, at once: each phone on them is a spectator again
    /// and told why. Written first; nothing changes if the Store fails.
    func end(_ ids: [RefereeLink.ID], reason: SessionEndReason, into effects: inout [Effect]) throws {
        guard !ids.isEmpty else { return }
        try store.deleteRefereeLinks(ids)
        registry.remove(ids)
        let gone = Set(ids)
        for (client, session) in accounts.clients.sessions.sorted(by: { $0.key < $1.key })
        where session.referee.map(gone.contains) == true {
            accounts.clients[client]?.role = .spectator
            accounts.clients[client]?.referee = nil
            accounts.clients[client]?.tokenHash = nil
            accounts.clients[client]?.token = nil
            effects.append(.send(client, .sessionEnded(reason: reason)))
        }
    }

    /// After every event: links past their expiry end (`expired`), links whose pitch was removed end
    /// (`revoked`), the next expiry is scheduled, and organisers hear of any change (a new
    /// organiser connection hears the list once).
    func settle(into effects: inout [Effect]) {
        // The usual Sunday: no link was ever made in this run; nothing to scan.
        if registry.links.isEmpty, told == nil, scheduledExpiry == nil { return }
        let now = environment.now()
        let (expired, pitchGone) = registry.ended(now: now, pitches: Set(ledger.state.pitches.map(\.id)))
        do {
            try end(expired, reason: .expired, into: &effects)
            try end(pitchGone, reason: .revoked, into: &effects)
            if !expired.isEmpty || !pitchGone.isEmpty {
                logger.info("referee links ended", metadata: ["referee.expired": "\(expired)", "referee.pitchGone": "\(pitchGone)"])
            }
        } catch {
            // Tried again on the next event (the expiry's wake-up is asked for again below).
            logger.error("could not end referee links", metadata: ["error": "\(error)"])
        }
        tellOrganisers(into: &effects)
        let next = registry.nextExpiry.map { max($0, now) }
        if next != scheduledExpiry {
            scheduledExpiry = next
            effects.append(.scheduleRefereeExpiry(at: next))
        }
    }

    /// The `referees` message, to organiser connections only, while a link exists (and once more
    /// when the last one ends, so their list empties).
    private func tellOrganisers(into effects: inout [Effect]) {
        let organisers = Set(accounts.organiserConnections(of: nil))
        let current = (links: registry.visible, connected: connectedLinks())
        let changed = told.map { $0.links != current.links || $0.connected != current.connected } ?? !current.links.isEmpty
        let audience = changed ? organisers : organisers.subtracting(toldConnections)
        if changed { told = current.links.isEmpty ? nil : current }
        let message = changed ? current : told
        toldConnections = organisers
        guard let message else { return }
        for client in audience.sorted() {
            effects.append(.send(client, .referees(links: message.links, connected: message.connected)))
        }
    }

    /// Links with a phone connected now.
    func connectedLinks() -> [RefereeLink.ID] {
        Set(accounts.clients.sessions.values.compactMap { $0.role == .referee ? $0.referee : nil }).sorted()
    }
}
