import Foundation

/// The measured part of the club scenario: every member answers `in` at its planned moment
/// (open loop: a slow answer does not delay the next member's), through its instance, each its own
/// HTTP request, at most `maximumInFlightPerInstance` at once to each instance (the Transport
/// accepts 32 connections from one address, and all the bench's come from 127.0.0.1). Latency is
/// request sent → 200 received; how late requests left against the plan is kept too.
struct ClubBurst {
    /// One member's answer as the bench saw it.
    struct Outcome {
        var replies = 0
        var status: Int?
        var error: String?
        var latencyNanoseconds: UInt64?
        /// How late the request left against the plan (the in-flight bound, a busy core).
        var lateNanoseconds: UInt64 = 0
        /// What the 200 said: `mine.state` and `mine.position`.
        var state: String?
        var position: Int?
    }

    let client: ClubHTTPClient
    let baseURLs: [String]
    let dateId: String
    /// Member tokens by member index.
    let tokens: [String]
    let maximumInFlightPerInstance: Int

    func run(_ plan: ClubArrivals, progress: (String) -> Void) -> [Outcome] {
        let record = OutcomeLog(count: tokens.count)
        let slots = baseURLs.map { _ in DispatchSemaphore(value: maximumInFlightPerInstance) }
        let allDone = DispatchGroup()
        let start = BenchClock.nanoseconds()
        var nextReport = 10.0
        for answer in plan.answers {
            let due = start + UInt64(answer.at * 1e9)
            while true {
                let now = BenchClock.nanoseconds()
                if now >= due { break }
                usleep(useconds_t(min((due - now) / 1_000, 1_000_000)))
            }
            let slot = slots[answer.instance]
            slot.wait()
            allDone.enter()
            let sentAt = BenchClock.nanoseconds()
            let body: [String: Any] = ["id": clubChangeId(), "date": dateId, "answer": "in", "guests": answer.guests]
            let member = answer.member
            client.send("POST", base: baseURLs[answer.instance], path: "/club/api/m/\(tokens[member])/answer", body: body) { result in
                let receivedAt = BenchClock.nanoseconds()
                record.update(member) { outcome in
                    outcome.replies += 1
                    outcome.lateNanoseconds = sentAt > due ? sentAt - due : 0
                    switch result {
                    case .failure(let error): outcome.error = error.description
                    case .success(let reply):
                        outcome.status = reply.status
                        if reply.status == 200 {
                            outcome.latencyNanoseconds = receivedAt - sentAt
                            let mine = ((reply.json as? [String: Any])?["date"] as? [String: Any])?["mine"] as? [String: Any]
                            outcome.state = mine?["state"] as? String
                            outcome.position = mine?["position"] as? Int
                        } else {
                            let error = (reply.json as? [String: Any])?["error"] as? [String: Any]
                            outcome.error = "HTTP \(reply.status) \(error?["code"] as? String ?? "")"
                        }
                    }
                }
                slot.signal()
                allDone.leave()
            }
            if answer.at >= nextReport {
                progress("\(member + 1) answers sent by \(Int(nextReport)) s")
                nextReport += 10
            }
        }
        if allDone.wait(timeout: .now() + 60) == .timedOut { progress("some answers were still unanswered 60 s after the last was sent") }
        return record.snapshot()
    }
}

/// The outcomes, written from the URLSession's threads.
private final class OutcomeLog: @unchecked Sendable {
    private let lock = NSLock()
    private var outcomes: [ClubBurst.Outcome]

    init(count: Int) { outcomes = Array(repeating: ClubBurst.Outcome(), count: count) }

    func update(_ index: Int, _ change: (inout ClubBurst.Outcome) -> Void) {
        lock.withLock { change(&outcomes[index]) }
    }

    func snapshot() -> [ClubBurst.Outcome] { lock.withLock { outcomes } }
}
