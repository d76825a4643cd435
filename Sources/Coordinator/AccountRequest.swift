import GatherModel

/// An account message of the group, its fields typed; rules that need the accounts
/// are the Coordinator's.
enum AccountRequest: Equatable {
    case organisers
    case rotateInvite
    case removeOrganiser(username: String?)
    case transferOwner(username: String?)
    case changePassword(current: String?, new: String?)
    case logoutEverywhere
    case activity(before: Int?, limit: Int)
    /// A field of the wrong type or out of range: answered `invalid` with this sentence.
    case malformed(String)

    static let activityLimits = 1...200
    static let defaultActivityLimit = 50

    static func decode(_ type: String, _ json: JSONValue) -> AccountRequest {
        switch type {
        case "organisers": return .organisers
        case "rotateInvite": return .rotateInvite
        case "removeOrganiser": return .removeOrganiser(username: json["username"]?.stringValue)
        case "transferOwner": return .transferOwner(username: json["username"]?.stringValue)
        case "changePassword":
            return .changePassword(current: json["currentPassword"]?.stringValue, new: json["newPassword"]?.stringValue)
        case "logoutEverywhere": return .logoutEverywhere
        default: return activity(json)
        }
    }

    private static func activity(_ json: JSONValue) -> AccountRequest {
        var before: Int?
        if let raw = json["before"], raw != .null {
            guard let value = raw.intValue, value >= 0 else {
                return .malformed("\"before\" is a version: a whole number from 0.")
            }
            before = value
        }
        var limit = defaultActivityLimit
        if let raw = json["limit"], raw != .null {
            guard let value = raw.intValue, activityLimits.contains(value) else {
                return .malformed("\"limit\" is how many changes to list: a whole number from 1 to 200.")
            }
            limit = value
        }
        return .activity(before: before, limit: limit)
    }
}
