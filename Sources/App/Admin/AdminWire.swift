import Foundation
import GatherCoordinator
import GatherPresenters

/// What the laptop asks of the data folder's owner (the running server, or the CLI itself when it
/// holds the folder). A reset carries the new password, never a hash: the hash is made by whoever
/// writes it, with the server's own hasher, so no caller can plant a weak or unreadable one.
enum AdminCall: Equatable, Sendable {
    case list
    case remove(String)
    case makeOwner(String)
    case resetPassword(String, newPassword: String)

    /// The Coordinator's request, the new password hashed by `hash`.
    func request(hashing hash: (String) -> String) -> AdminRequest {
        switch self {
        case .list: .list
        case .remove(let name): .remove(name)
        case .makeOwner(let name): .makeOwner(name)
        case .resetPassword(let name, let password): .resetPassword(name, passwordHash: hash(password))
        }
    }

    /// The account rule of docs/PROTOCOL.md: 8–128 characters.
    static let passwordLengths = 8...128
    /// The account rule of docs/PROTOCOL.md: 3–32 bytes (of `A-Za-z0-9_.-`).
    static let usernameLengths = 3...32
}

/// The admin socket's messages: one JSON object per line each way.
/// Request: `{"request": "list" | "remove" | "makeOwner" | "resetPassword", "username", "newPassword"}`.
/// Reply: `{"ok": true, "message"}`, `{"ok": true, "organisers": [...]}` or `{"ok": false, "message"}`.
enum AdminWire {
    static let requestLimit = 4096

    static func encode(_ call: AdminCall) -> [UInt8] {
        var object: [String: String]
        switch call {
        case .list: object = ["request": "list"]
        case .remove(let name): object = ["request": "remove", "username": name]
        case .makeOwner(let name): object = ["request": "makeOwner", "username": name]
        case .resetPassword(let name, let password):
            object = ["request": "resetPassword", "username": name, "newPassword": password]
        }
        return line(object)
    }

    static func decodeRequest(_ bytes: [UInt8]) -> AdminCall? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
              let kind = object["request"] as? String else { return nil }
        let name = (object["username"] as? String).flatMap { $0.utf8.count <= 128 ? $0 : nil }
        switch kind {
        case "list": return .list
        case "remove": return name.map(AdminCall.remove)
        case "makeOwner": return name.map(AdminCall.makeOwner)
        case "resetPassword":
            guard let name, let password = object["newPassword"] as? String,
                  AdminCall.passwordLengths.contains(password.count)
            else { return nil }
            return .resetPassword(name, newPassword: password)
        default: return nil
        }
    }

    static func encode(_ reply: AdminReply) -> [UInt8] {
        switch reply {
        case .done(let message): return line(["ok": true, "message": message])
        case .failed(let message): return line(["ok": false, "message": message])
        case .organisers(let list):
            return line(["ok": true, "organisers": list.map { organiser -> [String: Any] in
                ["username": organiser.username, "owner": organiser.owner, "createdAt": organiser.createdAt,
                 "lastSeenAt": organiser.lastSeenAt.map { $0 as Any } ?? NSNull(), "online": organiser.online,
                 "sessions": organiser.sessions]
            }])
        }
    }

    static func decodeReply(_ bytes: [UInt8]) -> AdminReply? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
              let ok = object["ok"] as? Bool else { return nil }
        if let list = object["organisers"] as? [[String: Any]] {
            return .organisers(list.map { item in
                OrganiserSummary(username: item["username"] as? String ?? "?", owner: item["owner"] as? Bool ?? false,
                                 createdAt: (item["createdAt"] as? NSNumber)?.int64Value ?? 0,
                                 lastSeenAt: (item["lastSeenAt"] as? NSNumber)?.int64Value,
                                 online: item["online"] as? Bool ?? false,
                                 sessions: (item["sessions"] as? NSNumber)?.intValue ?? 0)
            })
        }
        let message = object["message"] as? String ?? ""
        return ok ? .done(message) : .failed(message)
    }

    private static func line(_ object: [String: Any]) -> [UInt8] {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return [UInt8](data) + [UInt8(ascii: "\n")]
    }
}
