import Synchronization

/// A JSON API served by the Transport: requests under `prefix`, read whole (body included),
/// handed to `handle` on the service thread and answered later, from any thread, through the
/// `APIReply` that comes with each. Generic: the Transport knows nothing of what the API does.
///
///     TransportConfiguration.api = APIRoutes(prefix: "/club/api/") { request, reply in
///         queue.async { reply.send(work(request)) }
///     }
public struct APIRoutes: Sendable {
    /// Paths that start with it are the API's (`/club/api/`); it starts and ends with `/`.
    public var prefix: String
    /// A body over it: 413, and nothing handed over; a declared `Content-Length` over it is
    /// refused before any of the body is read.
    public var maximumBodyBytes: Int
    /// Unanswered requests one address may have at once (beyond: 429). Behind a proxy every
    /// request comes from the proxy's address: set it for the proxy's whole traffic then.
    public var maximumPendingPerAddress: Int
    /// Unanswered requests the whole server holds at once (beyond: 503).
    public var maximumPending: Int
    /// A request not answered within this long is answered 503 (checked once a second; 1–300).
    public var timeoutSeconds: Int
    /// Called on the lws service thread once a request is read whole: it must return at once
    /// (hand the work to a queue of your own) and call `reply` exactly once, from any thread.
    public var handle: @Sendable (HTTPRequest, APIReply) -> Void
    /// GET paths outside the prefix that the API answers too (the club's calendar feed lives at
    /// `/club/m/TOKEN/calendar.ics`, beside the member's page, and is read from the database).
    public var alsoAnswers: @Sendable (String) -> Bool = { _ in false }

    public init(prefix: String, maximumBodyBytes: Int = 16_384, maximumPendingPerAddress: Int = 16,
                maximumPending: Int = 4_096, timeoutSeconds: Int = 30,
                handle: @escaping @Sendable (HTTPRequest, APIReply) -> Void) {
        self.prefix = prefix
        self.maximumBodyBytes = maximumBodyBytes
        self.maximumPendingPerAddress = maximumPendingPerAddress
        self.maximumPending = maximumPending
        self.timeoutSeconds = timeoutSeconds
        self.handle = handle
    }

    /// The methods the API answers; anything else under the prefix is 405 with `Allow`.
    public static let methods = ["GET", "POST", "PATCH", "DELETE"]
    static let allowHeader = methods.joined(separator: ", ")

    /// Why these routes cannot be served, or nil.
    var problem: String? {
        if !prefix.hasPrefix("/") || !prefix.hasSuffix("/") || prefix.count < 2 {
            return "the API prefix must start and end with / (e.g. /club/api/)"
        }
        if !(1...(1 << 20)).contains(maximumBodyBytes) { return "the API's body limit must be 1 byte to 1 MiB" }
        if maximumPendingPerAddress < 1 || maximumPending < 1 { return "the API must allow at least one pending request" }
        // lws drops a connection whose header table is held past 365 s.
        if !(1...300).contains(timeoutSeconds) { return "the API's timeout must be 1 to 300 seconds" }
        return nil
    }

    /// Whether `path` is the API's.
    func owns(_ path: String) -> Bool { path.hasPrefix(prefix) }
}

/// The one-shot answer to one API request, safe to call from any thread: the first response is
/// handed to the service thread (a locked hand-off and `lws_cancel_service`), which writes it when
/// the connection can take it. A second call is ignored; a reply for a connection that has
/// closed meanwhile, or after the request timed out (503), is dropped.
public final class APIReply: Sendable {
    /// The request's number on the service thread: the reply never holds the connection itself.
    let serial: UInt64
    private let server: LiveServer?
    private let used = Atomic<Bool>(false)

    init(serial: UInt64, server: LiveServer?) {
        self.serial = serial
        self.server = server
    }

    /// Queues `response` for the request; false when this reply was already used.
    @discardableResult
    public func send(_ response: HTTPResponse) -> Bool {
        guard !used.exchange(true, ordering: .acquiringAndReleasing) else { return false }
        server?.queueAPIReply(serial: serial, response: response)
        return true
    }

    /// `reply(response)`, the same as `send`.
    @discardableResult
    public func callAsFunction(_ response: HTTPResponse) -> Bool { send(response) }

    /// Whether a response was already sent through this handle.
    public var isUsed: Bool { used.load(ordering: .acquiring) }
}
