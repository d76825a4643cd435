import CLibWebSockets

// MARK: - The C entry point's shape

/// The signature of `lws_protocols.callback`: every callback of a protocol comes through one of these.
public typealias LWSCallback = @convention(c) (OpaquePointer?, lws_callback_reasons, UnsafeMutableRawPointer?,
                                               UnsafeMutableRawPointer?, Int) -> Int32

// MARK: - Finding the Swift owner of a context

/// The Swift object that owns an lws context is registered as the context's user pointer, so a C
/// callback can find it again from any `wsi` without a global table.
///
/// Unretained on purpose: the owner creates the context, destroys it on its service thread, and
/// outlives it, so the pointer can never dangle while lws can still call back.
public enum LWSContextOwner {
    /// Stores `owner` in the creation info, before `lws_create_context`.
    public static func register(_ owner: AnyObject, in info: inout lws_context_creation_info) {
        info.user = Unmanaged.passUnretained(owner).toOpaque()
    }

    /// The owner registered for the context of `wsi`. A context without one is a programming error
    /// (a callback arriving for a context some other code created), so this stops the process
    /// rather than answer lws with a silent 0 that would leave a connection half served.
    public static func owner<Owner: AnyObject>(of wsi: OpaquePointer, as type: Owner.Type = Owner.self) -> Owner {
        guard let context = lws_get_context(wsi), let user = lws_context_user(context) else {
            preconditionFailure("an lws callback came for a context with no \(Owner.self) registered")
        }
        return Unmanaged<Owner>.fromOpaque(user).takeUnretainedValue()
    }
}

// MARK: - Memory the creation info points into

/// C strings, the protocol list and the retry policy that `lws_context_creation_info` points to.
/// lws keeps those pointers for the whole life of the context, so they belong to one object that
/// is freed only after the context has been destroyed.
public final class LWSContextStorage {
    private var strings: [UnsafeMutablePointer<CChar>] = []
    private var protocolLists: [UnsafeMutablePointer<lws_protocols>] = []
    private var policies: [UnsafeMutablePointer<lws_retry_bo_t>] = []
    private var tables: [UnsafeMutablePointer<UInt32>] = []

    public init() {}

    deinit {
        strings.forEach { free($0) }
        protocolLists.forEach { $0.deallocate() }
        policies.forEach { $0.deallocate() }
        tables.forEach { $0.deallocate() }
    }

    /// A copy of `text` that lives as long as this storage.
    public func cString(_ text: String) -> UnsafePointer<CChar> {
        let pointer = strdup(text)!
        strings.append(pointer)
        return UnsafePointer(pointer)
    }

    /// The protocols followed by the zeroed entry that ends an lws protocol list.
    public func protocolList(_ protocols: [lws_protocols]) -> UnsafePointer<lws_protocols> {
        let list = UnsafeMutablePointer<lws_protocols>.allocate(capacity: protocols.count + 1)
        list.initialize(from: protocols + [lws_protocols()], count: protocols.count + 1)
        protocolLists.append(list)
        return UnsafePointer(list)
    }

    /// A retry and idle policy with lws's own validity pings set by the two timeouts; 0 and 0
    /// turns them off (the server pings from its own once-a-second sweep instead).
    public func retryPolicy(secondsSinceValidPing: UInt16, secondsSinceValidHangup: UInt16)
        -> UnsafePointer<lws_retry_bo_t>
    {
        let table = UnsafeMutablePointer<UInt32>.allocate(capacity: 1)
        table.pointee = 1000
        tables.append(table)
        let policy = UnsafeMutablePointer<lws_retry_bo_t>.allocate(capacity: 1)
        policy.pointee = lws_retry_bo_t(retry_ms_table: table, retry_ms_table_count: 1, conceal_count: 0,
                                        secs_since_valid_ping: secondsSinceValidPing,
                                        secs_since_valid_hangup: secondsSinceValidHangup, jitter_percent: 0)
        policies.append(policy)
        return UnsafePointer(policy)
    }
}
