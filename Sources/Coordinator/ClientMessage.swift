import GatherModel
import GatherPresenters

/// A client message read and type-checked in one place: every field is the type the protocol
/// says, or nil when it was absent or of another type. The rules that need the state (versions,
/// invite code, accounts) are the Coordinator's.
enum ClientMessage: Equatable {
    case register(Credentials, inviteCode: String?)
    case login(Credentials)
    case resume(token: String?)
    case logout
    case command(Command)
    /// The group's account messages.
    case account(AccountRequest)
    /// A phone opening a referee link (`{"type": "referee", "code"}`, docs/PROTOCOL.md §20).
    case referee(code: String?)
    /// A `command` whose action is `createRefereeLink` or `revokeRefereeLink`: not a gather
    /// `Action` (no state version, no `base`), answered like a command.
    case refereeLink(id: String, Result<RefereeLinkRequest, Rejection>)
}

struct Credentials: Equatable {
    var username: String?
    var password: String?
}

extension Credentials {
    static let usernameLength = 3...32
    static let passwordLength = 8...128

    static func isValidUsername(_ name: String) -> Bool {
        usernameLength.contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
        }
    }
}

/// A `command` with its action already decoded: a bad action is a `rejected` (answered and
/// remembered under the command's id), never an `error`.
struct Command: Equatable {
    var id: String
    /// nil when missing or not an integer.
    var base: Int?
    var action: Result<Action, Rejection>
    /// `action.confirmed: true`: the organiser answered "Add another" to a possible duplicate.
    var confirmed: Bool = false
    /// `endGather`'s `penalties` (`{"A", "B"}`): only a level tournament knockout match has them.
    var penalties: HomeAway? = nil
    /// Whether the action named its `pitch`: a referee's gather action without one is on its own pitch.
    var pitchGiven: Bool = false
}

struct ClientEnvelope: Equatable {
    var id: String?
    var message: ClientMessage
}

/// Why a message could not be handled at all (an `error`, never a `rejected`).
struct EnvelopeFailure: Error, Equatable {
    var code: ErrorCode
    var message: String
    var id: String?
}

enum ClientMessageDecoder {
    static let idLength = 1...64

    static func decode(_ text: String) -> Result<ClientEnvelope, EnvelopeFailure> {
        let json: JSONValue
        switch JSONValue.parse(text) {
        case .success(let value): json = value
        case .failure(let failure):
            return .failure(EnvelopeFailure(code: .badJSON, message: "The message is not valid JSON (\(failure.reason)).",
                                            id: nil))
        }
        guard case .object = json else {
            return .failure(EnvelopeFailure(code: .badMessage, message: "A message must be a JSON object.", id: nil))
        }
        var id: String?
        if let rawID = json["id"] {
            guard let text = rawID.stringValue, idLength.contains(text.count),
                  text.utf8.count <= idLength.upperBound * ActionDecoder.bytesPerCharacter
            else {
                return .failure(EnvelopeFailure(code: .badMessage,
                                                message: "\"id\" must be a string of 1–64 characters.", id: nil))
            }
            id = text
        }
        guard let type = json["type"]?.stringValue else {
            return .failure(EnvelopeFailure(code: .badMessage, message: "A message needs a \"type\" string.", id: id))
        }
        let message: ClientMessage
        switch type {
        case "register":
            message = .register(credentials(json), inviteCode: json["inviteCode"]?.stringValue)
        case "login": message = .login(credentials(json))
        case "resume": message = .resume(token: json["token"]?.stringValue)
        case "logout": message = .logout
        case "organisers", "rotateInvite", "removeOrganiser", "transferOwner", "changePassword", "logoutEverywhere",
             "activity":
            message = .account(AccountRequest.decode(type, json))
        case "command":
            guard let id else {
                return .failure(EnvelopeFailure(code: .badMessage, message: "A command needs an \"id\".", id: nil))
            }
            if let kind = json["action"]?["kind"]?.stringValue, RefereeLinkRequest.kinds.contains(kind) {
                message = .refereeLink(id: id, RefereeLinkRequest.decode(json["action"]!))
                break
            }
            var decoded = action(json["action"])
            var confirmed = false
            if case .success = decoded {
                switch ActionDecoder.confirmed(json["action"]) {
                case .success(let flag): confirmed = flag
                case .failure(let rejection): decoded = .failure(rejection)
                }
            }
            var penalties: HomeAway?
            if case .success(.onPitch(_, .endGather)) = decoded, let actionJSON = json["action"] {
                switch TournamentActionFields.endGatherPenalties(actionJSON) {
                case .success(let pair): penalties = pair
                case .failure(let rejection): decoded = .failure(rejection)
                }
            }
            message = .command(Command(id: id, base: json["base"]?.intValue, action: decoded, confirmed: confirmed,
                                       penalties: penalties, pitchGiven: json["action"]?["pitch"] != nil))
        case "referee":
            message = .referee(code: json["code"]?.stringValue)
        default:
            return .failure(EnvelopeFailure(code: .unknownType,
                                            message: "Unknown message type \"\(String(type.prefix(40)))\".", id: id))
        }
        return .success(ClientEnvelope(id: id, message: message))
    }

    private static func credentials(_ json: JSONValue) -> Credentials {
        Credentials(username: json["username"]?.stringValue, password: json["password"]?.stringValue)
    }

    private static func action(_ json: JSONValue?) -> Result<Action, Rejection> {
        guard let json else { return .failure(Rejection(.invalid, .actionUnreadable, "The command needs an \"action\".")) }
        return ActionDecoder.decode(json)
    }
}
