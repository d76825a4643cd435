import Foundation

/// One measured command: when it left, when its reply came, and when each spectator saw it.
struct PressOutcome {
    let replyType: String
    let ackNanoseconds: UInt64?
    let spectatorNanoseconds: [UInt64]
    let missingSpectators: Int
    /// The reply's size on the wire (frame header included), for the server's byte counts.
    let replyBytes: Int
    /// When the command left (monotonic ns) and the version it asked for.
    var sentAt: UInt64 = 0
    var targetVersion = 0
}

/// Speaks gather.v1 as organisers (the driver reads their snapshots' state; spectators may speak
/// either protocol): logs in, sends commands one at a time and waits for every
/// spectator to hold the version each one produced.
///
/// Organisers and spectators run on separate client engines (two lws loops, two threads), as
/// an organiser's phone is not the spectators' phones: otherwise every ack would be read only
/// after the bench had parsed that press's snapshot for all spectators.
final class GatherDriver {
    /// The organisers' connections.
    let organiserEngine: ClientEngine
    /// The spectators' connections, whose arrivals each press waits for.
    let spectatorEngine: ClientEngine
    let inviteCode: String
    let tag: String
    private(set) var organisers: [Int] = []
    private var lastSentAt: [UInt64] = []
    private var nextID = 0
    /// The version the server is at, as far as our replies tell.
    var currentVersion = 0
    /// How many spectators every round waits for at least; spectators whose handshake finished
    /// late (after the connect phase gave up waiting) are counted in as they arrive.
    var activeSpectators = 0
    /// A spectator left out of the samples (the stalled one).
    var excludedSpectator: Int?
    private(set) var rejections: [String: Int] = [:]

    /// The server's token bucket refills 20 commands a second per connection; stay under it.
    private let organiserGapNanoseconds: UInt64 = 60_000_000
    /// Generous: a press slower than this is a failure worth a clear message, not a hang.
    private let replyTimeout = 60.0

    init(organiserEngine: ClientEngine, spectatorEngine: ClientEngine, inviteCode: String, tag: String) {
        self.organiserEngine = organiserEngine
        self.spectatorEngine = spectatorEngine
        self.inviteCode = inviteCode
        self.tag = tag
    }

    // MARK: - Organisers

    /// Opens `count` connections and registers each (or logs in when the name is taken).
    func connectOrganisers(_ count: Int) throws {
        organisers = organiserEngine.open(.organiser, count: count)
        lastSentAt = Array(repeating: 0, count: count)
        guard organiserEngine.wait(seconds: 30, until: { $0.readyOrganisers + $0.failed >= count }),
              organiserEngine.read({ $0.readyOrganisers }) == count
        else { throw BenchError("organisers could not connect: \(organiserEngine.read { $0.firstError ?? "timed out" })") }
        for (index, number) in organisers.enumerated() {
            let credentials: [String: Any] = ["username": "bench_\(tag)_\(index)", "password": "bench-password-\(tag)"]
            var reply = try request(on: number, ["type": "register", "inviteCode": inviteCode].merging(credentials) { $1 })
            if reply["code"] as? String == "username_taken" {
                reply = try request(on: number, ["type": "login"].merging(credentials) { $1 })
            }
            guard reply["type"] as? String == "session", reply["role"] as? String == "organiser" else {
                throw BenchError("organiser \(index) could not log in: \(reply["code"] ?? "?") \(reply["message"] ?? "")")
            }
        }
        currentVersion = max(0, organiserEngine.read { $0.latestVersion })
    }

    /// Sends one message with a fresh `id` and returns the reply, decoded.
    func request(on number: Int, _ message: [String: Any], timeout: Double = 30) throws -> [String: Any] {
        let id = makeID()
        var message = message
        message["id"] = id
        organiserEngine.post([.send(number: number, bytes: try encode(message), id: id, timed: false)])
        guard organiserEngine.wait(seconds: timeout, until: { $0.replies[id] != nil }),
              let reply = organiserEngine.update({ $0.replies.removeValue(forKey: id) })
        else { throw BenchError("no reply to \(message["type"] ?? "?") within \(Int(timeout)) s") }
        return decode(reply.bytes) ?? [:]
    }

