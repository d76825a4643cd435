/// What crosses between the Coordinator and the Transport, in one small module both import, so
/// neither imports the other and nothing maps between two copies of the same idea.

/// One WebSocket connection, numbered by the Transport. The Coordinator knows its clients by it.
public struct ConnectionID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(_ rawValue: UInt64) { self.rawValue = rawValue }

    public var description: String { "#\(rawValue)" }

    public static func < (lhs: ConnectionID, rhs: ConnectionID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Bytes the Coordinator has rendered, for the Transport to deliver in order. Shared frames
/// (snapshots, ticks, presence) are encoded once and written to every greeted connection.
public enum Delivery: Sendable, Equatable {
    /// The first frame of a connection; after it the connection follows the shared frames.
    case greet(ConnectionID, [UInt8])
    /// A direct reply, in the connection's bounded queue.
    case send(ConnectionID, [UInt8])
    /// Each connection gets the newest version it has not had; older ones are skipped.
    case publishSnapshot(version: Int, bytes: [UInt8])
    /// The countdown of one pitch; gather.v1 connections follow pitch 1's only.
    case publishTick(pitch: Int, bytes: [UInt8])
    case publishPresence([UInt8])
}

/// What the Transport reports, from its service thread; implementations hand the work to their
/// own queue at once.
public protocol ConnectionEvents: AnyObject, Sendable {
    /// After a successful handshake.
    func connectionOpened(_ id: ConnectionID, remoteAddress: String)
    /// Exactly once for every opened connection.
    func connectionClosed(_ id: ConnectionID)
    /// One complete, valid UTF-8 text message within the size limit.
    func received(_ text: String, from id: ConnectionID)
}
