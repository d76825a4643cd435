import CLibWebSockets

/// An lws "sorted usec list" entry that runs a Swift closure on the service loop, outside any
/// connection's callback. The closure is found again from the entry's address, which is the
/// start of this allocation. Used by the server's once-a-second upkeep and by gather-bench.
public final class LoopTimer {
    private let entry: UnsafeMutablePointer<lws_sorted_usec_list_t>
    private var context: OpaquePointer?
    private var action: () -> Void = {}

    public init() {
        entry = UnsafeMutablePointer<lws_sorted_usec_list_t>.allocate(capacity: 1)
        entry.initialize(to: lws_sorted_usec_list_t())
    }

    deinit { entry.deallocate() }

    /// Service thread, before the loop runs.
    public func attach(_ context: OpaquePointer, _ action: @escaping () -> Void) {
        self.context = context
        self.action = action
        LoopTimer.registry[UnsafeMutableRawPointer(entry)] = self
    }

    /// Runs the action on the loop after `microseconds` (default: its next turn). Service thread.
    public func schedule(afterMicroseconds microseconds: Int64 = 1) {
        guard let context else { return }
        lws_sul_schedule(context, 0, entry, loopTimerThunk, lws_usec_t(microseconds))
    }

    fileprivate static func fire(_ entry: UnsafeMutablePointer<lws_sorted_usec_list_t>) {
        registry[UnsafeMutableRawPointer(entry)]?.action()
    }

    /// Service thread only (every engine's timers live on its one service thread).
    nonisolated(unsafe) private static var registry: [UnsafeMutableRawPointer: LoopTimer] = [:]

    public func detach() { LoopTimer.registry[UnsafeMutableRawPointer(entry)] = nil }
}

private let loopTimerThunk: @convention(c) (UnsafeMutablePointer<lws_sorted_usec_list_t>?) -> Void = { entry in
    if let entry { LoopTimer.fire(entry) }
}
