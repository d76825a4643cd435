import CNats
import Foundation

/// `gather nats mirror`: on the cloud hub, a mirror of a venue's stream that lives in the venue's
/// leaf node (its own JetStream domain). The mirror must allow rollups, or the hub refuses the
/// venue's snapshots ("rollup not permitted"); with them it holds, like the venue, one snapshot
/// and the patches after it, and catches up by itself when the uplink returns.
public enum MirrorSetup {
    /// The consumers a new mirror (or the venue's stream) allows: a relay holds one at a time.
    public static let maximumConsumers = 64

    public enum Outcome: Equatable, Sendable {
        case created
        case alreadyThere
    }

    /// Connects once (no retries: an operator runs this and reads the answer), creates the mirror
    /// when missing, and checks an existing one allows rollups and keeps `replicas` copies (and
    /// fixes it when it does not). `replicas`: 1 on a single hub, 3 on a hub of three (the
    /// mirror then survives any one node). `deliverPrefix`: where the source delivers the mirror's
    /// messages, for a mirror in the relays' own account reading the venue's account through its
    /// exports (`deliver.VENUE`, deploy/nats); nil for a mirror of a leaf's domain. A new mirror
    /// allows at most `maxConsumers` consumers (each relay holds one).
    public static func ensure(endpoint: NATSEndpoint, venue: VenueName, mirrorName: String, domain: String,
                              replicas: Int = 1, deliverPrefix: String? = nil, maxConsumers: Int = maximumConsumers) throws
        -> Outcome {
        var options: OpaquePointer?
        try check(natsOptions_Create(&options), "cannot make the NATS options")
        defer { natsOptions_Destroy(options) }
        try endpoint.apply(to: options)
        try check(natsOptions_SetTimeout(options, 5_000), "cannot set the NATS timeout")
        var connection: OpaquePointer?
        try check(natsConnection_Connect(&connection, options), "cannot connect to the hub at \(endpoint.url)")
        defer { natsConnection_Destroy(connection) }
        var jsOptions = jsOptions()
        jsOptions_Init(&jsOptions)
        jsOptions.Wait = 5_000
        var js: OpaquePointer?
        try check(natsConnection_JetStream(&js, connection, &jsOptions), "cannot use JetStream on the hub")
        defer { jsCtx_Destroy(js) }

        var info: UnsafeMutablePointer<jsStreamInfo>?
        var errorCode = jsErrCode(0)
        if js_GetStreamInfo(&info, js, mirrorName, nil, &errorCode) == NATS_OK, let info {
            defer { jsStreamInfo_Destroy(info) }
            guard info.pointee.Config.pointee.Mirror != nil else {
                throw NATSFailure("the hub already has a stream \(mirrorName) that is not a mirror", NATS_ERR)
            }
            if !info.pointee.Config.pointee.AllowRollup || info.pointee.Config.pointee.Replicas != Int64(replicas) {
                info.pointee.Config.pointee.AllowRollup = true
                info.pointee.Config.pointee.Replicas = Int64(replicas)
                var updated: UnsafeMutablePointer<jsStreamInfo>?
                let status = js_UpdateStream(&updated, js, info.pointee.Config, nil, &errorCode)
                jsStreamInfo_Destroy(updated)
                try check(status, "the mirror \(mirrorName) cannot be changed to allow rollups with \(replicas) replicas")
            }
            return .alreadyThere
        }
        guard errorCode == JSStreamNotFoundErr else {
            throw NATSFailure("cannot read the hub's streams (JetStream error \(errorCode.rawValue))", NATS_ERR)
        }

        let apiPrefix = "$JS.\(domain).API"
        let status: natsStatus = mirrorName.withCString { name in
            venue.streamName.withCString { source in
                apiPrefix.withCString { prefix in
                    // libnats 3.4.1 writes DeliverPrefix without a null check: "" is "not set".
                    (deliverPrefix ?? "").withCString { deliver in
                    var external = jsExternalStream(APIPrefix: prefix, DeliverPrefix: deliver)
                    return withUnsafeMutablePointer(to: &external) { externalPointer in
                        var mirror = jsStreamSource()
                        mirror.Name = source
                        mirror.External = externalPointer
                        return withUnsafeMutablePointer(to: &mirror) { mirrorPointer in
                            var config = jsStreamConfig()
                            jsStreamConfig_Init(&config)
                            config.Name = name
                            config.Storage = js_FileStorage
                            config.Mirror = mirrorPointer
                            config.AllowRollup = true
                            config.AllowDirect = true
                            config.Replicas = Int64(replicas)
                            config.MaxConsumers = Int64(maxConsumers)
                            var created: UnsafeMutablePointer<jsStreamInfo>?
                            let status = js_AddStream(&created, js, &config, nil, &errorCode)
                            jsStreamInfo_Destroy(created)
                            return status
                        }
                    }
                    }
                }
            }
        }
        try check(status, "cannot create the mirror \(mirrorName) (JetStream error \(errorCode.rawValue))")
        return .created
    }
}
