import Foundation

/// `--scenario club`: the club's busiest minute. A private PostgreSQL, two real
/// `gather club serve` instances on it, an organiser, a fixture (capacity 60, the contract's
/// most) and 500 members (set up, not measured); the club's clock is moved to the moment the
/// next date opens, then every member answers `in` within the first minute, alternating between
/// the instances, half of them in the first 10 s (`ClubArrivals`). Measured: each answer's
/// acknowledged latency, the database's CPU (postmaster and every backend) and the instances'
/// CPU per answer. Checked at the end (`ClubChecks`): no seat over capacity, every answer
/// acknowledged exactly once and held as acknowledged, the waitlist 1…N in answer order.
struct ClubScenario {
    struct Options {
        var executable: String
        var publicDirectory: String
        var postgresBin: String?
        var members = 500
        var instances = 2
        var capacity = 60
        var windowSeconds = 60.0
        /// Below the Transport's 32 connections per address (the bench's all come from 127.0.0.1).
        var maximumInFlightPerInstance = 24
    }

    let options: Options
    let progress: (String) -> Void

    func run() -> ClubResult {
        var result = ClubResult(members: options.members, instances: options.instances, capacity: options.capacity,
                                windowSeconds: options.windowSeconds)
        let rig: ClubRig
        do { rig = try ClubRig(postgresBin: options.postgresBin) } catch {
            result.error = "\(error)"
            return result
        }
        let interrupt = InterruptCleanup { rig.stop() }
        defer {
            rig.stop()
            interrupt.cancel()
        }
        do {
            try rig.start(executable: options.executable, publicDirectory: options.publicDirectory,
                          instances: options.instances, progress: progress)
            try measure(rig, into: &result)
        } catch {
            progress("the club scenario failed: \(error)")
            result.error = "\(error)"
        }
        return result
    }

    private func measure(_ rig: ClubRig, into result: inout ClubResult) throws {
        let client = ClubHTTPClient()
        defer { client.invalidate() }
        let setup = ClubSetup(client: client, base: rig.baseURLs[0])
        let token = try setup.registerOrganiser()
        progress("adding \(options.members) members")
        let members = try setup.addMembers(options.members, token: token)
        let date = try setup.openNextDate(capacity: options.capacity, token: token)
        progress("date \(date) is open: \(options.members) members answer within \(Int(options.windowSeconds)) s")

        let plan = ClubArrivals(members: options.members, instances: options.instances, windowSeconds: options.windowSeconds)
        let burst = ClubBurst(client: client, baseURLs: rig.baseURLs, dateId: date, tokens: members.map(\.token),
                              maximumInFlightPerInstance: options.maximumInFlightPerInstance)
        guard let postmaster = rig.postgres.postmasterPID else { throw BenchError("PostgreSQL has no postmaster PID") }
        let instancePIDs = rig.instancePIDs
        let databaseBefore = ProcessTreeCPU.microseconds(root: postmaster)
        let instancesBefore = instancePIDs.map { ProcessCPU.preciseMicroseconds(of: $0) }
        let ownBefore = ProcessCPU.ownMicroseconds()
        let startedAt = BenchClock.nanoseconds()
        let outcomes = burst.run(plan, progress: progress)
        result.seconds = Double(BenchClock.nanoseconds() - startedAt) / 1e9
        let databaseAfter = ProcessTreeCPU.microseconds(root: postmaster)
        let instancesAfter = instancePIDs.map { ProcessCPU.preciseMicroseconds(of: $0) }
        let answers = Double(options.members)
        if let before = databaseBefore, let after = databaseAfter { result.databaseMicrosecondsPerAnswer = (after - before) / answers }
        result.instanceMicrosecondsPerAnswer = zip(instancesBefore, instancesAfter).compactMap { before, after in
            guard let before, let after else { return nil }
            return (after - before) / answers
        }
        result.benchMicrosecondsPerAnswer = (ProcessCPU.ownMicroseconds() - ownBefore) / answers
        result.acknowledged = outcomes.filter { $0.status == 200 }.count
        result.latency = Distribution(nanoseconds: outcomes.compactMap(\.latencyNanoseconds))
        result.lateMaxMilliseconds = Double(outcomes.map(\.lateNanoseconds).max() ?? 0) / 1e6
        result.firstArrivalsPerSecond = Double(plan.answers.filter { $0.at < 10 }.count) / 10

        let view = try client.call("GET", base: rig.baseURLs[1 % rig.baseURLs.count], path: "/club/api/dates/\(date)", token: token)
        guard let stored = ClubChecks.stored(fromDateView: view) else { throw BenchError("the date's view has no answers list") }
        let checks = ClubChecks(outcomes: outcomes, memberIds: members.map(\.id), guests: plan.answers.map(\.guests),
                                stored: stored, capacity: options.capacity)
        result.checks = checks
    }
}

