/// The venue's watch over its own stream: whoever holds the venue's NATS user can write the state
/// subject too, and messages planted there (ids ahead of the venue's, a replayed old snapshot
/// with a rollup) would make JetStream drop the venue's real patches or leave relays an old run.
/// A pure value on the publisher's queue: it is told each stored publication's acknowledgement
/// and each read of the stream's last message, and says whether the stream still holds only what
/// the venue wrote. A fault is repaired by a snapshot (its rollup clears what was planted).
public struct StreamIntegrity: Sendable, Equatable {
    public enum Verdict: Equatable, Sendable {
        case fine
        /// Publish a snapshot now; `reason` is for the log.
        case fault(reason: String)
    }

    /// The last message this run stored: its stream sequence and bytes.
    public private(set) var lastStored: (sequence: UInt64, body: [UInt8])?

    public init() {}

    public static func == (lhs: StreamIntegrity, rhs: StreamIntegrity) -> Bool {
        lhs.lastStored?.sequence == rhs.lastStored?.sequence && lhs.lastStored?.body == rhs.lastStored?.body
    }

    /// JetStream acknowledged a state publication. A duplicate stored nothing: a message with the
    /// venue's next id was already there. A sequence that is not the one after the venue's last
    /// means someone else stored messages in between.
    public mutating func stored(sequence: UInt64, duplicate: Bool, body: [UInt8]) -> Verdict {
        if duplicate {
            return .fault(reason: "JetStream took a version as a duplicate: the stream holds a message with the venue's next id")
        }
        defer { lastStored = (sequence, body) }
        guard let last = lastStored, sequence != last.sequence &+ 1 else { return .fine }
        return .fault(reason: "the stream stored \(sequence > last.sequence ? sequence - last.sequence - 1 : 0) message(s) "
                      + "the venue did not publish since its sequence \(last.sequence)")
    }

    /// The stream's last message on the state subject, as read now (nil: not read, or none).
    public func lastMessageRead(_ read: (sequence: UInt64, body: [UInt8])?) -> Verdict {
        guard let read, let last = lastStored else { return .fine }
        guard read.sequence != last.sequence || read.body != last.body else { return .fine }
        return .fault(reason: "the stream's last message (sequence \(read.sequence)) is not the last one the venue published "
                      + "(sequence \(last.sequence))")
    }

    /// The stream was made again or a publication failed: sequences start afresh.
    public mutating func forget() { lastStored = nil }
}
