import Dispatch
import Foundation

/// How long a published snapshot took to reach each connection's socket: from `perform` on the
/// Coordinator's side to the `lws_write` for that connection. The service thread counts into a
/// private copy and publishes it under the lock a few times a second, so 10,000 writes cost no
/// lock traffic.
public final class FanOutMetrics: @unchecked Sendable {
    public struct Reading: Sendable, Equatable {
        /// Upper bounds in ms; `counts` has one more entry, for +Inf.
        public static let bounds: [Double] = [1, 2, 5, 10, 25, 50, 100, 150, 250, 500, 1000]
        public var counts = Array(repeating: 0, count: bounds.count + 1)
        public var sumMilliseconds = 0.0
        public var total = 0

        public init() {}

        mutating func observe(milliseconds: Double) {
            counts[Self.bounds.firstIndex { milliseconds <= $0 } ?? Self.bounds.count] += 1
            sumMilliseconds += milliseconds
            total += 1
        }
    }

    private let lock = NSLock()
    private var published = Reading()
    /// Service thread only.
    private var pending = Reading()

    public init() {}

    public func read() -> Reading { lock.withLock { published } }

    func observe(publishedAt: UInt64, now: UInt64 = DispatchTime.now().uptimeNanoseconds) {
        pending.observe(milliseconds: Double(now &- publishedAt) / 1_000_000)
    }

    func publish() {
        guard pending.total != lock.withLock({ published.total }) else { return }
        let copy = pending
        lock.withLock { published = copy }
    }
}
