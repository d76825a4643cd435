import Dispatch
import GatherDelivery
import Synchronization

/// What the service thread wrote to WebSockets, for `/metrics`:
///
/// - `gather_fanout_latency_ms` (histogram): from a state version being handed to the Transport
///   (`deliver`, on the Coordinator's side) to the write that brought each connection to that
///   version — for gather.v2 its last patch — so a fan-out's p99 is "publish → last write".
///   Fine buckets (0.1 ms steps to 5 ms, 0.5 ms to 50 ms, 5 ms to 500 ms, 50 ms to 5 s), so a
///   percentile interpolated inside a bucket is off by at most one step.
/// - `gather_ws_bytes_written_total{protocol}` and `gather_ws_frames_written_total{protocol}`
///   (counters): the WebSocket messages handed to lws per wire protocol, frame headers
///   included, TLS excluded; pings are not counted.
///
/// The service loop counts into its own `FanOutCounter` (O(1), no lock) and publishes it here
/// a few times a second, so 10,000 writes cost no lock traffic.
public final class FanOutMetrics: Sendable {
    /// Bytes and messages written to one protocol's connections.
    public struct Written: Sendable, Equatable {
        public var bytes = 0
        public var frames = 0

        public init(bytes: Int = 0, frames: Int = 0) {
            self.bytes = bytes
            self.frames = frames
        }
    }

    public struct Reading: Sendable, Equatable {
        /// Upper bounds in ms; `counts` has one more entry, for +Inf.
        public static let bounds: [Double] = FineBuckets.bounds
        public var counts = Array(repeating: 0, count: bounds.count + 1)
        public var sumMilliseconds = 0.0
        public var total = 0
        public var v1 = Written()
        public var v2 = Written()
        public var club = Written()

        public init() {}

        public func written(_ wire: WireProtocol) -> Written {
            switch wire {
            case .v1: v1
            case .v2: v2
            case .club: club
            }
        }

        mutating func observe(milliseconds: Double) {
            counts[FineBuckets.index(milliseconds: milliseconds)] += 1
            sumMilliseconds += milliseconds
            total += 1
        }

        mutating func wrote(bytes: Int, frames: Int, wire: WireProtocol) {
            switch wire {
            case .v1: v1.bytes += bytes; v1.frames += frames
            case .v2: v2.bytes += bytes; v2.frames += frames
            case .club: club.bytes += bytes; club.frames += frames
            }
        }
    }

    private let published = Mutex(Reading())

    public init() {}

    public func read() -> Reading { published.withLock { $0 } }

    /// The service loop's counts, as of now.
    func publish(_ reading: Reading) { published.withLock { $0 = reading } }
}

/// What the service loop counts between two publishes: O(1) per write, no lock.
struct FanOutCounter {
    private var pending = FanOutMetrics.Reading()
    private var pendingChanged = false

    mutating func observe(publishedAt: UInt64, now: UInt64 = DispatchTime.now().uptimeNanoseconds) {
        pending.observe(milliseconds: Double(now &- publishedAt) / 1_000_000)
        pendingChanged = true
    }

    mutating func wrote(bytes: Int, frames: Int, wire: WireProtocol) {
        pending.wrote(bytes: bytes, frames: frames, wire: wire)
        pendingChanged = true
    }

    /// Shares the counts with other threads, when anything changed since the last time.
    mutating func publish(to metrics: FanOutMetrics) {
        guard pendingChanged else { return }
        pendingChanged = false
        metrics.publish(pending)
    }
}

/// The histogram's bucket layout, in tenths of a millisecond so that every bound prints exactly
/// (0.3, not 0.30000000000000004), and a bucket found by arithmetic rather than a search.
enum FineBuckets {
    /// Each range: up to `end` (exclusive of the previous range's end) in steps of `step`.
    private static let ranges: [(end: Int, step: Int)] = [(50, 1), (500, 5), (5_000, 50), (50_000, 500)]

    static let bounds: [Double] = {
        var bounds: [Double] = []
        var start = 0
        for range in ranges {
            var bound = start + range.step
            while bound <= range.end {
                bounds.append(Double(bound) / 10)
                bound += range.step
            }
            start = range.end
        }
        return bounds
    }()

    /// The bucket whose bound is the smallest ≥ `milliseconds` (`bounds.count` for +Inf).
    static func index(milliseconds: Double) -> Int {
        let tenths = milliseconds * 10
        var start = 0
        var first = 0
        for range in ranges {
            if tenths <= Double(range.end) {
                let steps = ((tenths - Double(start)) / Double(range.step)).rounded(.up)
                return first + max(0, Int(steps) - 1)
            }
            first += (range.end - start) / range.step
            start = range.end
        }
        return first
    }
}
