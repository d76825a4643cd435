/// The club scenario's verdict, from what the bench saw and the date as the database holds it at
/// the end (`GET /club/api/dates/DID`, an organiser's view): pure, so a failure names itself.
struct ClubChecks {
    /// One stored answer, as the organisers' view lists it.
    struct Stored: Equatable {
        let memberId: String
        let answer: String
        let guests: Int
        let state: String
        let position: Int?
        let answeredAt: Int
    }

    private(set) var failures: [String] = []
    private(set) var confirmedMembers = 0
    private(set) var seatsTaken = 0
    private(set) var waiting = 0

    /// `memberIds[i]` is member i's id; `guests[i]` what it asked for.
    init(outcomes: [ClubBurst.Outcome], memberIds: [String], guests: [Int], stored: [Stored], capacity: Int) {
        let unacknowledged = outcomes.enumerated().filter { $0.element.replies != 1 || $0.element.status != 200 }
        if let first = unacknowledged.first {
            failures.append("\(unacknowledged.count) answers not acknowledged exactly once with 200 (member \(first.offset): "
                + "\(first.element.replies) replies, \(first.element.error ?? "status \(first.element.status.map(String.init) ?? "none")"))")
        }
        let byMember = Dictionary(stored.map { ($0.memberId, $0) }, uniquingKeysWith: { first, _ in first })
        if byMember.count != stored.count { failures.append("\(stored.count - byMember.count) members hold two answers") }
        if stored.count != memberIds.count { failures.append("\(stored.count) answers stored for \(memberIds.count) members") }
        let expected = Set(memberIds)
        if let stranger = stored.first(where: { !expected.contains($0.memberId) }) {
            failures.append("an answer of \(stranger.memberId), not one of the bench's members")
        }
        for (index, id) in memberIds.enumerated() {
            guard let answer = byMember[id] else { failures.append("member \(index) has no stored answer"); continue }
            if answer.answer != "in" || answer.guests != guests[index] {
                failures.append("member \(index) stored \(answer.answer) +\(answer.guests), sent in +\(guests[index])")
            }
            let acknowledged = outcomes[index]
            if acknowledged.status == 200, acknowledged.state != answer.state || acknowledged.position != answer.position {
                failures.append("member \(index) was told \(acknowledged.state ?? "?") #\(acknowledged.position.map(String.init) ?? "-"), "
                    + "the database holds \(answer.state) #\(answer.position.map(String.init) ?? "-")")
            }
        }
        let holding = stored.filter { $0.state == "confirmed" || $0.state == "offered" }
        confirmedMembers = stored.filter { $0.state == "confirmed" }.count
        seatsTaken = holding.reduce(0) { $0 + 1 + $1.guests }
        if seatsTaken > capacity { failures.append("\(seatsTaken) seats confirmed or offered, capacity \(capacity)") }
        let line = stored.filter { $0.state == "waiting" }.sorted { ($0.position ?? .max) < ($1.position ?? .max) }
        waiting = line.count
        if line.enumerated().contains(where: { $0.element.position != $0.offset + 1 }) {
            failures.append("the waitlist's positions are not 1…\(line.count)")
        }
        if let jump = zip(line, line.dropFirst()).first(where: { $0.answeredAt > $1.answeredAt }) {
            failures.append("waitlist position \(jump.0.position ?? 0) answered after position \(jump.1.position ?? 0)")
        }
        if let odd = stored.first(where: { !["confirmed", "waiting", "offered"].contains($0.state) }) {
            failures.append("member \(odd.memberId) is \(odd.state) after answering in")
        }
        if failures.count > 12 { failures = Array(failures.prefix(12)) + ["… \(failures.count - 12) more"] }
    }

    var passed: Bool { failures.isEmpty }

    /// The `answers` of the organisers' date view; nil when it is not that shape.
    static func stored(fromDateView view: [String: Any]) -> [Stored]? {
        guard let answers = view["answers"] as? [[String: Any]] else { return nil }
        var result: [Stored] = []
        for entry in answers {
            guard let memberId = entry["memberId"] as? String, let answer = entry["answer"] as? String,
                  let guests = entry["guests"] as? Int, let state = entry["state"] as? String,
                  let answeredAt = entry["answeredAt"] as? Int else { return nil }
            result.append(Stored(memberId: memberId, answer: answer, guests: guests, state: state,
                                 position: entry["position"] as? Int, answeredAt: answeredAt))
        }
        return result
    }
}
