import GatherDelivery
import GatherModel
import GatherPresenters
import GatherStore
import Logging

/// The single writer's logic, synchronous and free of Dispatch: every event goes in, the list of
/// effects comes out. `GatherCoordinator` runs it on one serial queue; tests drive it directly
/// with a test clock and assert the whole state and every effect.
///
/// It is the parent of the scopes (`CoreScope`), as a TCA reducer built of `Scope`s: it owns what
/// is about a connection rather than a feature — the welcome, the message's decoding, the token
/// bucket every message takes from, the watching door's refusals, the presence line — and routes
/// everything else to the scope it belongs to, concatenating their effects in order:
/// `AccountsCore` (who is who, and the group's accounts), `TournamentCore` (the day's
/// tournament) and `MatchCore` (the gather and its matches). A new scope is one type, held here
/// and listed in `scopes`.
public final class CoordinatorCore {
    let accounts: AccountsCore
    let match: MatchCore
    let tournament: TournamentCore
    let referees: RefereesCore
    /// Where a client's message goes: the first scope that claims it. Referees come first: they
    /// claim a referee's every command and its token's `resume`.
    private var scopes: [any CoreScope] { [referees, accounts, tournament, match] }

    /// What the parent itself keeps of a connection.
    struct Connection: Equatable {
        var door: Door
        var messageBucket: TokenBucket
    }

    var connections: [ConnectionID: Connection] = [:]
    var presence = PresenceLine()
    /// The parent's own decisions (a message that could not be read or was sent too fast).
    var ownTally = DecisionTally()
    let environment: CoordinatorEnvironment

    public var state: GatherState { match.state }
    public var version: Int { match.version }
    /// The kept invite code.
    public var inviteCode: String { accounts.inviteCode }
    /// Decisions so far, for `/metrics`, summed over the scopes.
    public var tally: DecisionTally { .combined([ownTally, accounts.tally, match.tally]) }

    /// Loads the durable state. Call `start()` next for the effects that follow from it.
    public init(store: GatherStore, environment: CoordinatorEnvironment, logger: Logger) throws {
        self.match = try MatchCore(store: store, environment: environment, logger: logger)
        self.tournament = TournamentCore(ledger: match)
        self.accounts = try AccountsCore(store: store, environment: environment, logger: logger)
        self.referees = try RefereesCore(accounts: accounts, ledger: match, store: store, environment: environment,
                                         logger: logger)
        self.environment = environment
    }

    public func start() -> [Effect] { match.start() + referees.start() }

    public func handle(_ event: CoordinatorEvent) -> [Effect] {
        var effects: [Effect] = []
        switch event {
        case .clientConnected(let client, let address, let wire, let door):
            let now = environment.now()
            connections[client] = Connection(door: door, messageBucket: TokenBucket(
                capacity: environment.limits.commandBurst, ratePerSecond: environment.limits.commandsPerSecond, now: now))
            effects += accounts.handle(.clientConnected(client, address: address))
            effects.append(.greet(client, .welcome(serverTime: now, protocol: wire)))
        case .clientDisconnected(let client):
            effects += accounts.handle(.clientDisconnected(client))
            connections[client] = nil
        case .messageReceived(let client, let text):
            guard connections[client] != nil else { break }
            effects += match.handle(.messageArrived)
            receive(text, from: client, into: &effects)
        case .messagesDropped(let client, let count):
            guard connections[client] != nil, count > 0 else { break }
            sendError(.rateLimited, "The server is busy; \(count) of your messages were not read. Wait a moment and try again.",
                      id: nil, to: client, into: &effects, reason: Sentence(.unreadMessages, ["count": .number(count)]))
        case .countdownWoke(let pitch):
            effects += match.handle(.countdownWoke(pitch: pitch))
        case .presenceWoke:
            presence.wakeScheduled = false
        case .clubListVerified(let list):
            effects += match.handle(.clubListVerified(list))
        case .refereeExpiryWoke:
            // `settle` below ends what is due and asks for the next wake-up.
            referees.scheduledExpiry = nil
        case .remoteSpectatorsCounted(let count):
            presence.remoteSpectators = min(max(0, count), 100_000_000)
        case .passwordHashed(let job, let encodedHash):
            effects += accounts.handle(.passwordHashed(job, encodedHash: encodedHash))
        case .passwordChecked(let job, let matches):
            effects += accounts.handle(.passwordChecked(job, matches: matches))
        }
        referees.settle(into: &effects)
        updatePresence(into: &effects)
        return effects
    }

