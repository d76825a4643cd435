import Foundation
import GatherStream
import Logging

/// `gather serve --nats`: the publisher of the venue's stream, or nil without `--nats`.
enum VenueStream {
    static func make(options: ServeCommand, logger: Logger,
                     onRemoteWatchers: @escaping @Sendable (Int) -> Void) throws -> VenuePublisher? {
        guard let endpoint = options.nats.endpoint(clientName: "gather serve") else { return nil }
        if let warning = options.nats.passwordWarning {
            FileHandle.standardError.write(Data("gather: warning: \(warning)\n".utf8))
        }
        let venue = try parseVenue(options.venueOption)
        return VenuePublisher(endpoint: endpoint, venue: venue, logger: logger, onRemoteWatchers: onRemoteWatchers)
    }

    /// The `/healthz` members of the stream: `"nats"` and `"publishedVersion"`.
    static func healthFields(_ publisher: VenuePublisher?) -> String {
        guard let publisher else { return ",\"nats\":\"off\",\"publishedVersion\":null" }
        let reading = publisher.reading()
        return ",\"nats\":\"\(reading.state.rawValue)\",\"publishedVersion\":\(reading.publishedVersion.map(String.init) ?? "null")"
    }
}
