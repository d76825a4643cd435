import GatherModel
import GatherPresenters

/// A gather.v2 message as it travels on the venue's subjects, read once at the relay's edge.
/// Anything else is `junk`: the relay skips it (and replays, for the state subject).
public enum StreamMessage: Equatable, Sendable {
    case snapshot(version: Int, state: JSONValue)
    case patch(from: Int, version: Int, operations: [PatchOperation])
    case tick(pitch: Int)
    case heartbeat(version: Int)
    case presence
    case junk(reason: String)

    /// Nothing the venue publishes is anywhere near this; a bigger message is not read at all.
    public static let maximumBytes = 1 << 20

    public static func read(_ bytes: [UInt8]) -> StreamMessage {
        guard bytes.count <= maximumBytes else { return .junk(reason: "larger than \(maximumBytes) bytes") }
        let value: JSONValue
        switch JSONValue.parse(bytes) {
        case .success(let parsed): value = parsed
        case .failure(let failure): return .junk(reason: failure.reason)
        }
        switch value["type"]?.stringValue {
        case "snapshot":
            guard let version = value["version"]?.intValue, let state = value["state"], case .object = state else {
                return .junk(reason: "a snapshot without an integer version and a state object")
            }
            return .snapshot(version: version, state: state)
        case "patch":
            guard let from = value["from"]?.intValue, let version = value["version"]?.intValue, version == from + 1,
                  case .array(let items)? = value["ops"]
            else { return .junk(reason: "a patch without from, version = from + 1 and ops") }
            var operations: [PatchOperation] = []
            operations.reserveCapacity(items.count)
            for item in items {
                guard let operation = Self.operation(item) else { return .junk(reason: "a patch operation that is not add, remove or replace") }
                operations.append(operation)
            }
            return .patch(from: from, version: version, operations: operations)
        case "tick":
            guard let pitch = value["pitch"]?.intValue else { return .junk(reason: "a tick without a pitch") }
            return .tick(pitch: pitch)
        case "heartbeat":
            guard let version = value["version"]?.intValue else { return .junk(reason: "a heartbeat without a version") }
            return .heartbeat(version: version)
        case "presence":
            return .presence
        default:
            return .junk(reason: "not a gather.v2 stream message")
        }
    }

    private static func operation(_ item: JSONValue) -> PatchOperation? {
        guard let path = item["path"]?.stringValue else { return nil }
        switch item["op"]?.stringValue {
        case "add": return item["value"].map { .add(path: path, value: $0) }
        case "replace": return item["value"].map { .replace(path: path, value: $0) }
        case "remove": return .remove(path: path)
        default: return nil
        }
    }
}
