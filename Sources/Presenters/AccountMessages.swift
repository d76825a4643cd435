import GatherModel

// MARK: - The group's account messages

/// Why a connection stopped being an organiser without asking to.
public enum SessionEndReason: String, Sendable {
    case removed
    case passwordChanged = "password_changed"
    case loggedOut = "logged_out"
    /// A referee's link was revoked by an organiser, or its pitch removed (docs/PROTOCOL.md §20).
    case revoked
    /// A referee's link reached its `expiresAt`.
    case expired
}

/// One organiser as the `organisers` reply lists them.
public struct OrganiserSummary: Equatable, Sendable {
    public var username: String
    public var owner: Bool
    public var createdAt: Int64
    /// Now while online; nil when never recorded.
    public var lastSeenAt: Int64?
    public var online: Bool
    /// Live session tokens.
    public var sessions: Int

    public init(username: String, owner: Bool, createdAt: Int64, lastSeenAt: Int64?, online: Bool, sessions: Int) {
        self.username = username
        self.owner = owner
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.online = online
        self.sessions = sessions
    }
}

/// What an `account` reply carries besides its id.
public enum AccountReply: Equatable, Sendable {
    case organisers([OrganiserSummary])
    case inviteCode(String)
    case removed(String)
    case owner(String)
    case sessionsEnded(Int)
}

/// One applied change in the `activity` reply.
public struct ActivityItem: Equatable, Sendable {
    public var version: Int
    public var at: Int64
    /// nil for the server (a timer that ran out).
    public var organiser: String?
    public var kind: String
    public var pitch: Int?
    public var summary: String
    /// The same sentence as a key and params, for a page to say in its reader's language.
    public var sentence: Sentence

    public init(version: Int, at: Int64, organiser: String?, kind: String, pitch: Int?, summary: String,
                sentence: Sentence) {
        self.version = version
        self.at = at
        self.organiser = organiser
        self.kind = kind
        self.pitch = pitch
        self.summary = summary
        self.sentence = sentence
    }
}

enum AccountPresenter {
    static func json(_ id: String?, _ reply: AccountReply) -> JSONValue {
        var members: [String: JSONValue] = ["type": "account"]
        if let id { members["id"] = .string(id) }
        switch reply {
        case .organisers(let list):
            members["organisers"] = .array(list.map { organiser in
                ["username": .string(organiser.username), "owner": .bool(organiser.owner),
                 "createdAt": .int(Int(organiser.createdAt)),
                 "lastSeenAt": organiser.lastSeenAt.map { .int(Int($0)) } ?? .null,
                 "online": .bool(organiser.online), "sessions": .int(organiser.sessions)]
            })
        case .inviteCode(let code): members["inviteCode"] = .string(code)
        case .removed(let name): members["removed"] = .string(name)
        case .owner(let name): members["owner"] = .string(name)
        case .sessionsEnded(let count): members["sessionsEnded"] = .int(count)
        }
        return .object(members)
    }

    static func json(_ id: String?, activity items: [ActivityItem]) -> JSONValue {
        var members: [String: JSONValue] = ["type": "activity", "items": .array(items.map { item in
            ["version": .int(item.version), "at": .int(Int(item.at)),
             "organiser": item.organiser.map(JSONValue.string) ?? .null, "kind": .string(item.kind),
             "pitch": item.pitch.map { .int($0) } ?? .null, "summary": .string(item.summary),
             "reason": .string(item.sentence.key.rawValue), "params": item.sentence.paramsJSON]
        })]
        if let id { members["id"] = .string(id) }
        return .object(members)
    }
}
