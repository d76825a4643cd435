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
