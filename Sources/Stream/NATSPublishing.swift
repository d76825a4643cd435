import CNats
import Foundation

/// The one place a `StreamEnvelope` becomes a libnats message: its headers set, then published on
/// core NATS or into JetStream (waiting at most 2 s for the stream's acknowledgement).
extension NATSLink {
    enum PublishOutcome: Equatable {
        /// Core NATS took it (`sequence` 0), or JetStream stored it at `sequence`; `duplicate`:
        /// JetStream said it already held a message with this `Nats-Msg-Id` and stored nothing.
        case published(sequence: UInt64 = 0, duplicate: Bool = false)
        /// libnats or the server refused it; `jetStreamError` is JetStream's code when it gave one.
        /// `noResponders`: nothing took a stored message (a deleted stream answers so).
        case failed(status: String, jetStreamError: Int, noResponders: Bool = false)
    }

    func publish(_ envelope: StreamEnvelope) -> PublishOutcome {
        guard let handles else { return .failed(status: "not connected", jetStreamError: 0) }
        var message: OpaquePointer?
        let made = envelope.body.withUnsafeBufferPointer { buffer in
            natsMsg_Create(&message, envelope.subject, nil,
                           buffer.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                           Int32(buffer.count))
        }
        guard made == NATS_OK, let message else { return .failed(status: Self.text(made), jetStreamError: 0) }
        defer { natsMsg_Destroy(message) }
        for header in envelope.headers {
            let status = natsMsgHeader_Set(message, header.name, header.value)
            guard status == NATS_OK else { return .failed(status: Self.text(status), jetStreamError: 0) }
        }
        guard envelope.stored else {
            let status = natsConnection_PublishMsg(handles.connection, message)
            return status == NATS_OK ? .published() : .failed(status: Self.text(status), jetStreamError: 0)
        }
        var options = jsPubOptions()
        jsPubOptions_Init(&options)
        options.MaxWait = 2_000
        var errorCode = jsErrCode(0)
        var ack: UnsafeMutablePointer<jsPubAck>?
        let status = js_PublishMsg(&ack, handles.jetStream, message, &options, &errorCode)
        defer { jsPubAck_Destroy(ack) }
        guard status == NATS_OK else {
            return .failed(status: Self.text(status), jetStreamError: Int(errorCode.rawValue),
                           noResponders: status == NATS_NO_RESPONDERS)
        }
        return .published(sequence: ack?.pointee.Sequence ?? 0, duplicate: ack?.pointee.Duplicate ?? false)
    }

    /// The last message `stream` holds on `subject`: its stream sequence and body; nil when NATS
    /// did not answer or holds none (a check that cannot read finds nothing wrong).
    func lastMessage(stream: String, subject: String) -> (sequence: UInt64, body: [UInt8])? {
        guard let handles else { return nil }
        var options = jsOptions()
        jsOptions_Init(&options)
        options.Wait = 2_000
        var message: OpaquePointer?
        var errorCode = jsErrCode(0)
        let status = js_GetLastMsg(&message, handles.jetStream, stream, subject, &options, &errorCode)
        guard status == NATS_OK, let message else { return nil }
        defer { natsMsg_Destroy(message) }
        let length = Int(natsMsg_GetDataLength(message))
        var body: [UInt8] = []
        if length > 0, let bytes = natsMsg_GetData(message) {
            body = bytes.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
        }
        return (natsMsg_GetSequence(message), body)
    }

    enum LastMessage: Equatable {
        case found(body: [UInt8], signature: String?)
        /// The stream holds no message on the subject.
        case none
        /// NATS did not answer (or the body was over `maximumBytes`): nothing can be concluded.
        case unknown
    }

    /// The last message `stream` holds on `subject`, with its `Gather-Signature`, telling "none"
    /// from "no answer" (a result's outbox republishes on the first, waits on the second).
    func lastMessageLookup(stream: String, subject: String, maximumBytes: Int) -> LastMessage {
        guard let handles else { return .unknown }
        var options = jsOptions()
        jsOptions_Init(&options)
        options.Wait = 2_000
        var message: OpaquePointer?
        var errorCode = jsErrCode(0)
        let status = js_GetLastMsg(&message, handles.jetStream, stream, subject, &options, &errorCode)
        guard status == NATS_OK, let message else { return errorCode == JSNoMessageFoundErr ? .none : .unknown }
        defer { natsMsg_Destroy(message) }
        let length = Int(natsMsg_GetDataLength(message))
        guard length <= maximumBytes else { return .unknown }
        var body: [UInt8] = []
        if length > 0, let bytes = natsMsg_GetData(message) {
            body = bytes.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
        }
        var value: UnsafePointer<CChar>?
        var signature: String?
        if natsMsgHeader_Get(message, StreamSignature.header, &value) == NATS_OK, let value, strlen(value) <= 256 {
            signature = String(cString: value)
        }
        return .found(body: body, signature: signature)
    }

    /// The last message `stream` holds on `subject` with its `Gather-Signature`; nil when NATS
    /// did not answer or holds none.
    func lastSignedMessage(stream: String, subject: String) -> (body: [UInt8], signature: String?)? {
        guard let handles else { return nil }
        var options = jsOptions()
        jsOptions_Init(&options)
        options.Wait = 2_000
        var message: OpaquePointer?
        var errorCode = jsErrCode(0)
        let status = js_GetLastMsg(&message, handles.jetStream, stream, subject, &options, &errorCode)
        guard status == NATS_OK, let message else { return nil }
        let copied = NATSMessage(taking: message, maximumBytes: 1 << 20)
        return (copied.data, copied.signature)
    }

    private static func text(_ status: natsStatus) -> String { String(cString: natsStatus_GetText(status)) }
}
