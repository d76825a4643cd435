import Foundation
import GatherPresenters

/// Counters for `/healthz` and `/metrics`, written on the Coordinator's queue and read from the
/// Transport's service thread, so every access takes the lock.
public final class CoordinatorMetrics: @unchecked Sendable {
    public struct Reading: Sendable {
        public var version = 0
        public var organisersOnline = 0
        public var spectatorsOnline = 0
        public var commandsApplied = 0
        public var rejectionsByCode: [String: Int] = [:]
        public var errorsByCode: [String: Int] = [:]
        /// Upper bounds in ms → count of ticks at most that late; the last bucket is +Inf.
        public var tickLateness = Histogram(bounds: [1, 2, 5, 10, 25, 50, 100, 250])
        public var latestSnapshot: [UInt8] = []
    }

    private let lock = NSLock()
    private var reading = Reading()

    public init() {}

    public func read() -> Reading { lock.withLock { reading } }

    func setVersion(_ version: Int) { lock.withLock { reading.version = version } }
    func setSnapshot(_ bytes: [UInt8]) { lock.withLock { reading.latestSnapshot = bytes } }

    func setPresence(organisers: Int, spectators: Int) {
        lock.withLock {
            reading.organisersOnline = organisers
            reading.spectatorsOnline = spectators
        }
    }

    func record(_ message: ServerMessage) {
        lock.withLock {
            switch message {
            case .ack: reading.commandsApplied += 1
            case .rejected(_, let rejection, _): reading.rejectionsByCode[rejection.code.rawValue, default: 0] += 1
            case .error(let code, _, _): reading.errorsByCode[code.rawValue, default: 0] += 1
            default: break
            }
        }
    }

    func recordTickLateness(ms: Int64) { lock.withLock { reading.tickLateness.observe(Double(ms)) } }
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
