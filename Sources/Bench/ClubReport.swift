import Foundation

/// What the club scenario measured and checked.
struct ClubResult {
    var members: Int
    var instances: Int
    var capacity: Int
    var windowSeconds: Double
    var seconds = 0.0
    var acknowledged = 0
    var latency: Distribution?
    /// The worst delay of a request against its planned moment (the bench's in-flight bound, the cores).
    var lateMaxMilliseconds = 0.0
    var firstArrivalsPerSecond = 0.0
    var databaseMicrosecondsPerAnswer: Double?
    var instanceMicrosecondsPerAnswer: [Double] = []
    var benchMicrosecondsPerAnswer: Double?
    var checks: ClubChecks?
    var error: String?

    /// Issue 43: acknowledged p99 ≤ 250 ms on this machine.
    static let p99TargetMilliseconds = 250.0

    var passed: Bool { error == nil && checks?.passed == true }
}

/// The club scenario in the table and in `--json`.
extension BenchReport {
    func clubLines() -> [String] {
        guard let club else { return [] }
        var lines = ["club: \(club.members) members answer `in` within \(format(club.windowSeconds, decimals: 0)) s of the date opening "
            + "(\(format(club.firstArrivalsPerSecond, decimals: 0))/s in the first 10 s), alternating over \(club.instances) "
            + "`gather club serve` instances on one PostgreSQL, capacity \(club.capacity)"]
        if let error = club.error { lines.append("  stopped: \(error)") }
        let latency = club.latency
        lines.append("  acknowledged (request sent → 200): \(club.acknowledged)/\(club.members); p50 \(ms(latency?.p50)), "
            + "p90 \(ms(latency?.p90)), p99 \(ms(latency?.p99)), max \(ms(latency?.max)); the last reply "
            + "\(format(club.seconds, decimals: 1)) s after the first request; requests left at most \(ms(club.lateMaxMilliseconds)) late")
        let instances = club.instanceMicrosecondsPerAnswer
        lines.append("  CPU per answer: PostgreSQL (postmaster and every backend) "
            + "\(club.databaseMicrosecondsPerAnswer.map { format($0 / 1000, decimals: 2) + " ms" } ?? "n/a"); the instances "
            + (instances.isEmpty ? "n/a" : format(instances.reduce(0, +) / 1000, decimals: 2) + " ms ("
                + instances.map { format($0 / 1000, decimals: 2) }.joined(separator: " + ") + ")")
            + "; the bench's own client \(club.benchMicrosecondsPerAnswer.map { format($0 / 1000, decimals: 2) + " ms" } ?? "n/a")")
        if let checks = club.checks {
            lines.append("  at the end: \(checks.confirmedMembers) confirmed holding \(checks.seatsTaken)/\(club.capacity) seats, "
                + "\(checks.waiting) waiting")
            lines.append(checks.passed
                ? "  checks: no seat over capacity, every answer acknowledged exactly once and held as acknowledged, "
                    + "the waitlist 1…\(checks.waiting) in answer order"
                : "  FAIL: " + checks.failures.joined(separator: "; "))
        } else {
            lines.append("  FAIL: the checks did not run")
        }
        if let p99 = latency?.p99 {
            let met = p99 <= ClubResult.p99TargetMilliseconds
            lines.append("  [\(met ? "met" : "MISSED")] acknowledged p99 ≤ \(format(ClubResult.p99TargetMilliseconds, decimals: 0)) ms "
                + "(\(ms(p99))) (issue 43)")
        }
        return lines
    }

    func clubJSON() -> [String: Any]? {
        guard let club else { return nil }
        var entry: [String: Any] = [
            "members": club.members, "instances": club.instances, "capacity": club.capacity,
            "windowSeconds": club.windowSeconds, "seconds": rounded(club.seconds), "acknowledged": club.acknowledged,
            "lateMaxMs": rounded(club.lateMaxMilliseconds),
            "instanceMicrosecondsPerAnswer": club.instanceMicrosecondsPerAnswer.map(rounded), "passed": club.passed,
        ]
        entry["acknowledgedMs"] = club.latency?.json
        entry["databaseMicrosecondsPerAnswer"] = club.databaseMicrosecondsPerAnswer.map(rounded)
        entry["benchMicrosecondsPerAnswer"] = club.benchMicrosecondsPerAnswer.map(rounded)
        if let checks = club.checks {
            entry["checks"] = ["failures": checks.failures, "confirmedMembers": checks.confirmedMembers,
                               "seatsTaken": checks.seatsTaken, "waiting": checks.waiting]
        }
        entry["error"] = club.error
        return entry
    }
}
