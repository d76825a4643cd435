import GatherDelivery

/// The API's requests in flight, without sockets: what `HTTPResponder` may do with each one,
/// decided here and tested alone. Generic over the connection handle (`OpaquePointer` in the
/// server, numbers in tests), as `Admission` is.
///
/// A request is known by a serial number, never by its connection: the `APIReply` a handler
/// holds carries only the serial, so a reply that arrives after the connection closed finds
/// nothing here and is dropped, and no dead `wsi` is ever looked at again.
struct APIRequestBook<Handle: Hashable> {
    /// What the request line and headers say before any body is read.
    enum Judgement: Equatable {
        /// Read `expectedBytes` of body (lws calls back with it), then hand the request over.
        case readBody(expectedBytes: Int)
        /// No body comes: hand the request over now.
        case handOverNow
        /// Answer this and close the connection: whatever body follows is never read.
        case refuse(status: Int, message: String)
    }

    /// Judges a request to the API from its method and body headers. lws 4.1.6 reads a body by
    /// `Content-Length` only (it cannot undo chunked encoding, and it expects 100 MiB from a POST
    /// or PATCH without a length), so a body must declare its length.
    static func judge(method: String, contentLength: String?, transferEncoding: String?,
                      maximumBodyBytes: Int) -> Judgement {
        if transferEncoding != nil {
            return .refuse(status: 400, message: "Send the body with a Content-Length, not a Transfer-Encoding.")
        }
        guard let contentLength else {
            if method == "POST" || method == "PATCH" {
                return .refuse(status: 411, message: "A \(method) needs a Content-Length.")
            }
            return .handOverNow
        }
        guard (1...18).contains(contentLength.utf8.count),
              contentLength.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let length = Int(contentLength)
        else { return .refuse(status: 400, message: "The Content-Length is not a number.") }
        guard length <= maximumBodyBytes else {
            return .refuse(status: 413, message: "A request body is limited to \(maximumBodyBytes) bytes.")
        }
        // lws calls back with the body when it has a length, and for a POST of an explicit 0.
        if length > 0 || method == "POST" { return .readBody(expectedBytes: length) }
        return .handOverNow
    }

    enum Admission: Equatable {
        case admitted(serial: UInt64)
        /// `maximumPendingPerAddress` unanswered requests from this address already: 429.
        case addressFull
        /// `maximumPending` in all: 503.
        case serverFull
    }

    enum BodyStep: Equatable {
        case keepReading
        /// More than the limit (or than declared): the request is forgotten; answer 413 and close.
        case tooLarge
        /// Not a request of the API's (or one already refused): nothing to do.
        case notOurs
    }

    struct Pending {
        let handle: Handle
        let address: String
        var request: HTTPRequest
        var expectedBytes: Int
        var body: [UInt8] = []
        /// Set when the request went to the handler; its timeout runs from then.
        var handedOverAt: UInt64?
    }

    let maximumBodyBytes: Int
    let maximumPendingPerAddress: Int
    let maximumPending: Int
    let timeoutNanoseconds: UInt64

    private(set) var pending: [UInt64: Pending] = [:]
    private var serials: [Handle: UInt64] = [:]
    private var perAddress: [String: Int] = [:]
    private var lastSerial: UInt64 = 0

    init(_ routes: APIRoutes) {
        maximumBodyBytes = routes.maximumBodyBytes
        maximumPendingPerAddress = routes.maximumPendingPerAddress
        maximumPending = routes.maximumPending
        timeoutNanoseconds = UInt64(routes.timeoutSeconds) * 1_000_000_000
    }

    func pendingCount(from address: String) -> Int { perAddress[address, default: 0] }

    /// Takes a request in (one per connection at a time: lws reads the next one only after this
    /// one's answer), or says why not.
    mutating func admit(_ handle: Handle, request: HTTPRequest, expectedBytes: Int) -> Admission {
        let address = request.remoteAddress
        guard perAddress[address, default: 0] < maximumPendingPerAddress else { return .addressFull }
        guard pending.count < maximumPending else { return .serverFull }
        if let stale = serials[handle] { remove(serial: stale) }
        lastSerial += 1
        pending[lastSerial] = Pending(handle: handle, address: address, request: request,
                                      expectedBytes: expectedBytes)
        serials[handle] = lastSerial
        perAddress[address, default: 0] += 1
        return .admitted(serial: lastSerial)
    }

    /// A piece of the body of `handle`'s request.
    mutating func received(_ bytes: UnsafeRawBufferPointer, for handle: Handle) -> BodyStep {
        guard let serial = serials[handle], var entry = pending[serial], entry.handedOverAt == nil else { return .notOurs }
        guard entry.body.count + bytes.count <= min(maximumBodyBytes, entry.expectedBytes) else {
            remove(serial: serial)
            return .tooLarge
        }
        pending[serial] = nil  // no copy of the body while it grows
        if entry.body.isEmpty { entry.body.reserveCapacity(entry.expectedBytes) }
        entry.body.append(contentsOf: bytes)
        pending[serial] = entry
        return .keepReading
    }

    /// The request of `handle`, whole, to hand to the handler now; nil when it is not ours.
    mutating func handOver(_ handle: Handle, now: UInt64) -> (serial: UInt64, request: HTTPRequest)? {
        guard let serial = serials[handle], var entry = pending.removeValue(forKey: serial), entry.handedOverAt == nil
        else { return nil }
        entry.handedOverAt = now
        entry.request = entry.request.with(body: entry.body)
        entry.body = []
        pending[serial] = entry
        return (serial, entry.request)
    }

    /// A reply for `serial` arrived: the connection to write it to, once; nil when the request
    /// is gone (its connection closed, or it timed out) or was never handed over.
    mutating func answer(_ serial: UInt64) -> (handle: Handle, door: Door)? {
        guard let entry = pending[serial], entry.handedOverAt != nil else { return nil }
        remove(serial: serial)
        return (entry.handle, entry.request.door)
    }

    /// Requests handed over more than the timeout ago: forgotten here, to be answered 503.
    mutating func expire(now: UInt64) -> [(handle: Handle, door: Door)] {
        let overdue = pending.filter { _, entry in
            entry.handedOverAt.map { now > $0 && now - $0 > timeoutNanoseconds } ?? false
        }
        for serial in overdue.keys { remove(serial: serial) }
        return overdue.values.map { ($0.handle, $0.request.door) }
    }

    /// Every request, handed over or not: forgotten here, to be answered 503 (a shutdown).
    mutating func expireAll() -> [(handle: Handle, door: Door)] {
        let all = pending.values.map { ($0.handle, $0.request.door) }
        pending.removeAll()
        serials.removeAll()
        perAddress.removeAll()
        return all
    }

    /// The connection closed: its request, if any, is forgotten (a later reply is dropped).
    mutating func closed(_ handle: Handle) {
        if let serial = serials[handle] { remove(serial: serial) }
    }

    private mutating func remove(serial: UInt64) {
        guard let entry = pending.removeValue(forKey: serial) else { return }
        serials[entry.handle] = nil
        let left = perAddress[entry.address, default: 1] - 1
        perAddress[entry.address] = left > 0 ? left : nil
    }
}
