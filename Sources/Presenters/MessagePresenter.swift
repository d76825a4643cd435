import GatherDelivery
import GatherModel

/// Renders `ServerMessage`s as JSON. Only a `snapshot`'s state differs between gather.v1 and
/// gather.v2 (`protocol` says which); every other message is the same bytes for both.
public enum MessagePresenter {
    public static func bytes(_ message: ServerMessage, protocol wire: WireProtocol = .v1) -> [UInt8] {
        JSONWriter.bytes(json(message, protocol: wire))
    }

    public static func json(_ message: ServerMessage, protocol wire: WireProtocol = .v1) -> JSONValue {
        switch message {
        case .patch(let from, let version, let operations):
            return ["type": "patch", "from": .int(from), "version": .int(version),
                    "ops": .array(operations.map(\.json))]
        case .welcome(let serverTime, let chosen):
            return ["type": "welcome", "role": .string(Role.spectator.rawValue), "protocol": .string(chosen.rawValue),
                    "serverTime": .int(Int(serverTime))]
        case .snapshot(let version, let state, let now):
            return snapshot(version: version, state: StatePresenter.json(state, now: now, protocol: wire))
        case .tick(let pitch, let timer, let now):
            return ["type": "tick", "pitch": .int(pitch), "timer": StatePresenter.json(timer, now: now)]
        case .presence(let organisers, let spectators, let remote):
            return ["type": "presence", "organisers": .array(organisers.sorted().map(JSONValue.string)),
                    "spectators": .int(spectators), "remote": .int(remote)]
        case .session(let grant?):
            return ["type": "session", "role": .string(Role.organiser.rawValue), "username": .string(grant.username),
                    "token": .string(grant.token), "inviteCode": .string(grant.inviteCode), "owner": .bool(grant.owner)]
        case .session(nil):
            return ["type": "session", "role": .string(Role.spectator.rawValue)]
        case .ack(let id, let version):
            return ["type": "ack", "id": .string(id), "version": .int(version)]
        case .rejected(let id, let rejection, let version):
            var members: [String: JSONValue] = [
                "type": "rejected", "id": .string(id), "code": .string(rejection.code.rawValue),
                "message": .string(rejection.message), "version": .int(version),
                "reason": .string(rejection.reason.key.rawValue), "params": rejection.reason.paramsJSON]
            if let matches = rejection.matches { members["matches"] = .array(matches.map { .int($0) }) }
            return .object(members)
        case .account(let id, let reply):
            return AccountPresenter.json(id, reply)
        case .activity(let id, let items):
            return AccountPresenter.json(id, activity: items)
        case .sessionEnded(let reason):
            return ["type": "session", "role": .string(Role.spectator.rawValue), "reason": .string(reason.rawValue)]
        case .ackWithResult(let id, let version, let result):
            return ["type": "ack", "id": .string(id), "version": .int(version), "result": result]
        case .refereeSession(let grant):
            return ["type": "session", "role": .string(Role.referee.rawValue), "pitch": .int(grant.link.pitch),
                    "label": .string(grant.link.label), "link": .int(grant.link.id),
                    "expiresAt": .int(Int(grant.link.expiresAt)), "token": .string(grant.token)]
        case .referees(let links, let connected):
            return ["type": "referees", "referees": .array(links.map(refereeJSON)),
                    "connected": .array(connected.sorted().map { .int($0) })]
        case .error(let code, let message, let id, let reason):
            let sentence = reason ?? Sentence(SentenceKey(rawValue: code.rawValue) ?? .invalid)
            var members: [String: JSONValue] = ["type": "error", "code": .string(code.rawValue),
                                                "message": .string(message),
                                                "reason": .string(sentence.key.rawValue), "params": sentence.paramsJSON]
            if let id { members["id"] = .string(id) }
            return .object(members)
        }
    }

    /// The presence line as organisers read it while referee links exist: also `referees`, the
    /// links with a phone connected now (docs/PROTOCOL.md §20).
    public static func organiserPresence(organisers: [String], spectators: Int, remote: Int,
                                         referees: [Int]) -> [UInt8] {
        guard case .object(var members) = json(.presence(organisers: organisers, spectators: spectators, remote: remote))
        else { return [] }
        members["referees"] = .array(referees.sorted().map { .int($0) })
        return JSONWriter.bytes(.object(members))
    }

    /// One link as organisers see it: never its code, nor who made it.
    public static func refereeJSON(_ link: RefereeLink) -> JSONValue {
        ["id": .int(link.id), "pitch": .int(link.pitch), "label": .string(link.label),
         "expiresAt": .int(Int(link.expiresAt))]
    }

    /// A `snapshot` around a `state` object already rendered (the renderer keeps the v2 one),
    /// with the epoch it belongs to when there is one.
    public static func snapshot(version: Int, state: JSONValue, epoch: StreamEpoch? = nil) -> JSONValue {
        stamped(["type": "snapshot", "version": .int(version), "state": state], epoch)
    }

    /// A connection's first frame: `welcome` carries the epoch of the versions that follow it.
    public static func greeting(_ message: ServerMessage, epoch: StreamEpoch?) -> [UInt8] {
        guard case .welcome = message else { return bytes(message) }
        return JSONWriter.bytes(stamped(json(message), epoch))
    }

    /// `value` with `epoch` and `epochStartedAt` added (unchanged without an epoch).
    public static func stamped(_ value: JSONValue, _ epoch: StreamEpoch?) -> JSONValue {
        guard let epoch, case .object(var members) = value else { return value }
        members["epoch"] = .string(epoch.id)
        members["epochStartedAt"] = .int(Int(epoch.startedAt))
        return .object(members)
    }
}
