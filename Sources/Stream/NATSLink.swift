import CNats
import Dispatch
import Foundation
import Logging
import Synchronization

/// How a NATS connection proves who it is. Secrets come from a file or the environment, never
/// from the command line that `ps` shows.
public enum NATSCredentials: Sendable, Equatable {
    case none
    /// A `.creds` file (user JWT and NKey seed).
    case credentialsFile(String)
    case userPassword(user: String, password: String)
}

/// Where to connect and as whom.
public struct NATSEndpoint: Sendable, Equatable {
    public var url: String
    public var credentials: NATSCredentials
    /// Shown by `nats-server` in its connection list.
    public var clientName: String

    public init(url: String, credentials: NATSCredentials, clientName: String) {
        self.url = url
        self.credentials = credentials
        self.clientName = clientName
    }

    /// The addresses in `url`, which may list several separated by commas (the nodes of a
    /// cluster, as libnats' `natsOptions_SetServers` takes them); blanks around them dropped.
    public var urls: [String] {
        url.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Puts the address and the credentials on libnats options: the one place both the venue's
    /// link and `gather nats mirror` say where to connect and as whom.
    func apply(to options: OpaquePointer?) throws {
        let servers = urls
        if servers.count > 1 {
            // A cluster (a hub of three): libnats tries them in turn and reconnects to any.
            let copies = servers.map { strdup($0) }
            defer { copies.forEach { free($0) } }
            var pointers = copies.map { UnsafePointer<CChar>($0) }
            let status = natsOptions_SetServers(options, &pointers, Int32(pointers.count))
            try check(status, "the NATS addresses \(url) are not usable")
        } else {
            try check(natsOptions_SetURL(options, url), "the NATS address \(url) is not usable")
        }
        switch credentials {
        case .none: break
        case .credentialsFile(let path):
            try check(natsOptions_SetUserCredentialsFromFiles(options, path, nil), "cannot use the NATS credentials \(path)")
        case .userPassword(let user, let password):
            try check(natsOptions_SetUserInfo(options, user, password), "cannot use the NATS user")
            if let prefix = Self.inboxPrefix(user: user) {
                try check(natsOptions_SetCustomInboxPrefix(options, prefix), "cannot set the NATS inbox prefix")
            }
        }
    }

    /// `_INBOX.USER`: replies and a consumer's deliveries come to subjects under the user's own
    /// name, so a hub can let each relay's user read only its own (deploy/nats/hub.conf), and no
    /// relay learns another's consumers by listening on `_INBOX.>`. nil for a name that is not
    /// one subject token (libnats' default `_INBOX` then).
    static func inboxPrefix(user: String) -> String? {
        guard (1...64).contains(user.utf8.count),
              user.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x2E && $0 != 0x2A && $0 != 0x3E })
        else { return nil }
        return "_INBOX." + user
    }
}

public struct NATSFailure: Error, CustomStringConvertible {
    public let description: String
    init(_ what: String, _ status: natsStatus) {
        description = "\(what): \(String(cString: natsStatus_GetText(status)))"
    }
}

/// Throws `NATSFailure` unless libnats answered OK: how this module checks every libnats call.
func check(_ status: natsStatus, _ what: String) throws {
    guard status == NATS_OK else { throw NATSFailure(what, status) }
}

/// One libnats connection that never gives up: it keeps trying when the server is down at start,
/// and reconnects forever after. libnats calls back on its own threads; every callback is handed
/// to `queue` at once and never blocks there.
///
/// Lives as long as the process (the composition root holds it): libnats may call back until
/// the connection is destroyed, so the closure pointer it holds is never left dangling.
final class NATSLink: Sendable {
    enum Event: Sendable {
        case connected
        case disconnected
        case closed
    }

    let queue: DispatchQueue
    private let endpoint: NATSEndpoint
    private let onEvent: @Sendable (Event) -> Void
    /// The connection and its JetStream context, set once by `start`, read from any thread.
    private let opened = Mutex<Handles?>(nil)

    /// libnats' handles are thread-safe C objects; the pointers themselves are only passed on.
    private struct Handles: @unchecked Sendable {
        var connection: OpaquePointer
        var jetStream: OpaquePointer
    }

    /// `onEvent` runs on `queue`.
    init(endpoint: NATSEndpoint, queue: DispatchQueue, onEvent: @escaping @Sendable (Event) -> Void) {
        self.endpoint = endpoint
        self.queue = queue
        self.onEvent = onEvent
    }

    /// The connection and its JetStream context, once `start` made them (possibly not yet connected).
    var handles: (connection: OpaquePointer, jetStream: OpaquePointer)? {
        opened.withLock { $0.map { ($0.connection, $0.jetStream) } }
    }

    var isConnected: Bool {
        guard let connection = handles?.connection else { return false }
        return natsConnection_Status(connection) == NATS_CONN_STATUS_CONNECTED
    }

