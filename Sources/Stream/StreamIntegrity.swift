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

    /// The last state message this run stored: its stream sequence and bytes.
    public private(set) var lastStored: (sequence: UInt64, body: [UInt8])?
    /// The stream sequence of the last message this run stored on any of its subjects (the state,
    /// or a result: both land in the one stream, so each is the other's neighbour in sequence).
    public private(set) var lastSequence: UInt64?

    public init() {}

    public static func == (lhs: StreamIntegrity, rhs: StreamIntegrity) -> Bool {
        lhs.lastStored?.sequence == rhs.lastStored?.sequence && lhs.lastStored?.body == rhs.lastStored?.body
            && lhs.lastSequence == rhs.lastSequence
    }

    /// JetStream acknowledged a state publication. A duplicate stored nothing: a message with the
    /// venue's next id was already there. A sequence that is not the one after the venue's last
    /// means someone else stored messages in between.
    public mutating func stored(sequence: UInt64, duplicate: Bool, body: [UInt8]) -> Verdict {
        if duplicate {
            return .fault(reason: "JetStream took a version as a duplicate: the stream holds a message with the venue's next id")
        }
        defer { lastStored = (sequence, body) }
        return follows(sequence)
    }

    /// JetStream acknowledged a result (`gather.VENUE.results`). A duplicate is no fault here: a
    /// result is published again after a restart within JetStream's duplicate window, with the
    /// same message id, and the stream rightly keeps the first.
    public mutating func storedResult(sequence: UInt64, duplicate: Bool) -> Verdict {
        duplicate ? .fine : follows(sequence)
    }

    /// The sequence is the one after the venue's last stored message, or says how many came between.
    private mutating func follows(_ sequence: UInt64) -> Verdict {
        defer { lastSequence = sequence }
        guard let last = lastSequence, sequence != last &+ 1 else { return .fine }
        return .fault(reason: "the stream stored \(sequence > last ? sequence - last - 1 : 0) message(s) "
                      + "the venue did not publish since its sequence \(last)")
    }

    /// The stream's last message on the state subject, as read now (nil: not read, or none).
    public func lastMessageRead(_ read: (sequence: UInt64, body: [UInt8])?) -> Verdict {
        guard let read, let last = lastStored else { return .fine }
        guard read.sequence != last.sequence || read.body != last.body else { return .fine }
        return .fault(reason: "the stream's last message (sequence \(read.sequence)) is not the last one the venue published "
                      + "(sequence \(last.sequence))")
    }

    /// The stream was made again or a publication failed: sequences start afresh.
    public mutating func forget() {
        lastStored = nil
        lastSequence = nil
    }
}
