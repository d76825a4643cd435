import CNats
import Logging

/// Creates the venue's JetStream stream when it is missing, with rollups allowed (a snapshot with
/// `Nats-Rollup: sub` replaces everything before it, so the subject holds one snapshot and the
/// patches after it).
enum StreamSetup {
    static func ensure(venue: VenueName, jetStream: OpaquePointer, logger: Logger) throws {
        try ensure(name: venue.streamName, subject: venue.stateSubject, maximumBytes: StreamMessageLimit.bytes,
                   jetStream: jetStream, logger: logger, what: "the venue's stream")
    }

    /// The stream `name` capturing `subject`, rollups allowed (the venue's, the club's).
    static func ensure(name streamName: String, subject streamSubject: String, maximumBytes: Int,
                       jetStream: OpaquePointer, logger: Logger, what: String) throws {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var errorCode = jsErrCode(0)
        let found = js_GetStreamInfo(&info, jetStream, streamName, nil, &errorCode)
        if found == NATS_OK, let info {
            defer { jsStreamInfo_Destroy(info) }
            if !info.pointee.Config.pointee.AllowRollup {
                info.pointee.Config.pointee.AllowRollup = true
                var updated: UnsafeMutablePointer<jsStreamInfo>?
                let status = js_UpdateStream(&updated, jetStream, info.pointee.Config, nil, &errorCode)
                jsStreamInfo_Destroy(updated)
                guard status == NATS_OK else { throw NATSFailure("the stream \(streamName) does not allow rollups and cannot be changed", status) }
                logger.notice("allowed rollups on the existing stream", metadata: ["stream.name": "\(streamName)"])
            }
            return
        }
        guard errorCode == JSStreamNotFoundErr else {
            throw NATSFailure("cannot read the stream \(streamName) (JetStream error \(errorCode.rawValue))", found)
        }
        var config = jsStreamConfig()
        jsStreamConfig_Init(&config)
        let status: natsStatus = streamName.withCString { name in
            streamSubject.withCString { subject in
                var subjects: [UnsafePointer<CChar>?] = [subject]
                return subjects.withUnsafeMutableBufferPointer { list in
                    config.Name = name
                    config.Subjects = list.baseAddress
                    config.SubjectsLen = 1
                    config.Storage = js_FileStorage
                    config.AllowRollup = true
                    config.AllowDirect = true
                    // Bounded: its readers are a hub's mirrors (or relays reading it directly).
                    config.MaxConsumers = Int64(MirrorSetup.maximumConsumers)
                    config.MaxMsgSize = Int32(maximumBytes)
                    var created: UnsafeMutablePointer<jsStreamInfo>?
                    let status = js_AddStream(&created, jetStream, &config, nil, &errorCode)
                    jsStreamInfo_Destroy(created)
                    return status
                }
            }
        }
        guard status == NATS_OK else {
            throw NATSFailure("cannot create the stream \(streamName) (JetStream error \(errorCode.rawValue))", status)
        }
        logger.notice("created \(what)", metadata: ["stream.name": "\(streamName)", "stream.subject": "\(streamSubject)"])
    }
}

extension StreamSetup {
    /// True when the venue's stream exists, false when NATS says it does not, nil when NATS did
    /// not answer (a slow link is not a deleted stream).
    static func isPresent(venue: VenueName, jetStream: OpaquePointer) -> Bool? {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var errorCode = jsErrCode(0)
        let found = js_GetStreamInfo(&info, jetStream, venue.streamName, nil, &errorCode)
        jsStreamInfo_Destroy(info)
        if found == NATS_OK { return true }
        return errorCode == JSStreamNotFoundErr ? false : nil
    }
}

enum StreamMessageLimit {
    static let bytes = StreamMessage.maximumBytes
}
