import Foundation

/// Who a bench connection plays: most are silent spectators, a few log in and press buttons.
enum ConnectionRole: Sendable {
    case spectator
    case organiser
}

/// One WebSocket of the bench, owned by the service thread (never touched from the driver).
final class BenchConnection {
    let number: Int
    let role: ConnectionRole
    /// Index among its role: spectator 0…N-1 or organiser 0…M-1.
    let index: Int
    var wsi: OpaquePointer?
    var incoming: [UInt8] = []
    var outgoing: [(bytes: [UInt8], id: String, timed: Bool)] = []
    /// The id of the last message sent, for a reply that comes back without one.
    var awaitingReply: String?
    var sawWelcome = false
    var ready = false
    var settled = false
    var lastVersion = -1
    var countedRound = 0
    var stalled = false
    var watchesTicks = false

    init(number: Int, role: ConnectionRole, index: Int) {
        self.number = number
        self.role = role
        self.index = index
    }
}

/// What the driver asked for, applied in order on the service thread.
enum EngineRequest {
    case open(number: Int, role: ConnectionRole, index: Int)
    /// `timed`: note when it left (a measured command).
    case send(number: Int, bytes: [UInt8], id: String, timed: Bool)
    case stall(number: Int)
}

/// A reply to a message that carried an `id`.
struct Reply {
    let summary: WireSummary
    let bytes: [UInt8]
    let receivedAt: UInt64
}

/// One `tick` as the watching spectator read it.
struct TickArrival {
    let arrivedAtEpochMs: Double
    let bytes: [UInt8]
}

/// The fan-out round in progress: which version counts and who has reached it.
struct Round {
    var number = 0
    var target = Int.max
    var expected = 0
    var reached = 0
}

/// Everything both threads read, guarded by the engine's condition lock.
struct EngineShared {
    var requests: [EngineRequest] = []
    var stopRequested = false
    var nextNumber = 1

    var readySpectators = 0
    var readyOrganisers = 0
    var failed = 0
    var closedAfterReady = 0
    var closedSpectators = 0
    var firstError: String?
    var lastReadyAt: UInt64 = 0

    var replies: [String: Reply] = [:]
    var sentAt: [String: UInt64] = [:]
    var organiserVersions: [Int: Int] = [:]
    var organiserSnapshots: [Int: [UInt8]] = [:]
    var latestVersion = -1
    var snapshotBytes = (smallest: Int.max, largest: 0)
    var patchBytes = (smallest: Int.max, largest: 0)

    var round = Round()
    /// Per spectator index: when it first held a version ≥ the round's target (0 = not yet).
    var arrivals: [UInt64] = []
    var ticks: [TickArrival] = []
    var stalledClosed = false

    /// Relay followers: messages read, versions skipped (a state message more than one version
    /// ahead), snapshots after the first (resyncs), the first time an organiser saw each version,
    /// and the last patch read (the floor writes the same bytes).
    var spectatorMessages = 0
    var skippedVersions = 0
    var resyncs = 0
    var firstSeen: [Int: UInt64] = [:]
    var samplePatch: [UInt8] = []
    /// Per version, how many ready spectators hold it.
    var holders: [Int: Int] = [:]
    var reported: Set<Int> = []

    /// A spectator moved from `old` to `version`: the versions every ready, open spectator now holds.
    mutating func noteHolders(from old: Int, to version: Int) -> [Int] {
        let expected = readySpectators - closedSpectators
        var complete: [Int] = []
        for passed in (old + 1)...version {
            let count = holders[passed, default: 0] + 1
            holders[passed] = count
            if count >= expected, !reported.contains(passed) {
                reported.insert(passed)
                complete.append(passed)
            }
        }
        return complete
    }
}

/// Monotonic nanoseconds for latencies, wall-clock milliseconds for ticks (which the server
/// schedules on epoch seconds).
enum BenchClock {
    static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }

    static func epochMilliseconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) * 1000 + Double(now.tv_nsec) / 1_000_000
    }
}
