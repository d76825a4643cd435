import GatherModel
import GatherPresenters

/// A client message after its envelope (`type`, `id`) has been checked.
enum ClientMessage: Equatable {
    case register(username: JSONValue?, password: JSONValue?, inviteCode: JSONValue?)
    case login(username: JSONValue?, password: JSONValue?)
    case resume(token: JSONValue?)
    case logout
    case command(base: JSONValue?, action: JSONValue?)
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
        switch JSONParser.parse(text) {
        case .success(let value): json = value
        case .failure(let failure):
            return .failure(EnvelopeFailure(code: .badJSON,
                                            message: "The message is not valid JSON (\(failure.reason) at byte \(failure.offset)).",
                                            id: nil))
        }
        guard case .object = json else {
            return .failure(EnvelopeFailure(code: .badMessage, message: "A message must be a JSON object.", id: nil))
        }
        var id: String?
        if let rawID = json["id"] {
            guard let text = rawID.stringValue, idLength.contains(text.count) else {
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
            message = .register(username: json["username"], password: json["password"], inviteCode: json["inviteCode"])
        case "login": message = .login(username: json["username"], password: json["password"])
        case "resume": message = .resume(token: json["token"])
        case "logout": message = .logout
        case "command":
            guard id != nil else {
                return .failure(EnvelopeFailure(code: .badMessage, message: "A command needs an \"id\".", id: nil))
            }
            message = .command(base: json["base"], action: json["action"])
        default:
            return .failure(EnvelopeFailure(code: .unknownType,
                                            message: "Unknown message type \"\(String(type.prefix(40)))\".", id: id))
        }
        return .success(ClientEnvelope(id: id, message: message))
    }
}
