import Foundation
import GatherPresenters
import GatherSecurity
import GatherStream
import Logging

/// `gather serve --nats`: the publisher of the venue's stream, or nil without `--nats`.
enum VenueStream {
    static func make(settings: VenueStreamSettings?, epoch: StreamEpoch, signingKey: Ed25519PrivateKey, logger: Logger,
                     onRemoteWatchers: @escaping @Sendable (Int) -> Void) throws -> VenuePublisher? {
        guard let settings else { return nil }
        if let warning = settings.passwordWarning {
            FileHandle.standardError.write(Data("gather: warning: \(warning)\n".utf8))
        }
        return VenuePublisher(endpoint: settings.endpoint, venue: settings.venue, epoch: epoch, signingKey: signingKey,
                              logger: logger, onRemoteWatchers: onRemoteWatchers)
    }

    /// Prometheus lines of the stream, appended to `/metrics`.
    static func metricsText(_ publisher: VenuePublisher?) -> String {
        guard let publisher else { return "" }
        let cost = publisher.cost()
        let reading = publisher.reading()
        return """
            # HELP gather_stream_state_publications_total State messages (patches and snapshots) published to NATS.
            # TYPE gather_stream_state_publications_total counter
            gather_stream_state_publications_total \(cost.statePublications)
            # HELP gather_stream_publish_cpu_seconds_total CPU time of the publisher's thread spent publishing.
            # TYPE gather_stream_publish_cpu_seconds_total counter
            gather_stream_publish_cpu_seconds_total \(cost.cpuSeconds)
            # HELP gather_stream_connected 1 when the venue stream's NATS connection is up.
            # TYPE gather_stream_connected gauge
            gather_stream_connected \(reading.state == .connected ? 1 : 0)
            # HELP gather_presence_remote Spectators of the relays, as they last reported.
            # TYPE gather_presence_remote gauge
            gather_presence_remote \(reading.remoteWatchers)

            """
    }

    /// The `/healthz` members of the stream: `"nats"`, `"stream"` (`present`, `missing`, or
    /// `unknown` while NATS is unreachable), `"publishedVersion"`, and `"lagVersions"`: how many
    /// versions of the venue's `version` the stream does not hold yet.
    static func healthFields(_ publisher: VenuePublisher?, version: Int) -> String {
        guard let publisher else {
            return ",\"nats\":\"off\",\"stream\":null,\"publishedVersion\":null,\"lagVersions\":null"
        }
        let reading = publisher.reading()
        let stream = publisher.streamPresent.map { $0 ? "present" : "missing" } ?? "unknown"
        let lag = max(0, version - (reading.publishedVersion ?? 0))
        return ",\"nats\":\"\(reading.state.rawValue)\",\"stream\":\"\(stream)\""
            + ",\"publishedVersion\":\(reading.publishedVersion.map(String.init) ?? "null"),\"lagVersions\":\(lag)"
    }
}

/// The venue's signing key and what the server shows of it: relays are given the public key
/// (banner, `/healthz`'s `venueKey`) and believe only what it signed.
struct VenueSigningKey: Sendable {
    let privateKey: Ed25519PrivateKey
    /// Standard padded base64 of the 32 bytes: what `gather relay --venue-key` takes.
    let publicKeyBase64: String

    /// The key in the data folder (`venue-key.pem`), made at the first start.
    init(dataFolder: String) throws {
        privateKey = try VenueKeyFile.ensure(in: dataFolder)
        publicKeyBase64 = Base64.encoded(try privateKey.publicKeyBytes())
    }

    /// A new run of the server: 256 random bits (43 of `A-Za-z0-9-_`) and the start.
    static func newEpoch(now: Int64) -> StreamEpoch {
        guard let epoch = StreamEpoch(id: SecureRandom.token(), startedAt: now) else {
            fatalError("a random token is always a valid epoch")
        }
        return epoch
    }

    /// `,"venueKey":…,"epoch":…,"epochStartedAt":…` for `/healthz` (base64 and base64url: nothing to escape).
    func healthFields(epoch: StreamEpoch) -> String {
        ",\"venueKey\":\"\(publicKeyBase64)\",\"epoch\":\"\(epoch.id)\",\"epochStartedAt\":\(epoch.startedAt)"
    }
}
