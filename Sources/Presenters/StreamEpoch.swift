/// One run of the venue server: versions count within it. A server restarted (or restored from a
/// backup, with lower versions) starts a new epoch, and followers compare versions only within
/// one; between two epochs the later `startedAt` wins, so an old epoch's messages replayed later
/// roll nobody back.
public struct StreamEpoch: Sendable, Equatable {
    /// 8–64 of `A-Za-z0-9-_`, from a secure random source.
    public let id: String
    /// Epoch milliseconds: the server's start.
    public let startedAt: Int64

    /// nil unless `id` is 8–64 of `A-Za-z0-9-_`.
    public init?(id: String, startedAt: Int64) {
        guard Self.isValidID(id) else { return nil }
        self.id = id
        self.startedAt = startedAt
    }

    public static func isValidID(_ text: String) -> Bool {
        (8...64).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == 0x2D || byte == 0x5F
        }
    }

    /// Whether a snapshot of `other` may replace state held in this epoch: the same epoch (the
    /// version rule decides) or a later one.
    public func admits(_ other: StreamEpoch) -> Bool {
        other.id == id || other.startedAt > startedAt
    }
}
