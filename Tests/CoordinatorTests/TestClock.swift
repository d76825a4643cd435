import Foundation

/// A clock for tests: time moves only when the test says so.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Int64

    init(now: Int64 = 1_763_800_000_000) { current = now }

    var now: Int64 { lock.withLock { current } }

    func advance(byMs milliseconds: Int64) { lock.withLock { current += milliseconds } }

    func set(_ milliseconds: Int64) { lock.withLock { current = milliseconds } }
}
