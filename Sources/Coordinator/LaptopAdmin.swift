import GatherDelivery
import GatherPresenters
import GatherStore
import Logging

/// The laptop's requests (`gather organisers …` through the admin socket), answered with the
/// same rules as the owner's messages but without an owner: whoever holds the laptop can always
/// recover the group.
///
/// A type of its own because it is another caller than the phones `AccountsCore` answers: no
/// connection, no owner to check, and answers worded for the laptop (`AdminReply`) instead of
/// error codes. It keeps no state: it acts through the accounts scope's own operations (removal,
/// transfer, the ended sessions), so the phones see the same effects as when the owner asks.
struct LaptopAdmin {
    let accounts: AccountsCore

    func answer(_ request: AdminRequest) -> (AdminReply, [Effect]) {
        var effects: [Effect] = []
        do {
            let reply: AdminReply
            switch request {
            case .list:
                reply = .organisers(try accounts.organiserSummaries())
            case .remove(let name):
                switch try accounts.store.removeOrganiser(username: name, at: accounts.environment.now()) {
                case .notFound: reply = .failed("There is no organiser called \(name).")
                case .isOwner: reply = .failed("\(name) is the owner; make another organiser the owner first.")
                case .done(let removed, let ended):
                    accounts.endConnections(of: removed, except: nil, reason: .removed, into: &effects)
                    reply = .done("Removed \(removed); \(ended) session(s) ended.")
                }
            case .makeOwner(let name):
                try accounts.transfer(to: name, from: nil, id: nil, replyTo: nil, into: &effects)
                let now = try accounts.store.organiser(username: name)
                reply = now?.owner == true ? .done("\(now!.username) is the owner now.")
                    : .failed("There is no organiser called \(name).")
            case .resetPassword(let name, let passwordHash):
                switch try accounts.store.setPassword(username: name, passwordHash: passwordHash, keeping: nil) {
                case .done(let account, let ended):
                    accounts.endConnections(of: account, except: nil, reason: .passwordChanged, into: &effects)
                    reply = .done("The password of \(account) was reset; \(ended) session(s) ended.")
                case .notFound, .isOwner:
                    reply = .failed("There is no organiser called \(name).")
                }
            }
            return (reply, effects)
        } catch {
            accounts.logger.error("laptop request failed inside the server", metadata: ["error": "\(error)"])
            return (.failed("The server could not do that: \(error)."), effects)
        }
    }
}

/// What the laptop's `gather organisers` asks a running server (over the admin socket).
public enum AdminRequest: Equatable, Sendable {
    case list
    case remove(String)
    case makeOwner(String)
    /// The new password's hash, made by the CLI: the password itself never reaches the server.
    case resetPassword(String, passwordHash: String)
}

public enum AdminReply: Equatable, Sendable {
    case organisers([OrganiserSummary])
    case done(String)
    case failed(String)
}
