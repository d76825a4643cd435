import Synchronization

/// Where SIGINT goes while lws's event-library loop owns it. On libev, lws installs its own
/// SIGINT watcher (replacing the process's handler) and, unless given a callback, stops its loop
/// on Ctrl-C without a proper shutdown. The callback below hands the signal to whoever runs the
/// shutdown (the App's signal waiter); it is process-wide because signals are.
public enum InterruptForwarding {
    private static let handler = Mutex<(@Sendable (Int32) -> Void)?>(nil)

    /// Set once at start-up by the App.
    public static func install(_ handler: @escaping @Sendable (Int32) -> Void) {
        Self.handler.withLock { $0 = handler }
    }

    fileprivate static func deliver(_ signal: Int32) {
        let handler = Self.handler.withLock { $0 }
        handler?(signal)
    }
}

/// `lws_context_creation_info.signal_cb`: called on the service thread by lws's libev loop.
let lwsSignalThunk: @convention(c) (UnsafeMutableRawPointer?, Int32) -> Void = { _, signal in
    InterruptForwarding.deliver(signal)
}
