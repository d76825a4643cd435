import CLibWebSockets

/// An lws "sorted usec list" entry that runs a Swift closure on the service loop, outside any
/// connection's callback. Used by the server's once-a-second upkeep and by gather-bench.
///
/// The entry is the start of an allocation whose next word is this timer, unretained: the C
/// callback gets the entry's address and finds the timer there, with no global table, so timers
/// of several loops on several threads never share state.
public final class LoopTimer {
    private static let ownerOffset = (MemoryLayout<lws_sorted_usec_list_t>.stride + 15) & ~15
    private let allocation: UnsafeMutableRawPointer
    private var entry: UnsafeMutablePointer<lws_sorted_usec_list_t> {
        allocation.assumingMemoryBound(to: lws_sorted_usec_list_t.self)
    }
    private var context: OpaquePointer?
    private var action: () -> Void = {}

    public init() {
        allocation = .allocate(byteCount: Self.ownerOffset + MemoryLayout<UnsafeMutableRawPointer>.stride, alignment: 16)
        allocation.initializeMemory(as: lws_sorted_usec_list_t.self, repeating: lws_sorted_usec_list_t(), count: 1)
        (allocation + Self.ownerOffset).storeBytes(of: nil, as: UnsafeMutableRawPointer?.self)
    }

    deinit { allocation.deallocate() }

    /// Service thread, before the loop runs.
    public func attach(_ context: OpaquePointer, _ action: @escaping () -> Void) {
        self.context = context
        self.action = action
        (allocation + Self.ownerOffset).storeBytes(of: Unmanaged.passUnretained(self).toOpaque(),
                                                   as: UnsafeMutableRawPointer?.self)
    }

    /// Runs the action on the loop after `microseconds` (default: its next turn). Service thread.
    public func schedule(afterMicroseconds microseconds: Int64 = 1) {
        guard let context else { return }
        lws_sul_schedule(context, 0, entry, loopTimerThunk, lws_usec_t(microseconds))
    }

    /// Service thread; after this a late firing does nothing.
    public func detach() {
        (allocation + Self.ownerOffset).storeBytes(of: nil, as: UnsafeMutableRawPointer?.self)
    }

    /// The timer whose entry lws hands back, if it is still attached.
    fileprivate static func owner(of entry: UnsafeMutableRawPointer) -> LoopTimer? {
        guard let owner = (entry + ownerOffset).load(as: UnsafeMutableRawPointer?.self) else { return nil }
        return Unmanaged<LoopTimer>.fromOpaque(owner).takeUnretainedValue()
    }

    fileprivate func fire() { action() }
}

private let loopTimerThunk: @convention(c) (UnsafeMutablePointer<lws_sorted_usec_list_t>?) -> Void = { entry in
    guard let entry else { return }
    LoopTimer.owner(of: UnsafeMutableRawPointer(entry))?.fire()
}
