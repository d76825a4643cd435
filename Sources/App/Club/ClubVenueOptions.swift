import ArgumentParser
import GatherSecurity
import GatherStream

/// `gather club serve --venue NAME --venue-key KEY|@FILE [--venue-stream NAME]` (with `--nats` to
/// the hub): the venue whose results the club follows, and the key it believes (PROTOCOL.md
/// "Sunday's list on the laptop, and back"). Without `--venue` the club follows no venue.
struct ClubVenueOptions: ParsableArguments {
    @Option(name: .customLong("venue"), help: "The venue whose results the club follows (its --venue; a-z, 0-9, '-'); needs --nats.")
    var venueOption: String?

    @Option(name: .customLong("venue-key"),
            help: "The venue's public key (base64, from its banner or /healthz venueKey), or @FILE holding it.")
    var venueKeyOption: String?

    @Option(name: .customLong("venue-stream"),
            help: "The hub's stream holding the venue's (default GATHER_<venue>: the hub's mirror of the venue's stream).")
    var streamOption: String?

    func validate() throws {
        guard let venueOption else {
            guard venueKeyOption == nil, streamOption == nil else {
                throw ValidationError("--venue-key and --venue-stream go with --venue NAME: the venue whose results the club follows.")
            }
            return
        }
        _ = try parseVenue(venueOption)
        guard venueKeyOption != nil else {
            throw ValidationError("--venue needs --venue-key KEY: the venue's public key, from its banner or its /healthz "
                                  + "(venueKey); the club believes only results that key signed.")
        }
        _ = try parseVenueKey(venueKeyOption)
        if let streamOption {
            guard (1...64).contains(streamOption.utf8.count),
                  streamOption.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x2E && $0 != 0x2A && $0 != 0x3E && $0 != 0x2F })
            else { throw ValidationError("--venue-stream must be a JetStream stream name (no spaces, '.', '*', '>' or '/').") }
        }
    }

    /// What the follower needs; nil without `--venue`. Call after `validate` (and `--nats` checked).
    func configuration(endpoint: NATSEndpoint?) throws -> VenueResultsFollower.Configuration? {
        guard let venueOption else { return nil }
        guard let endpoint else {
            throw ValidationError("--venue needs --nats URL: the hub that holds the mirror of the venue's stream.")
        }
        let venue = try parseVenue(venueOption)
        return VenueResultsFollower.Configuration(endpoint: endpoint, venue: venue, streamName: streamOption ?? venue.streamName,
                                                  venueKey: try parseVenueKey(venueKeyOption))
    }
}
