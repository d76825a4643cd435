import CNats
import Dispatch

/// One async subscription's receiver: libnats delivers on a thread of its own per subscription;
/// the message is copied and handed to `queue` at once.
final class NATSSubscriber: Sendable {
    let queue: DispatchQueue
    /// A body larger than this is handed on empty and marked `oversized`, never copied.
    let maximumBytes: Int
    private let onMessage: @Sendable (NATSMessage) -> Void

    init(queue: DispatchQueue, maximumBytes: Int = StreamMessage.maximumBytes,
         onMessage: @escaping @Sendable (NATSMessage) -> Void) {
        self.queue = queue
        self.maximumBytes = maximumBytes
        self.onMessage = onMessage
    }

    /// The closure pointer libnats hands back; the subscriber must outlive the subscription.
    var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    fileprivate func handle(_ message: NATSMessage) {
        queue.async { [onMessage] in onMessage(message) }
    }
}

/// The one message callback every subscription of ours registers.
func natsMessageThunk(_ connection: OpaquePointer?, _ subscription: OpaquePointer?, _ message: OpaquePointer?,
                      _ closure: UnsafeMutableRawPointer?) {
    guard let closure else { fatalError("libnats delivered a message without the NATSSubscriber it was given") }
    let subscriber = Unmanaged<NATSSubscriber>.fromOpaque(closure).takeUnretainedValue()
    subscriber.handle(NATSMessage(taking: message, maximumBytes: subscriber.maximumBytes))
}

/// An ordered JetStream consumer reading `subject` of `stream` from its first message into
/// `subscriber`: the relay's state, the club's results and the club's lists all replay a stream
/// this way. The server heartbeats the consumer every second instead of libnats' 5 s, so libnats
/// recreates it (after two missed) within seconds when the hub node holding it dies.
/// Returns the subscription, or the status and JetStream error code that refused it.
func subscribeOrderedFromStart(jetStream: OpaquePointer?, stream: String, subject: String,
                               subscriber: NATSSubscriber) -> Result<OpaquePointer, OrderedSubscribeFailure> {
    var options = jsSubOptions()
    jsSubOptions_Init(&options)
    options.Ordered = true
    options.Config.DeliverPolicy = js_DeliverAll
    options.Config.Heartbeat = 1_000_000_000
    var errorCode = jsErrCode(0)
    var subscription: OpaquePointer?
    let status: natsStatus = stream.withCString { name in
        options.Stream = name
        return js_Subscribe(&subscription, jetStream, subject, natsMessageThunk, subscriber.context, nil,
                            &options, &errorCode)
    }
    guard status == NATS_OK, let subscription else {
        return .failure(OrderedSubscribeFailure(status: status, errorCode: errorCode.rawValue))
    }
    return .success(subscription)
}

/// Why `subscribeOrderedFromStart` was refused: libnats' status and JetStream's error code.
struct OrderedSubscribeFailure: Error {
    let status: natsStatus
    let errorCode: UInt32
}
