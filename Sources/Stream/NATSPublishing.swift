import CNats

/// The one place a `StreamEnvelope` becomes a libnats message: its headers set, then published on
/// core NATS or into JetStream (waiting at most 2 s for the stream's acknowledgement).
extension NATSLink {
    enum PublishOutcome: Equatable {
        case published
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
            return status == NATS_OK ? .published : .failed(status: Self.text(status), jetStreamError: 0)
        }
        var options = jsPubOptions()
        jsPubOptions_Init(&options)
        options.MaxWait = 2_000
        var errorCode = jsErrCode(0)
        var ack: UnsafeMutablePointer<jsPubAck>?
        let status = js_PublishMsg(&ack, handles.jetStream, message, &options, &errorCode)
        jsPubAck_Destroy(ack)
        return status == NATS_OK ? .published : .failed(status: Self.text(status), jetStreamError: Int(errorCode.rawValue),
                                                        noResponders: status == NATS_NO_RESPONDERS)
    }

    private static func text(_ status: natsStatus) -> String { String(cString: natsStatus_GetText(status)) }
}