    /// Starts connecting; returns at once whether or not the server answers (`connected` follows).
    func start() throws {
        var options: OpaquePointer?
        try check(natsOptions_Create(&options), "cannot make the NATS options")
        defer { natsOptions_Destroy(options) }
        let context = Unmanaged.passUnretained(self).toOpaque()
        try endpoint.apply(to: options)
        try check(natsOptions_SetName(options, endpoint.clientName), "cannot name the NATS connection")
        try check(natsOptions_SetTimeout(options, 2_000), "cannot set the NATS timeout")
        try check(natsOptions_SetMaxReconnect(options, -1), "cannot set NATS reconnects")
        try check(natsOptions_SetReconnectWait(options, 500), "cannot set the NATS reconnect wait")
        try check(natsOptions_SetReconnectJitter(options, 100, 100), "cannot set the NATS reconnect jitter")
        try check(natsOptions_SetPingInterval(options, 5_000), "cannot set the NATS ping interval")
        try check(natsOptions_SetMaxPingsOut(options, 2), "cannot set the NATS pings")
        try check(natsOptions_SetRetryOnFailedConnect(options, true, natsConnectedThunk, context),
                  "cannot set NATS retries")
        try check(natsOptions_SetDisconnectedCB(options, natsDisconnectedThunk, context), "cannot set a NATS callback")
        try check(natsOptions_SetReconnectedCB(options, natsConnectedThunk, context), "cannot set a NATS callback")
        try check(natsOptions_SetClosedCB(options, natsClosedThunk, context), "cannot set a NATS callback")

        var made: OpaquePointer?
        let status = natsConnection_Connect(&made, options)
        guard status == NATS_OK || status == NATS_NOT_YET_CONNECTED, let made else {
            throw NATSFailure("cannot connect to NATS at \(endpoint.url)", status)
        }
        var jsOptions = jsOptions()
        jsOptions_Init(&jsOptions)
        jsOptions.Wait = 2_000
        var js: OpaquePointer?
        let jsStatus = natsConnection_JetStream(&js, made, &jsOptions)
        guard jsStatus == NATS_OK, let js else {
            natsConnection_Destroy(made)
            throw NATSFailure("cannot use JetStream", jsStatus)
        }
        opened.withLock { $0 = Handles(connection: made, jetStream: js) }
        if status == NATS_OK { handle(.connected) }
    }

    /// Flushes what is buffered (bounded) and closes; callbacks may still arrive on `queue`.
    func close() {
        guard let connection = handles?.connection else { return }
        _ = natsConnection_FlushTimeout(connection, 1_000)
        natsConnection_Close(connection)
    }

    fileprivate func handle(_ event: Event) {
        queue.async { [onEvent] in onEvent(event) }
    }
}

// MARK: - C callbacks (libnats threads): recover the link, hand the event to its queue

private func natsLink(_ closure: UnsafeMutableRawPointer?) -> NATSLink {
    guard let closure else { fatalError("libnats called back without the NATSLink it was given") }
    return Unmanaged<NATSLink>.fromOpaque(closure).takeUnretainedValue()
}

private func natsConnectedThunk(_ connection: OpaquePointer?, _ closure: UnsafeMutableRawPointer?) {
    natsLink(closure).handle(.connected)
}

private func natsDisconnectedThunk(_ connection: OpaquePointer?, _ closure: UnsafeMutableRawPointer?) {
    natsLink(closure).handle(.disconnected)
}

private func natsClosedThunk(_ connection: OpaquePointer?, _ closure: UnsafeMutableRawPointer?) {
    natsLink(closure).handle(.closed)
}

// MARK: - Messages

/// One received message, copied out of libnats before its buffer is freed.
struct NATSMessage: Sendable {
    var subject: String
    var data: [UInt8]
    /// The `Gather-Signature` header, when there is one.
    var signature: String?
    /// The body was larger than the subscriber accepts: `data` is empty, nothing was copied.
    var oversized = false

    init(subject: String, data: [UInt8], signature: String? = nil, oversized: Bool = false) {
        self.subject = subject
        self.data = data
        self.signature = signature
        self.oversized = oversized
    }
}

extension NATSMessage {
    /// Copies and destroys `message` (libnats hands ownership to the callback). A body over
    /// `maximumBytes` is not copied at all.
    init(taking message: OpaquePointer?, maximumBytes: Int) {
        defer { natsMsg_Destroy(message) }
        subject = natsMsg_GetSubject(message).map { String(cString: $0) } ?? ""
        let length = Int(natsMsg_GetDataLength(message))
        if length > maximumBytes {
            data = []
            oversized = true
            return
        }
        if length > 0, let bytes = natsMsg_GetData(message) {
            data = bytes.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
        } else {
            data = []
        }
        var value: UnsafePointer<CChar>?
        if natsMsgHeader_Get(message, StreamSignature.header, &value) == NATS_OK, let value, strlen(value) <= 256 {
            signature = String(cString: value)
        }
    }
}
