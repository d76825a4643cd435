/// The two directions between a Transport and whatever feeds it.
///
/// A Transport owns sockets and knows nothing of gathers: a *source* decides what each connection
/// is sent. The venue server's source is the Coordinator (the single writer); a relay's source is
/// a venue's stream read from NATS. Each side sees the other only through these protocols:
///
///     Transport ──TransportSource (opened, closed, received)──▶ source
///     Transport ◀──DeliveryTarget (deliver, incl. `.handled`)────── source

/// What a Transport reports, from its service thread. Implementations hand the work to their own
/// queue at once and never block: every connection of the server waits while this runs.
public protocol TransportSource: AnyObject, Sendable {
    /// After a successful handshake, before any message of the connection.
    func connectionOpened(_ id: ConnectionID, remoteAddress: String, protocol: WireProtocol, door: Door)
    /// Exactly once for every opened connection; nothing is delivered to `id` after it.
    func connectionClosed(_ id: ConnectionID)
    /// One complete, valid UTF-8 text message that paid its token and passed the Transport's
    /// cheap checks (size, nesting). The source must deliver `.handled(id)` once it is done with
    /// it: until then it counts against the connection's bounded backlog, and a connection with
    /// a full backlog is not read any further.
    func received(_ text: String, from id: ConnectionID)
}

/// Where a source's deliveries go: the Transport's handle, safe from any thread.
public protocol DeliveryTarget: AnyObject, Sendable {
    /// Queues deliveries for the connections, in order; ones for closed connections are dropped.
    func deliver(_ deliveries: [Delivery])
}
