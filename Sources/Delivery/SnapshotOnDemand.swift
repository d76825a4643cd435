import Synchronization

/// One version's gather.v2 snapshot, rendered the first time something reads it and then kept.
/// A relay's followers mostly chain patches, so most versions never need their snapshot; the ones
/// that do (a new follower, a catch-up beyond the window, a follower too far behind) share one
/// rendering, however many of them read it.
public final class SnapshotOnDemand: Sendable {
    private enum Held {
        case pending(@Sendable () -> [UInt8])
        case rendered([UInt8])
    }

    private let held: Mutex<Held>

    /// Bytes already rendered (the venue server renders every snapshot it publishes anyway).
    public init(rendered bytes: [UInt8]) { held = Mutex(.rendered(bytes)) }

    /// `render` runs at most once, on the first reader's thread; what it captured is let go then.
    public init(render: @escaping @Sendable () -> [UInt8]) { held = Mutex(.pending(render)) }

    public var bytes: [UInt8] {
        held.withLock { held in
            switch held {
            case .rendered(let bytes):
                return bytes
            case .pending(let render):
                let bytes = render()
                held = .rendered(bytes)
                return bytes
            }
        }
    }

    /// Whether it has been rendered (read) yet.
    public var isRendered: Bool {
        held.withLock { held in
            if case .rendered = held { return true }
            return false
        }
    }
}
