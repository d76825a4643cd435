/// One pitch of the venue. Each holds at most one active gather; pitch 1 always exists.
public struct Pitch: Equatable, Sendable, Codable {
    public typealias ID = Int

    /// The pitch a fresh database has and that gather.v1 clients see as the top-level `gather`.
    public static let firstID: ID = 1
    public static let maximumCount = 16
    public static let nameLength = 1...30

    public let id: ID
    public var name: String
    public var gather: ActiveGather?
    /// The last gather that ended here, shown as "Full time" until the next `createGather`
    /// (`cancelGather` keeps it). The history entry itself, so names and goals stay as they were.
    public var lastResult: HistoryEntry?

    public init(id: ID, name: String, gather: ActiveGather? = nil, lastResult: HistoryEntry? = nil) {
        self.id = id
        self.name = name
        self.gather = gather
        self.lastResult = lastResult
    }

    /// "Pitch 1", the name a new venue starts with.
    public static func defaultName(for id: ID) -> String { "Pitch \(id)" }
}

/// Where a finished gather was played, copied into history so a renamed or removed pitch does
/// not rewrite old results.
public struct PitchReference: Equatable, Sendable, Codable {
    public var id: Pitch.ID
    public var name: String

    public init(id: Pitch.ID, name: String) {
        self.id = id
        self.name = name
    }

    /// What history entries written before pitches existed were: the one pitch there was.
    public static let first = PitchReference(id: Pitch.firstID, name: Pitch.defaultName(for: Pitch.firstID))
}
