import GatherTransport
import Synchronization

/// Holds the Transport's handle for the closures made before it exists (the source's deliver,
/// the routes), for `gather serve` and `gather relay` alike. Set once, on the starting thread,
/// before any connection can open; read from the source's queue and the service thread.
final class TransportBox: Sendable {
    private let stored = Mutex<LiveServer?>(nil)

    var server: LiveServer? {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}