    /// A request from the laptop (`gather organisers …`), answered through the accounts.
    public func handleAdmin(_ request: AdminRequest) -> (AdminReply, [Effect]) {
        var (reply, effects) = LaptopAdmin(accounts: accounts).answer(request)
        referees.settle(into: &effects)
        updatePresence(into: &effects)
        return (reply, effects)
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
            var commandID: String?
            if case .command(let command) = envelope.message { commandID = command.id }
            if case .refereeLink(let id, _) = envelope.message { commandID = id }
            if let commandID {
                effects += match.handle(.commandRefused(id: commandID, from: client, Rejection(
                    .rateLimited, .tooManyCommands, "Too many commands at once; wait a moment and try again.")))
                return
            }
            return sendError(.rateLimited, "Too many messages at once; wait a moment and try again.",
                             id: envelope.id, to: client, into: &effects, reason: Sentence(.tooManyMessages))
        }
        if connections[client]?.door == .spectator {
            return refuseOnSpectatorDoor(envelope, from: client, into: &effects)
        }
        let arrival = Arrival(client: client, id: envelope.id, message: envelope.message,
                              organiser: accounts.organiser(client))
        for scope in scopes {
            if let claimed = scope.receive(arrival) {
                effects += claimed
                return
            }
        }
    }

    /// The plain-HTTP door is for watching: logins are sent to TLS (a password must never cross
    /// the Wi-Fi in the clear) and commands are refused, whatever they carry.
    private func refuseOnSpectatorDoor(_ envelope: ClientEnvelope, from client: ConnectionID,
                                       into effects: inout [Effect]) {
        switch envelope.message {
        case .register, .login, .resume, .account, .referee:
            sendError(.tlsRequired, "Organisers log in over the secure address: \(environment.organiserAddress()).",
                      id: envelope.id, to: client, into: &effects,
                      reason: Sentence(.secureAddress, ["address": .text(environment.organiserAddress())]))
        case .logout:
            effects.append(.send(client, .session(nil)))
        case .command(let command):
            effects += match.handle(.commandRefused(id: command.id, from: client, Rejection(
                .forbidden, .watchingAddress, ["address": .text(environment.organiserAddress())], "This address is for watching; organisers use \(environment.organiserAddress()).")))
        case .refereeLink(let id, _):
            effects += match.handle(.commandRefused(id: id, from: client, Rejection(
                .forbidden, .watchingAddress, ["address": .text(environment.organiserAddress())], "This address is for watching; organisers use \(environment.organiserAddress()).")))
        }
    }

    /// Takes one token from the connection's bucket; false when it is empty.
    private func takeToken(_ client: ConnectionID) -> Bool {
        guard var connection = connections[client] else { return false }
        let taken = connection.messageBucket.take(now: environment.now())
        connections[client] = connection
        return taken
    }

    /// Every `error` of the parent goes through here, so each one is counted once.
    private func sendError(_ code: ErrorCode, _ message: String, id: String?, to client: ConnectionID,
                           into effects: inout [Effect], reason: Sentence? = nil) {
        ownTally.errorsByCode[code.rawValue, default: 0] += 1
        effects.append(.send(client, .error(code: code, message: message, id: id, reason: reason)))
    }

    // MARK: - Presence

    /// Who is here, as last published, and when the next publication may go out.
    struct PresenceLine: Equatable {
        var published = Presence(organisers: [], spectators: 0)
        var publishedAt: Int64 = .min
        var wakeScheduled = false
        var remoteSpectators = 0
    }

    /// Publishes who is here at most once per `presenceIntervalMs`; a change within the interval
    /// schedules one wake-up that publishes it.
    func updatePresence(into effects: inout [Effect]) {
        var now = accounts.clients.presence
        now.remote = presence.remoteSpectators
        guard now != presence.published else { return }
        let time = environment.now()
        let due = presence.publishedAt == .min ? time : presence.publishedAt + environment.limits.presenceIntervalMs
        if time >= due {
            presence.published = now
            presence.publishedAt = time
            effects.append(.publishPresence(organisers: now.organisers, spectators: now.spectators, remote: now.remote))
        } else if !presence.wakeScheduled {
            presence.wakeScheduled = true
            effects.append(.schedulePresence(at: due))
        }
    }
}
