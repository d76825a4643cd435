import Foundation
import GatherModel
import GatherPresenters

/// What a relay answers its spectators: it is read-only, so every login and every command is
/// refused with a sentence that sends organisers to the venue. Pure: the relay's source calls it
/// with what a connection sent and the version it holds.
public enum RelayReplies {
    /// With the epoch of the version the relay holds; without one before it holds any.
    public static func welcome(serverTime: Int64, epoch: StreamEpoch? = nil) -> [UInt8] {
        JSONWriter.bytes(MessagePresenter.stamped(["type": "welcome", "role": "spectator", "protocol": "gather.v2",
                                                   "relay": true, "serverTime": .int(Int(serverTime))], epoch))
    }

    /// `{"type":"link","live":false,"since":ISO-8601}` or `{"type":"link","live":true}`.
    public static func link(live: Bool, sinceMs: Int64?) -> [UInt8] {
        var members: [String: JSONValue] = ["type": "link", "live": .bool(live),
                                            "reason": .string((live ? SentenceKey.linkRestored : .linkLost).rawValue)]
        if !live, let sinceMs { members["since"] = .string(ISOTime.string(ms: sinceMs)) }
        return JSONWriter.bytes(.object(members))
    }

    public static let readOnly = "This address is for following the match; organisers use the venue's own address."

    /// The one reply to a message, or nil for none.
    public static func reply(to text: String, version: Int) -> [UInt8]? {
        guard case .success(let message) = JSONValue.parse(text), case .object = message else {
            return error("bad_json", "Send one JSON object per message.", id: nil, reason: .badJSON)
        }
        let id = message["id"]?.stringValue.map { String($0.prefix(64)) }
        switch message["type"]?.stringValue {
        case "register", "login", "resume":
            return error("tls_required", readOnly, id: id, reason: .relayReadOnly)
        case "logout":
            return JSONWriter.bytes(["type": "session", "role": "spectator"])
        case "command":
            return JSONWriter.bytes(["type": "rejected", "id": .string(id ?? ""), "code": "forbidden",
                                     "message": .string(readOnly), "version": .int(version),
                                     "reason": .string(SentenceKey.relayReadOnly.rawValue), "params": [:]])
        default:
            return error("unknown_type", "A relay answers no requests: it only sends the match.", id: id,
                         reason: .relaySendsOnly)
        }
    }

    private static func error(_ code: String, _ text: String, id: String?, reason: SentenceKey) -> [UInt8] {
        var members: [String: JSONValue] = ["type": "error", "code": .string(code), "message": .string(text),
                                            "reason": .string(reason.rawValue), "params": [:]]
        if let id { members["id"] = .string(id) }
        return JSONWriter.bytes(.object(members))
    }
}

/// UTC ISO-8601 with milliseconds, as the pages parse it.
enum ISOTime {
    static func string(ms: Int64) -> String {
        var seconds = time_t(ms / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = Int(ms % 1000)
        let millisText = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):"
            + "\(two(parts.tm_min)):\(two(parts.tm_sec)).\(millisText)Z"
    }
}