    /// The state in organiser `index`'s latest snapshot.
    func latestState(organiser index: Int = 0) -> [String: Any] {
        guard let bytes = organiserEngine.read({ $0.organiserSnapshots[index] }), let snapshot = decode(bytes) else { return [:] }
        return snapshot["state"] as? [String: Any] ?? [:]
    }

    // MARK: - Commands

    /// Sends one command and waits for its reply and, when applied, for every active spectator
    /// to hold the version it produced.
    @discardableResult
    func command(_ action: [String: Any], organiser: Int = 0) throws -> PressOutcome {
        pace(organiser)
        let id = makeID()
        let message: [String: Any] = ["type": "command", "id": id, "base": currentVersion, "action": action]
        let bytes = try encode(message)
        let target = currentVersion + 1
        spectatorEngine.update { shared in
            shared.round.number += 1
            shared.round.target = target
            let stalled = excludedSpectator == nil ? 0 : 1
            shared.round.expected = max(activeSpectators, shared.readySpectators - shared.closedSpectators - stalled)
            shared.round.reached = 0
            for index in shared.arrivals.indices { shared.arrivals[index] = 0 }
        }
        organiserEngine.post([.send(number: organisers[organiser], bytes: bytes, id: id, timed: true)])
        lastSentAt[organiser] = BenchClock.nanoseconds()
        organiserEngine.wait(seconds: replyTimeout) { $0.replies[id] != nil }
        let (reply, sentAt) = organiserEngine.update { shared in
            (shared.replies.removeValue(forKey: id), shared.sentAt.removeValue(forKey: id))
        }
        guard let reply, let sentAt else {
            throw BenchError("no reply to \(action["kind"] ?? "?") within \(Int(replyTimeout)) s")
        }
        if reply.summary.type == "ack" {
            spectatorEngine.wait(seconds: replyTimeout) { $0.round.reached >= $0.round.expected }
        }
        let (arrivals, expected) = spectatorEngine.read { ($0.arrivals, $0.round.expected) }
        let replyType = reply.summary.type ?? "?"
        if replyType == "ack" {
            currentVersion = max(currentVersion, reply.summary.version ?? target)
        } else {
            let decoded = decode(reply.bytes) ?? [:]
            let code = decoded["code"] as? String ?? replyType
            rejections[code, default: 0] += 1
            if let version = decoded["version"] as? Int { currentVersion = version }
        }
        var latencies: [UInt64] = []
        latencies.reserveCapacity(arrivals.count)
        for (index, arrival) in arrivals.enumerated() where arrival >= sentAt && index != excludedSpectator {
            latencies.append(arrival - sentAt)
        }
        return PressOutcome(replyType: replyType,
                            ackNanoseconds: replyType == "ack" ? reply.receivedAt - sentAt : nil,
                            spectatorNanoseconds: latencies,
                            missingSpectators: replyType == "ack" ? max(0, expected - latencies.count) : 0,
                            replyBytes: reply.bytes.count + frameHeaderBytes(payload: reply.bytes.count),
                            sentAt: sentAt, targetVersion: target)
    }

    /// A command the run cannot do without: a rejection ends the bench with the server's reason.
    func require(_ action: [String: Any]) throws {
        let outcome = try command(action)
        guard outcome.replyType == "ack" else {
            throw BenchError("the server refused \(action["kind"] ?? "?") (\(outcome.replyType)); see rejections \(rejections)")
        }
    }

    private func pace(_ organiser: Int) {
        let since = BenchClock.nanoseconds() &- lastSentAt[organiser]
        if lastSentAt[organiser] != 0, since < organiserGapNanoseconds {
            usleep(UInt32((organiserGapNanoseconds - since) / 1000))
        }
    }

    // MARK: - JSON

    private func makeID() -> String {
        nextID += 1
        return "bench-\(tag)-\(nextID)"
    }

    private func encode(_ message: [String: Any]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: message))
    }

    func decode(_ bytes: [UInt8]) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }
}
