import CNats
import Dispatch
import Foundation
import GatherModel
import Logging
import Synchronization

/// A NATS link for the club's side of the stream (docs/PROTOCOL.md §21), reusable by whatever
/// else the club reads or writes on NATS: one connection that never gives up (`NATSLink`), the
/// club's stream made when absent, signed lists published into JetStream, a subject's last
/// message read back, and ordered subscriptions to a stream (the venue's results through the
/// hub's mirror). Every callback arrives on `queue`.
public final class ClubStreamLink: Sendable {
    public let queue: DispatchQueue
    private let link: NATSLink
    private let logger: Logger
    /// Subscribers must outlive their libnats subscriptions: kept for the process's life.
    private let subscriptions = Mutex<[Subscription]>([])

    private struct Subscription: @unchecked Sendable {
        var handle: OpaquePointer
        var subscriber: NATSSubscriber
    }

    /// A message as a subscription delivers it (copied out of libnats).
    public struct Message: Sendable {
        public var subject: String
        public var body: [UInt8]
        /// `Gather-Signature`, when present.
        public var signature: String?
        /// Larger than the subscription accepts: `body` is empty.
        public var oversized: Bool
    }

    /// `onConnected` runs on `queue` at each (re)connection: the moment to (re)check the stream.
    public init(endpoint: NATSEndpoint, queue: DispatchQueue, logger: Logger,
                onConnected: @escaping @Sendable () -> Void) {
        self.queue = queue
        self.logger = logger
        link = NATSLink(endpoint: endpoint, queue: queue) { [logger] event in
            switch event {
            case .connected:
                logger.info("connected to NATS")
                onConnected()
            case .disconnected: logger.warning("lost NATS; reconnecting")
            case .closed: logger.notice("NATS connection closed")
            }
        }
    }

    /// Starts connecting; returns at once (the server may be down: it keeps trying).
    public func start() throws { try link.start() }

    public func close() { link.close() }

    public var isConnected: Bool { link.isConnected }

    /// Creates the club's stream (subjects `club.NAME.>`, rollups allowed, file storage) when
    /// absent, and allows rollups on one that does not.
    public func ensureStream(club: ClubName) throws {
        guard let handles = link.handles else { throw NATSFailure("not connected", NATS_NOT_YET_CONNECTED) }
        try StreamSetup.ensure(name: club.streamName, subject: club.subjects, maximumBytes: ClubDateList.maximumBytes,
                               jetStream: handles.jetStream, logger: logger, what: "the club's stream")
    }

    /// The venue's side: a mirror `CLUB_NAME` in this server's JetStream domain (the leaf's)
    /// sourcing the hub's stream through `$JS.HUB.API`, made when absent, so the lists stay on the
    /// laptop while the uplink is down. Rollups allowed, as the source's.
    public func ensureMirror(club: ClubName, hubDomain: String) throws {
        guard let handles = link.handles else { throw NATSFailure("not connected", NATS_NOT_YET_CONNECTED) }
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var errorCode = jsErrCode(0)
        if js_GetStreamInfo(&info, handles.jetStream, club.streamName, nil, &errorCode) == NATS_OK {
            jsStreamInfo_Destroy(info)
            return
        }
        guard errorCode == JSStreamNotFoundErr else {
            throw NATSFailure("cannot read the stream \(club.streamName) (JetStream error \(errorCode.rawValue))", NATS_ERR)
        }
        let apiPrefix = "$JS.\(hubDomain).API"
        let status: natsStatus = club.streamName.withCString { name in
            apiPrefix.withCString { prefix in
                // libnats 3.4.1 writes DeliverPrefix without a null check: "" is "not set".
                "".withCString { deliver in
                    var external = jsExternalStream(APIPrefix: prefix, DeliverPrefix: deliver)
                    return withUnsafeMutablePointer(to: &external) { externalPointer in
                        var mirror = jsStreamSource()
                        mirror.Name = name
                        mirror.External = externalPointer
                        return withUnsafeMutablePointer(to: &mirror) { mirrorPointer in
                            var config = jsStreamConfig()
                            jsStreamConfig_Init(&config)
                            config.Name = name
                            config.Storage = js_FileStorage
                            config.Mirror = mirrorPointer
                            config.AllowRollup = true
                            config.MaxConsumers = 16
                            config.MaxMsgSize = Int32(ClubDateList.maximumBytes)
                            var created: UnsafeMutablePointer<jsStreamInfo>?
                            let status = js_AddStream(&created, handles.jetStream, &config, nil, &errorCode)
                            jsStreamInfo_Destroy(created)
                            return status
                        }
                    }
                }
            }
        }
        try check(status, "cannot create the mirror \(club.streamName) (JetStream error \(errorCode.rawValue))")
        logger.notice("created the club's mirror", metadata: ["stream.name": "\(club.streamName)",
                                                              "stream.source": "\(apiPrefix)"])
    }

    /// Publishes into JetStream, waiting at most 2 s for its acknowledgement; the stream's
    /// sequence, or nil (said in the log) when NATS refused or did not answer.
    public func publish(_ envelope: StreamEnvelope) -> UInt64? {
        switch link.publish(envelope) {
        case .published(let sequence, _): return sequence
        case .failed(let status, let code, _):
            logger.warning("could not publish", metadata: ["nats.subject": "\(envelope.subject)", "nats.status": "\(status)",
                                                           "nats.jetStreamError": "\(code)"])
            return nil
        }
    }

    /// The last message `stream` holds on `subject`, with its `Gather-Signature`; nil when NATS
    /// holds none or did not answer.
    public func lastMessage(stream: String, subject: String) -> Message? {
        link.lastSignedMessage(stream: stream, subject: subject).map {
            Message(subject: subject, body: $0.body, signature: $0.signature, oversized: false)
        }
    }

    /// An ordered consumer of everything `stream` holds on `subject` (wildcards allowed), then
    /// what arrives; libnats recreates it after a gap. Bodies over `maximumBytes` arrive empty
    /// and marked `oversized`.
    public func subscribe(stream: String, subject: String, maximumBytes: Int,
                          onMessage: @escaping @Sendable (Message) -> Void) throws {
        guard let handles = link.handles else { throw NATSFailure("not connected", NATS_NOT_YET_CONNECTED) }
        let subscriber = NATSSubscriber(queue: queue, maximumBytes: maximumBytes) { message in
            onMessage(Message(subject: message.subject, body: message.data, signature: message.signature,
                              oversized: message.oversized))
        }
        let subscription: OpaquePointer
        switch subscribeOrderedFromStart(jetStream: handles.jetStream, stream: stream, subject: subject,
                                         subscriber: subscriber) {
        case .success(let made): subscription = made
        case .failure(let failure):
            throw NATSFailure("cannot read the stream \(stream) (JetStream error \(failure.errorCode))", failure.status)
        }
        _ = natsSubscription_SetPendingLimits(subscription, 10_000, 64 << 20)
        subscriptions.withLock { $0.append(Subscription(handle: subscription, subscriber: subscriber)) }
    }
}
