import GatherModel
import GatherPresenters

/// A gather.v2 message as it travels on the venue's subjects, read once at the relay's edge.
/// Anything else is `junk`, which the relay drops. Ticks and presence are read down to the fields
/// a follower needs, so the relay can send its own bytes rebuilt from them, never the raw ones.
public enum StreamMessage: Equatable, Sendable {
    case snapshot(version: Int, state: JSONValue, epoch: StreamEpoch)
    case patch(from: Int, version: Int, operations: [PatchOperation])
    /// Every message of the ticks subject carries `seq` (1 per epoch, +1 per message, signed).
    case tick(Tick, seq: Int)
    case heartbeat(Heartbeat)
    case presence(Presence, seq: Int)
    case junk(reason: String)

    /// One pitch's countdown, as a relay forwards it.
    public struct Tick: Equatable, Sendable {
        public var pitch: Int
        public var status: MatchTimer.Status
        public var durationSeconds: Int
        public var remainingMs: Int
        public var endsAt: Int?

        /// `{"type":"tick","pitch","timer":{"status","durationSeconds","remainingMs"[,"endsAt"]}}`
        public var bytes: [UInt8] {
            var timer: [String: JSONValue] = ["status": .string(status.rawValue), "durationSeconds": .int(durationSeconds),
                                              "remainingMs": .int(remainingMs)]
            if let endsAt { timer["endsAt"] = .int(endsAt) }
            return JSONWriter.bytes(["type": "tick", "pitch": .int(pitch), "timer": .object(timer)])
        }
    }

    /// The venue's pulse: its current version and run, its clock (`at`, ms: never compared with
    /// the relay's), and its number among the epoch's ticks-subject messages.
    public struct Heartbeat: Equatable, Sendable {
        public var version: Int?
        public var epoch: StreamEpoch
        public var at: Int64
        public var seq: Int
    }

    /// Who is watching, in counts only: organisers' names never leave the venue through a relay.
    public struct Presence: Equatable, Sendable {
        public var spectators: Int
        public var remote: Int
        public var organisersOnline: Int

        /// `{"type":"presence","spectators","remote","organisersOnline"}`
        public var bytes: [UInt8] {
            JSONWriter.bytes(["type": "presence", "spectators": .int(spectators), "remote": .int(remote),
                              "organisersOnline": .int(organisersOnline)])
        }
    }

    /// Nothing the venue publishes on the state subject is anywhere near this; a bigger message
    /// is not read at all.
    public static let maximumBytes = 1 << 20
    /// The ticks subject carries small messages only; a bigger one is dropped unread.
    public static let maximumTicksBytes = 64 << 10
    /// The most a relay sends of one tick, presence or link.
    public static let maximumForwardedBytes = 4 << 10
    /// Counts beyond this are not believable.
    static let maximumCount = 100_000_000

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
            guard let epoch = epoch(of: value) else { return .junk(reason: "a snapshot without its epoch") }
            return .snapshot(version: version, state: state, epoch: epoch)
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
            guard let pitch = value["pitch"]?.intValue, let timer = value["timer"],
                  let status = timer["status"]?.stringValue.flatMap(MatchTimer.Status.init(rawValue:)),
                  let duration = timer["durationSeconds"]?.intValue, let remaining = timer["remainingMs"]?.intValue
            else { return .junk(reason: "a tick without a pitch and a timer") }
            let endsAt = timer["endsAt"]?.intValue
            if timer["endsAt"] != nil, endsAt == nil { return .junk(reason: "a tick whose endsAt is not a number") }
            guard let seq = seq(of: value) else { return .junk(reason: "a tick without its seq") }
            return .tick(Tick(pitch: pitch, status: status, durationSeconds: duration, remainingMs: remaining, endsAt: endsAt),
                         seq: seq)
        case "heartbeat":
            guard let epoch = epoch(of: value) else { return .junk(reason: "a heartbeat without its epoch") }
            let version = value["version"]?.intValue
            guard version != nil || value["version"] == .null else { return .junk(reason: "a heartbeat without a version") }
            guard let seq = seq(of: value), let at = value["at"]?.intValue else {
                return .junk(reason: "a heartbeat without its seq and at")
            }
            return .heartbeat(Heartbeat(version: version, epoch: epoch, at: Int64(at), seq: seq))
        case "presence":
            guard let spectators = count(value["spectators"]) else { return .junk(reason: "a presence without its counts") }
            let remote = value["remote"] == nil ? 0 : count(value["remote"])
            let organisers: Int?
            if case .array(let names)? = value["organisers"] { organisers = names.count } else { organisers = count(value["organisersOnline"]) }
            guard let remote, let organisers else { return .junk(reason: "a presence without its counts") }
            guard let seq = seq(of: value) else { return .junk(reason: "a presence without its seq") }
            return .presence(Presence(spectators: spectators, remote: remote, organisersOnline: organisers), seq: seq)
        default:
            return .junk(reason: "not a gather.v2 stream message")
        }
    }

    private static func epoch(of value: JSONValue) -> StreamEpoch? {
        guard let id = value["epoch"]?.stringValue, let startedAt = value["epochStartedAt"]?.intValue else { return nil }
        return StreamEpoch(id: id, startedAt: Int64(startedAt))
    }

    /// A ticks message's number: 1 or more.
    private static func seq(of value: JSONValue) -> Int? {
        guard let seq = value["seq"]?.intValue, seq >= 1 else { return nil }
        return seq
    }

    private static func count(_ value: JSONValue?) -> Int? {
        guard let number = value?.intValue, (0...maximumCount).contains(number) else { return nil }
        return number
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
