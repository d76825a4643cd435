#if canImport(Glibc)
import Glibc
#endif

/// The process's open-file limit, which bounds how many sockets an lws context can hold.
public enum FileDescriptorLimit {
    /// Room for the database, certificates and pages besides the sockets.
    public static let headroom = 1_024

    /// Sets the soft open-file limit to what `connections` sockets need, within the hard limit.
    ///
    /// Thousands of phones need thousands of sockets and the soft limit is often 1024. It is also
    /// *lowered* when far above the need: lws allocates two tables with one slot per possible
    /// descriptor, so a soft limit of a million would reserve memory for nothing.
    public static func fit(connections: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        let wanted = rlim_t(max(connections, 0) + headroom)
        limit.rlim_cur = limit.rlim_max == rlim_t.max ? wanted : min(wanted, limit.rlim_max)
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// Raises the soft limit to the hard one (a load generator wants every socket it may have);
    /// returns the limit now in force.
    @discardableResult
    public static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return Int(clamping: limit.rlim_cur)
    }
}
