import GatherDelivery
import GatherModel
import GatherPresenters
import GatherStore
import Logging

/// Referee links (docs/PROTOCOL.md §20): organisers create and revoke them; a phone opening one is
/// a `referee` that keeps the score of one pitch, until the link expires or is revoked. One scope
/// of `CoordinatorCore`, listed first so that it sees a referee's messages before the others.
///
/// Who is connected as what stays the accounts' (`AccountsCore.clients`, the sign-in gate that
/// counts a wrong code as a wrong password); a referee's permitted commands go through the match's
/// ledger (`MatchCore`) under its label, exactly as an organiser's do. What this scope owns is the
/// links, their sessions, their expiry, and telling organisers about them.
final class RefereesCore: CoreScope {
    enum Event: Equatable {
        case linkRequested(RefereeLinkRequest, id: String, organiser: String?, from: ConnectionID)
        case linkRequestUnreadable(Rejection, id: String, organiser: String?, from: ConnectionID)
        case codeReceived(String?, id: String?, from: ConnectionID)
        case resumeReceived(token: String, id: String?, from: ConnectionID)
        case logoutReceived(id: String?, from: ConnectionID)
        case commandReceived(Command, link: RefereeLink.ID, from: ConnectionID)
    }

    var registry: RefereeRegistry
    /// The `url` of links created in this run, by (organiser, command id), so a resent
    /// `createRefereeLink` gets its `result` again; after a restart only its `id` (the code is
    /// never kept).
    var createdResults: [String: JSONValue] = [:]
    /// The wake-up asked of the shell for the next expiry.
    var scheduledExpiry: Int64?
    /// What organisers were last told, and which organiser connections have been told it.
    var told: (links: [RefereeLink], connected: [RefereeLink.ID])?
    var toldConnections: Set<ConnectionID> = []

    let accounts: AccountsCore
    let ledger: MatchCore
    let store: GatherStore
    let environment: CoordinatorEnvironment
    let logger: Logger

    init(accounts: AccountsCore, ledger: MatchCore, store: GatherStore, environment: CoordinatorEnvironment,
         logger: Logger) throws {
        self.registry = RefereeRegistry(links: try store.refereeLinks(), sessions: try store.refereeSessions())
        self.accounts = accounts
        self.ledger = ledger
        self.store = store
        self.environment = environment
        self.logger = logger
    }

    /// Links that expired, or whose pitch went, while the server was down end now; the next
    /// expiry is scheduled.
    func start() -> [Effect] {
        var effects: [Effect] = []
        settle(into: &effects)
        return effects
    }

    func event(for arrival: Arrival) -> Event? {
        let link = accounts.clients[arrival.client]?.referee
        switch arrival.message {
        case .refereeLink(let id, .success(let request)):
            return .linkRequested(request, id: id, organiser: arrival.organiser, from: arrival.client)
        case .refereeLink(let id, .failure(let rejection)):
            return .linkRequestUnreadable(rejection, id: id, organiser: arrival.organiser, from: arrival.client)
        case .referee(let code):
            return .codeReceived(code, id: arrival.id, from: arrival.client)
        case .resume(let token?) where (16...256).contains(token.utf8.count):
            // Only a referee session's token is this scope's; an organiser's goes on to the accounts.
            guard registry.sessions[environment.hashToken(token)] != nil else { return nil }
            return .resumeReceived(token: token, id: arrival.id, from: arrival.client)
        case .logout where link != nil:
            return .logoutReceived(id: arrival.id, from: arrival.client)
        case .command(let command):
            guard let link else { return nil }
            return .commandReceived(command, link: link, from: arrival.client)
        default:
            return nil
        }
    }

    func handle(_ event: Event) -> [Effect] {
        var effects: [Effect] = []
        switch event {
        case .linkRequested(let request, let id, let organiser, let client):
            answerLinkRequest(request, id: id, organiser: organiser, from: client, into: &effects)
        case .linkRequestUnreadable(let rejection, let id, let organiser, let client):
            refuseLinkRequest(rejection, id: id, organiser: organiser, to: client, into: &effects)
        case .codeReceived(let code, let id, let client):
            signIn(code: code, id: id, from: client, into: &effects)
        case .resumeReceived(let token, let id, let client):
            resume(token: token, id: id, from: client, into: &effects)
        case .logoutReceived(let id, let client):
            logout(id: id, from: client, into: &effects)
        case .commandReceived(let command, let link, let client):
            judge(command, link: link, from: client, into: &effects)
        }
        return effects
    }

    // MARK: - A referee's commands

    /// The key a link's answers are kept under: never a username (those have no `:`).
    static func replyKey(_ link: RefereeLink.ID) -> String { "referee:\(link)" }

    /// A permitted command goes to the match's ledger under the link's label (its events' `by`, the
    /// activity's name; two phones of one link are one person for the duplicate-goal question);
    /// anything else is `forbidden` `referee_pitch_only`, kept like any answer so a resent id
    /// hears it again.
    private func judge(_ command: Command, link id: RefereeLink.ID, from client: ConnectionID,
                       into effects: inout [Effect]) {
        guard let link = registry.links[id]?.link else { return }
        let key = Self.replyKey(id)
        if let earlier = ledger.replies.reply(organiser: key, commandID: command.id) {
            effects.append(.send(client, ledger.message(for: earlier, id: command.id)))
            return
        }
        var command = command
        if case .success(let action) = command.action {
            switch RefereePermission.judge(action, pitchGiven: command.pitchGiven, refereePitch: link.pitch,
                                           state: ledger.state) {
            case .success(let meant): command.action = .success(meant)
            case .failure(let rejection):
                do {
                    try ledger.recordRejection(rejection, organiser: key, commandID: command.id)
                } catch {
                    logger.error("could not keep a referee's refusal", metadata: ["referee.link": "\(id)", "error": "\(error)"])
                }
                ledger.reject(command.id, rejection, to: client, into: &effects)
                return
            }
        }
        let judgedAlso: Set<Subject> = if case .success(.tournament) = command.action { [.tournamentSettings] } else { [] }
        ledger.handleCommand(command, from: client, organiser: link.label, replyKey: key, judgedAlso: judgedAlso,
                             into: &effects)
    }
}
