import Synchronization

/// The owner of a NATS link or subscriber, named once the owner exists: their callbacks are made
/// in the owner's init, before `self` may be captured, so they reach it through this box (weakly:
/// the owner holds them, not the other way round). Lets the owner keep them in `let`s.
final class WeakTarget<Target: AnyObject & Sendable>: Sendable {
    private struct Reference: Sendable {
        weak var target: Target?
    }

    private let reference = Mutex(Reference())

    init() {}

    func set(_ target: Target) { reference.withLock { $0.target = target } }

    var target: Target? { reference.withLock { $0.target } }
}
