import CNats
import Foundation

/// A plain NATS subscriber on the venue's state subject, beside the relays: when it receives a
/// version is when a relay can first have it (same broker, same delivery), so press → tap minus
/// press → door is the NATS hop's share of press → last follower.
final class NATSTap: @unchecked Sendable {
    private var connection: OpaquePointer?
    private var subscription: OpaquePointer?
    private let condition = NSCondition()
    private var arrivals: [Int: UInt64] = [:]
    /// The state messages' bytes while recording (for nchan to be fed the very same), at most
    /// `recordingLimit` of them.
    private var recorded: [[UInt8]]?
    static let recordingLimit = 20_000

    init(url: String, subject: String) throws {
        var made: OpaquePointer?
        guard natsConnection_ConnectTo(&made, url) == NATS_OK, let made else {
            throw BenchError("the bench's NATS tap could not connect to \(url)")
        }
        connection = made
        var subscribed: OpaquePointer?
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard natsConnection_Subscribe(&subscribed, made, subject, natsTapThunk, context) == NATS_OK else {
            natsConnection_Destroy(made)
            connection = nil
            throw BenchError("the bench's NATS tap could not subscribe to \(subject)")
        }
        subscription = subscribed
    }

    fileprivate func received(_ message: OpaquePointer) {
        let now = BenchClock.nanoseconds()
        let length = Int(natsMsg_GetDataLength(message))
        guard length > 0, let data = natsMsg_GetData(message) else { return }
        let summary = WireScanner.summarize(UnsafeRawBufferPointer(start: data, count: length))
        guard let version = summary.version else { return }
        condition.withLock {
            if arrivals[version] == nil { arrivals[version] = now }
            if recorded != nil, recorded!.count < Self.recordingLimit {
                recorded!.append(Array(UnsafeRawBufferPointer(start: data, count: length)))
            }
            condition.broadcast()
        }
    }

    /// Keeps every state message from now on, until `stopRecording`.
    func startRecording() { condition.withLock { recorded = [] } }

    /// What was recorded, in the order the tap received it.
    func stopRecording() -> [[UInt8]] {
        condition.withLock {
            defer { recorded = nil }
            return recorded ?? []
        }
    }

    /// When the tap first read `version` (monotonic ns), waiting up to `seconds`.
    func arrival(of version: Int, seconds: Double) -> UInt64? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while arrivals[version] == nil, Date() < deadline {
            _ = condition.wait(until: min(deadline, Date().addingTimeInterval(0.1)))
        }
        return arrivals[version]
    }

    func close() {
        if let subscription {
            _ = natsSubscription_Unsubscribe(subscription)
            natsSubscription_Destroy(subscription)
        }
        if let connection {
            natsConnection_Close(connection)
            natsConnection_Destroy(connection)
        }
        subscription = nil
        connection = nil
    }
}

/// libnats's one callback into the tap; the context is the tap, kept alive by the scenario.
private func natsTapThunk(_ connection: OpaquePointer?, _ subscription: OpaquePointer?, _ message: OpaquePointer?,
                          _ closure: UnsafeMutableRawPointer?) {
    guard let message else { return }
    defer { natsMsg_Destroy(message) }
    guard let closure else { fatalError("libnats delivered a message without the NATSTap it was given") }
    Unmanaged<NATSTap>.fromOpaque(closure).takeUnretainedValue().received(message)
}
