import Synchronization

/// Counters for `/healthz` and `/metrics`, written on the Coordinator's queue and read from the
/// Transport's service thread, so every access takes the lock.
public final class CoordinatorMetrics: Sendable {
    public struct Reading: Sendable {
        public var version = 0
        public var organisersOnline = 0
        public var spectatorsOnline = 0
        public var decisions = DecisionTally()
        /// Upper bounds in ms → count of ticks at most that late; the last bucket is +Inf.
        public var tickLateness = Histogram(bounds: [1, 2, 5, 10, 25, 50, 100, 250])
        public var queue = QueueReading()
    }

    /// The Coordinator queue's lanes, read live (a stuck queue updates nothing).
    public struct QueueReading: Sendable, Equatable {
        /// Events waiting, by lane (`control`, `organiser`, `spectator`).
        public var depth: [String: Int] = [:]
        /// How long each lane's oldest waiting event has waited, in ms.
        public var oldestWaitMs: [String: Double] = [:]
        /// Messages dropped because their lane was full, since start.
        public var dropped = 0
    }

    private let reading = Mutex(Reading())
    private let queueProbe: @Sendable () -> QueueReading

    public init() { queueProbe = { QueueReading() } }

    init(queue probe: @escaping @Sendable () -> QueueReading) { queueProbe = probe }

    public func read() -> Reading {
        var current = reading.withLock { $0 }
        current.queue = queueProbe()
        return current
    }

    func update(version: Int, decisions: DecisionTally) {
        reading.withLock { reading in
            reading.version = version
            reading.decisions = decisions
        }
    }

    func setPresence(organisers: Int, spectators: Int) {
        reading.withLock { reading in
            reading.organisersOnline = organisers
            reading.spectatorsOnline = spectators
        }
    }

    func recordTickLateness(ms: Int64) { reading.withLock { $0.tickLateness.observe(Double(ms)) } }
}

/// A cumulative histogram in the Prometheus sense.
public struct Histogram: Sendable {
    public let bounds: [Double]
    public private(set) var counts: [Int]
    public private(set) var sum = 0.0
    public private(set) var total = 0

    public init(bounds: [Double]) {
        self.bounds = bounds
        counts = Array(repeating: 0, count: bounds.count + 1)
    }

    public mutating func observe(_ value: Double) {
        let bucket = bounds.firstIndex { value <= $0 } ?? bounds.count
        counts[bucket] += 1
        sum += value
        total += 1
    }
}
