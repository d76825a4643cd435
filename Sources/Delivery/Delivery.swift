/// What crosses between a Transport and its source (the Coordinator, or a relay), in one small
/// module both import, so neither imports the other and nothing maps between two copies of the
/// same idea.

/// One WebSocket connection, numbered by the Transport. The Coordinator knows its clients by it.
public struct ConnectionID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(_ rawValue: UInt64) { self.rawValue = rawValue }

    public var description: String { "#\(rawValue)" }

    public static func < (lhs: ConnectionID, rhs: ConnectionID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The WebSocket subprotocol a connection chose; a client that offers both gets gather.v2.
public enum WireProtocol: String, Sendable, CaseIterable {
    /// Whole snapshots, with the top-level `gather` (pitch 1's) that first-release clients read.
    case v1 = "gather.v1"
    /// The first snapshot, then patches; pitches carry their gathers.
    case v2 = "gather.v2"
    /// The club service's live socket (`/club/live`): no shared state, ticks or presence, no
    /// greeting needed; a connection is sent only the direct replies (`Delivery.send`) its source
    /// writes, such as `{"type": "changed", …}`. A venue or relay never offers it.
    case club = "club.v1"
}

/// Which listener a connection came through. The spectator door is plain HTTP: nothing that
/// arrives through it may log in or change anything.
public enum Door: String, Sendable {
    case tls
    case spectator
}

/// One state version, rendered once for every audience and shared by every connection.
public struct StateFrames: Sendable, Equatable {
    public var version: Int
    public var v1Snapshot: [UInt8]
    /// The gather.v2 snapshot, rendered when first read (a relay needs it only for some followers).
    public var v2SnapshotSource: SnapshotOnDemand
    /// The gather.v2 patch from `version - 1` to `version`, when the previous version was rendered.
    public var v2Patch: [UInt8]?
    /// The timeline these versions belong to (a venue server's start, or the one a relay follows):
    /// versions compare only within one epoch, so a catch-up query names it. `nil` for a source
    /// that has none.
    public var epoch: String?

    public init(version: Int, v1Snapshot: [UInt8], v2Snapshot: [UInt8], v2Patch: [UInt8]?, epoch: String? = nil) {
        self.init(version: version, v1Snapshot: v1Snapshot, v2Snapshot: SnapshotOnDemand(rendered: v2Snapshot),
                  v2Patch: v2Patch, epoch: epoch)
    }

    public init(version: Int, v1Snapshot: [UInt8], v2Snapshot: SnapshotOnDemand, v2Patch: [UInt8]?,
                epoch: String? = nil) {
        self.version = version
        self.v1Snapshot = v1Snapshot
        self.v2SnapshotSource = v2Snapshot
        self.v2Patch = v2Patch
        self.epoch = epoch
    }

    /// The gather.v2 snapshot's bytes (renders it if nothing has yet).
    public var v2Snapshot: [UInt8] { v2SnapshotSource.bytes }

    /// Compares the rendered bytes, so comparing renders a snapshot not yet rendered.
    public static func == (lhs: StateFrames, rhs: StateFrames) -> Bool {
        lhs.version == rhs.version && lhs.v1Snapshot == rhs.v1Snapshot && lhs.v2Patch == rhs.v2Patch
            && lhs.epoch == rhs.epoch && lhs.v2Snapshot == rhs.v2Snapshot
    }
}

/// Bytes the Coordinator has rendered, for the Transport to deliver in order. Shared frames
/// (snapshots, ticks, presence) are encoded once and written to every greeted connection.
public enum Delivery: Sendable, Equatable {
    /// The first frame of a connection; after it the connection follows the shared frames.
    case greet(ConnectionID, [UInt8])
    /// A direct reply, in the connection's bounded queue.
    case send(ConnectionID, [UInt8])
    /// Each gather.v1 connection gets the newest snapshot it has not had; each gather.v2 one the
    /// patches since the version it holds, or the newest snapshot when it fell behind.
    case publishState(StateFrames)
    /// The countdown of one pitch; gather.v1 connections follow pitch 1's only.
    case publishTick(pitch: Int, bytes: [UInt8])
    case publishPresence([UInt8])
    /// The state as organiser connections read it (the shared state plus what only organisers may
    /// see: the referee links, docs/PROTOCOL.md §20). A newer version follows the shared one it
    /// extends, with its own patch; the same version again is a refresh (organisers are sent a new
    /// snapshot). Until the first, and after `clearOrganiserView`, organisers follow the shared frames.
    case publishOrganiserState(StateFrames)
    /// The presence line as organisers read it (with the links that have a phone connected).
    case publishOrganiserPresence([UInt8])
    /// Organiser connections follow the shared frames again (no organisers-only state any more).
    case clearOrganiserView
    /// The connection signed in as an organiser (true) or is no longer one (false).
    case setAudience(ConnectionID, organiser: Bool)
    /// The source has finished with one message `received` from this connection: the Transport
    /// counts what each connection has waiting and stops reading one that is too far ahead.
    /// In the same ordered stream as the replies, so it never overtakes them.
    case handled(ConnectionID)
    /// Closes the connection with this code once the replies already queued for it are written
    /// (a refusal's reason reaches the client before the close: the club's `unauthorized` follow).
    case close(ConnectionID, code: UInt16, reason: String)
}
