import CNats
import Foundation
import Logging

/// Creates the venue's JetStream stream when it is missing, with rollups allowed (a snapshot with
/// `Nats-Rollup: sub` replaces everything before it, so the subject holds one snapshot and the
/// patches after it), capturing the state subject and the results subject (never rolled up: one
/// message per finished gather). A stream made before results existed gains their subject.
enum StreamSetup {
    static func ensure(venue: VenueName, jetStream: OpaquePointer, logger: Logger) throws {
        try ensure(name: venue.streamName, subjects: [venue.stateSubject, venue.resultsSubject],
                   maximumBytes: StreamMessageLimit.bytes, jetStream: jetStream, logger: logger, what: "the venue's stream")
    }

    /// The stream `name` capturing `subject`, rollups allowed (the club's).
    static func ensure(name streamName: String, subject streamSubject: String, maximumBytes: Int,
                       jetStream: OpaquePointer, logger: Logger, what: String) throws {
        try ensure(name: streamName, subjects: [streamSubject], maximumBytes: maximumBytes, jetStream: jetStream,
                   logger: logger, what: what)
    }

    /// The stream `name` capturing every one of `subjects`, rollups allowed; an existing one that
    /// does not allow rollups or misses a subject is changed.
    static func ensure(name streamName: String, subjects wanted: [String], maximumBytes: Int,
                       jetStream: OpaquePointer, logger: Logger, what: String) throws {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var errorCode = jsErrCode(0)
        let found = js_GetStreamInfo(&info, jetStream, streamName, nil, &errorCode)
        if found == NATS_OK, let info {
            defer { jsStreamInfo_Destroy(info) }
            let config = info.pointee.Config.pointee
            let subjects = (0..<Int(config.SubjectsLen)).compactMap { config.Subjects?[$0].map { String(cString: $0) } }
            let missing = wanted.filter { !subjects.contains($0) }
            guard !config.AllowRollup || !missing.isEmpty else { return }
            info.pointee.Config.pointee.AllowRollup = true
            let status = withSubjects(subjects + missing) { list, count in
                info.pointee.Config.pointee.Subjects = list
                info.pointee.Config.pointee.SubjectsLen = count
                var updated: UnsafeMutablePointer<jsStreamInfo>?
                let status = js_UpdateStream(&updated, jetStream, info.pointee.Config, nil, &errorCode)
                jsStreamInfo_Destroy(updated)
                // The info's own list is freed by jsStreamInfo_Destroy: put it back before.
                info.pointee.Config.pointee.Subjects = config.Subjects
                info.pointee.Config.pointee.SubjectsLen = config.SubjectsLen
                return status
            }
            guard status == NATS_OK else {
                throw NATSFailure("the stream \(streamName) cannot be changed to allow rollups and capture "
                                  + "\(wanted.joined(separator: ", ")) (JetStream error \(errorCode.rawValue))", status)
            }
            logger.notice("brought the existing stream up to date", metadata: [
                "stream.name": "\(streamName)", "stream.subjects_added": "\(missing.joined(separator: ","))",
            ])
            return
        }
        guard errorCode == JSStreamNotFoundErr else {
            throw NATSFailure("cannot read the stream \(streamName) (JetStream error \(errorCode.rawValue))", found)
        }
        var config = jsStreamConfig()
        jsStreamConfig_Init(&config)
        let status: natsStatus = streamName.withCString { name in
            withSubjects(wanted) { list, count in
                config.Name = name
                config.Subjects = list
                config.SubjectsLen = count
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
        guard status == NATS_OK else {
            throw NATSFailure("cannot create the stream \(streamName) (JetStream error \(errorCode.rawValue))", status)
        }
        logger.notice("created \(what)", metadata: ["stream.name": "\(streamName)",
                                                   "stream.subjects": "\(wanted.joined(separator: ","))"])
    }

    /// `subjects` as a C array of C strings, valid only inside `body`.
    private static func withSubjects<T>(_ subjects: [String], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>?, Int32) throws -> T)
        rethrows -> T {
        let copies = subjects.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        var pointers = copies.map { UnsafePointer<CChar>($0) }
        return try pointers.withUnsafeMutableBufferPointer { list in try body(list.baseAddress, Int32(list.count)) }
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
