import GatherDelivery
import GatherPresenters

/// One connected client as the accounts see it: its role, and its login attempt under way.
struct ClientSession {
    var address: String
    var role: Role = .spectator
    var username: String?
    var tokenHash: String?
    /// The session token itself (memory only), so a `session` pushed to this connection is complete.
    var token: String?
    /// A `register`/`login` waiting for the KDF; one at a time per connection, so a flood of
    /// correct logins cannot queue unbounded CPU work.
    var awaitingPassword = false
    /// The limiter keys the pending attempt was counted under, to take it back on success.
    var attemptKeys: [String] = []
    /// The referee link this connection is signed in on (role `referee`).
    var referee: Int?
}

/// Who is connected, and the presence line derived from it.
struct ClientRegistry {
    private(set) var sessions: [ConnectionID: ClientSession] = [:]

    subscript(client: ConnectionID) -> ClientSession? {
        get { sessions[client] }
        set { sessions[client] = newValue }
    }

    var presence: Presence {
        var organisers = Set<String>()
        var spectators = 0
        for session in sessions.values {
            if session.role == .organiser, let username = session.username { organisers.insert(username) }
            else { spectators += 1 }
        }
        return Presence(organisers: organisers.sorted(), spectators: spectators)
    }

    /// Connections signed in with this token; all of them lose the role when it is revoked.
    func clients(withTokenHash tokenHash: String) -> [ConnectionID] {
        sessions.filter { $0.value.tokenHash == tokenHash }.map(\.key).sorted()
    }
}

struct Presence: Equatable {
    var organisers: [String]
    var spectators: Int
    /// Spectators of the relays (beyond the Wi-Fi), as they last reported.
    var remote = 0
}