/// The scenario's set-up through the API (not measured): an organiser, the members, the date.
struct ClubSetup {
    let client: ClubHTTPClient
    let base: String

    struct Member {
        let id: String
        let token: String
    }

    func registerOrganiser() throws -> String {
        let password = (0..<3).map { _ in String(UInt64.random(in: 1 << 60...UInt64.max), radix: 36) }.joined()
        let reply = try client.call("POST", base: base, path: "/club/api/register", body: [
            "id": clubChangeId(), "username": "bench-organiser", "password": password, "inviteCode": ClubRig.inviteCode,
        ])
        guard let token = reply["token"] as? String else { throw BenchError("register gave no token") }
        return token
    }

    /// `count` members, eight requests at a time; their ids and link tokens, in order.
    func addMembers(_ count: Int, token: String) throws -> [Member] {
        let added = AddedMembers(count: count)
        DispatchQueue.concurrentPerform(iterations: 8) { lane in
            for index in stride(from: lane, to: count, by: 8) {
                do {
                    let reply = try client.call("POST", base: base, path: "/club/api/members", body: [
                        "id": clubChangeId(), "name": String(format: "Member %03d", index + 1),
                    ], token: token)
                    guard let id = (reply["member"] as? [String: Any])?["id"] as? String,
                          let link = reply["link"] as? String, let tokenPart = link.split(separator: "/").last
                    else { throw BenchError("a member without an id or link") }
                    added.set(index, Member(id: id, token: String(tokenPart)))
                } catch {
                    added.fail(error)
                    return
                }
            }
        }
        return try added.all()
    }

    /// The members as the set-up's lanes add them.
    private final class AddedMembers: @unchecked Sendable {
        private let lock = NSLock()
        private var members: [Member?]
        private var firstError: Error?

        init(count: Int) { members = Array(repeating: nil, count: count) }
        func set(_ index: Int, _ member: Member) { lock.withLock { members[index] = member } }
        func fail(_ error: Error) { lock.withLock { if firstError == nil { firstError = error } } }
        func all() throws -> [Member] {
            try lock.withLock {
                if let firstError { throw firstError }
                return members.compactMap { $0 }
            }
        }
    }

    /// A fixture two days from now at 10:00 UTC, opening 24 hours before; the club's clock is then
    /// moved to that date's opening. Returns the date's id.
    func openNextDate(capacity: Int, token: String) throws -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let sunday1 = calendar.component(.weekday, from: Date(timeIntervalSinceNow: 2 * 86_400))
        let weekday = (sunday1 + 5) % 7 + 1  // Foundation's 1 = Sunday to the contract's 1 = Monday
        let fixture = try client.call("POST", base: base, path: "/club/api/fixtures", body: [
            "id": clubChangeId(), "title": "Sunday 7-a-side", "weekday": weekday, "time": "10:00", "durationMinutes": 90,
            "place": "Riverside", "capacity": capacity, "opensHoursBefore": 24,
        ], token: token)
        guard let fixtureId = (fixture["fixture"] as? [String: Any])?["id"] as? String else {
            throw BenchError("the fixture has no id")
        }
        let club = try client.call("GET", base: base, path: "/club/api/club", token: token)
        let dates = (club["dates"] as? [[String: Any]] ?? []).filter { $0["fixtureId"] as? String == fixtureId }
        guard let now = club["now"] as? Int,
              let next = dates.min(by: { ($0["startsAt"] as? Int ?? .max) < ($1["startsAt"] as? Int ?? .max) }),
              let dateId = next["id"] as? String, let opensAt = next["opensAt"] as? Int
        else { throw BenchError("the fixture has no date in the club's view") }
        if opensAt > now {
            _ = try client.call("POST", base: base, path: "/club/api/test/clock", body: ["id": clubChangeId(), "advanceMs": opensAt - now])
        }
        return dateId
    }
}
