import GatherModel

/// What the venue still owes its results subject, as a pure value on the publisher's queue.
///
/// The stream itself is the record of what was published: after each (re)connection the venue
/// reads the subject's last message (its own, verified) and publishes every history entry that
/// ended after it, oldest first, so a result is never lost to NATS being away, a restart or a
/// stream made again, and nothing needs a column in the venue's database. Entries are ordered by
/// (`endedAt`, `id`). A result corrected later is not published again: a club applies each id once
/// and who played does not change with the score.
public struct ResultsOutbox: Sendable, Equatable {
    /// A published entry's place in the order.
    public struct Mark: Comparable, Sendable {
        public var endedAt: Int64
        public var id: String

        public init(endedAt: Int64, id: String) {
            self.endedAt = endedAt
            self.id = id
        }

        public init(_ entry: HistoryEntry) { self.init(endedAt: entry.endedAt, id: entry.id) }

        public static func < (lhs: Mark, rhs: Mark) -> Bool { (lhs.endedAt, lhs.id) < (rhs.endedAt, rhs.id) }
    }

    public enum Published: Equatable, Sendable {
        /// Not read since the last connection: nothing is published until it is.
        case unknown
        /// The subject holds no result of the venue's.
        case nothing
        case upTo(Mark)
    }

    /// With no result of its own on the subject (a new stream), the venue publishes the results of
    /// this many last days: a club counts no-shows over 8 weeks.
    public static let firstWindowMs: Int64 = 56 * 86_400_000
    /// At most this many results per pass (the next pass, a second later, goes on).
    public static let maximumPerPass = 100

    public private(set) var published = Published.unknown
    /// The history's generation (`ExportDocuments`) whose results are all published.
    public private(set) var doneGeneration: Int?

    public init() {}

    /// Connected again, or the stream was made again: read the subject's last result first.
    public mutating func forget() {
        published = .unknown
        doneGeneration = nil
    }

    /// The subject's last result as read now: the venue's own (`mark`), or none it signed.
    public mutating func learned(_ mark: Mark?) {
        published = mark.map(Published.upTo) ?? .nothing
        doneGeneration = nil
    }

    /// Whether the history must be read: the last result is known and the history changed since
    /// everything was published.
    public func needsPass(generation: Int) -> Bool {
        published != .unknown && doneGeneration != generation
    }

    /// The entries to publish now, oldest first, from the whole history (any order); `complete`
    /// is false when more remain for the next pass.
    public func due(_ history: [HistoryEntry], now: Int64) -> (entries: [HistoryEntry], complete: Bool) {
        let after: (HistoryEntry) -> Bool
        switch published {
        case .unknown: return ([], false)
        case .nothing: after = { $0.endedAt >= now - Self.firstWindowMs }
        case .upTo(let mark): after = { Mark($0) > mark }
        }
        let waiting = history.filter(after).sorted { Mark($0) < Mark($1) }
        return (Array(waiting.prefix(Self.maximumPerPass)), waiting.count <= Self.maximumPerPass)
    }

    /// JetStream stored (or already held) this entry's result.
    public mutating func published(_ entry: HistoryEntry) {
        let mark = Mark(entry)
        if case .upTo(let last) = published, last >= mark { return }
        published = .upTo(mark)
    }

    /// Every result of this generation of the history is published.
    public mutating func finished(generation: Int) { doneGeneration = generation }
}
