import Dispatch

/// State that only one serial queue may touch, checked on every access in release builds too,
/// in the spirit of swift-nio's `NIOLoopBound`: the owner stays `Sendable` because the compiler
/// can trust the box, and a read or write from the wrong thread stops the process at the line
/// that made it instead of corrupting state quietly.
public final class QueueBound<Value>: @unchecked Sendable {
    /// The queue whose work items alone may read or change `value`.
    public let queue: DispatchQueue
    private var storage: Value

    /// Makes the box. Call it anywhere: the value is not read until `value` is first used.
    public init(_ value: Value, queue: DispatchQueue) {
        self.queue = queue
        self.storage = value
    }

    /// The value; traps (`dispatchPrecondition`, kept in release builds) off `queue`.
    public var value: Value {
        get {
            dispatchPrecondition(condition: .onQueue(queue))
            return storage
        }
        _modify {
            dispatchPrecondition(condition: .onQueue(queue))
            yield &storage
        }
    }

    /// Runs `body` with the value in place (`inout`), on the calling queue, which must be `queue`.
    @discardableResult
    public func withValue<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        dispatchPrecondition(condition: .onQueue(queue))
        return try body(&storage)
    }
}
