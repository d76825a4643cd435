import GatherDelivery
import GatherPresenters
import GatherStore
import Logging

// MARK: - The laptop (`gather organisers …` through the admin socket)

extension AccountsCore {
    /// The same rules as the owner's messages, without an owner: whoever holds the laptop can
    /// always recover the group.
    func handleAdmin(_ request: AdminRequest) -> (AdminReply, [Effect]) {
        var effects: [Effect] = []
        do {
            let reply: AdminReply
            switch request {
            case .list:
                reply = .organisers(try organiserSummaries())
            case .remove(let name):
                switch try store.removeOrganiser(username: name, at: environment.now()) {
                case .notFound: reply = .failed("There is no organiser called \(name).")
                case .isOwner: reply = .failed("\(name) is the owner; make another organiser the owner first.")
                case .done(let removed, let ended):
                    endConnections(of: removed, except: nil, reason: .removed, into: &effects)
                    reply = .done("Removed \(removed); \(ended) session(s) ended.")
                }
            case .makeOwner(let name):
                try transfer(to: name, from: nil, id: nil, replyTo: nil, into: &effects)
                let now = try store.organiser(username: name)
                reply = now?.owner == true ? .done("\(now!.username) is the owner now.")
                    : .failed("There is no organiser called \(name).")
            case .resetPassword(let name, let passwordHash):
                switch try store.setPassword(username: name, passwordHash: passwordHash, keeping: nil) {
                case .done(let account, let ended):
                    endConnections(of: account, except: nil, reason: .passwordChanged, into: &effects)
                    reply = .done("The password of \(account) was reset; \(ended) session(s) ended.")
                case .notFound, .isOwner:
                    reply = .failed("There is no organiser called \(name).")
                }
            }
            return (reply, effects)
        } catch {
            logger.error("laptop request failed inside the server", metadata: ["error": "\(error)"])
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
