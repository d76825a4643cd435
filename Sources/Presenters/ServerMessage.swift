import GatherDelivery
import GatherModel

/// Who a connection is, as the wire says it.
public enum Role: String, Sendable {
    case spectator, organiser
    /// Signed in on a referee link: one pitch's scoring only (docs/PROTOCOL.md §20).
    case referee
}

/// Codes of `error` messages (docs/PROTOCOL.md: "Server → client").
public enum ErrorCode: String, Sendable {
    case badJSON = "bad_json"
    case badMessage = "bad_message"
    case unknownType = "unknown_type"
    case internalError = "internal"
    case badInvite = "bad_invite"
    case invalid
    case usernameTaken = "username_taken"
    case rateLimited = "rate_limited"
    case unauthorized
    /// A login over the plain-HTTP spectator door.
    case tlsRequired = "tls_required"
    /// Account messages of the group: not an organiser, or not the owner.
    case forbidden
    /// Account messages of the group: no such organiser.
    case notFound = "not_found"
    /// A referee link already has its most phones signed in (docs/PROTOCOL.md §20).
    case inUse = "in_use"
}

/// Everything the server says, before it becomes bytes. The Coordinator emits these values, so
/// its tests compare whole messages, and the Presenters alone decide their JSON shape.
public enum ServerMessage: Equatable, Sendable {
    case welcome(serverTime: Int64, protocol: WireProtocol = .v1)
    case snapshot(version: Int, state: GatherState, now: Int64)
    /// gather.v2: the RFC 6902 operations that turn version `from` into `version`.
    case patch(from: Int, version: Int, operations: [PatchOperation])
    case tick(pitch: Pitch.ID, timer: MatchTimer, now: Int64)
    /// `remote`: spectators of the relays, beyond the Wi-Fi.
    case presence(organisers: [String], spectators: Int, remote: Int = 0)
    case session(SessionGrant?)
    case ack(id: String, version: Int)
    case rejected(id: String, rejection: Rejection, version: Int)
    /// `reason`: the sentence as a key and params; nil says the code's own key.
    case error(code: ErrorCode, message: String, id: String?, reason: Sentence? = nil)
    /// The reply to one of the group's account messages.
    case account(id: String?, AccountReply)
    case activity(id: String?, items: [ActivityItem])
    /// The connection is a spectator again because its session was ended from elsewhere.
    case sessionEnded(reason: SessionEndReason)
    /// `createRefereeLink`'s answer: an `ack` with `result` `{id, url}` (docs/PROTOCOL.md §20).
    case ackWithResult(id: String, version: Int, result: JSONValue)
    /// A phone signed in on a referee link: its one pitch, and the token that resumes it.
    case refereeSession(RefereeGrant)
    /// Organisers only: the live links and those with a phone connected now (§20).
    case referees(links: [RefereeLink], connected: [RefereeLink.ID])
}

/// What a referee's phone learns on `referee` or `resume`.
public struct RefereeGrant: Equatable, Sendable {
    public var link: RefereeLink
    public var token: String

    public init(link: RefereeLink, token: String) {
        self.link = link
        self.token = token
    }
}

/// What an organiser learns on `register`, `login` or `resume`; nil after `logout`.
public struct SessionGrant: Equatable, Sendable {
    public var username: String
    public var token: String
    public var inviteCode: String
    /// The group's owner.
    public var owner: Bool

    public init(username: String, token: String, inviteCode: String, owner: Bool = false) {
        self.username = username
        self.token = token
        self.inviteCode = inviteCode
        self.owner = owner
    }
}
