import ClubCoordinator
import Foundation
import GatherStream
import Logging

/// `gather club serve --venue …`: the follower of the venue's results, wired to the club's scope.
/// Each verified result with a `clubDate` is applied in one transaction (`applyPitchResult`);
/// a database that does not answer makes the follower read the results again a second later.
enum ClubResults {
    static func make(options: ClubServeCommand, service: ClubService, logger: Logger) throws -> VenueResultsFollower? {
        let configuration: VenueResultsFollower.Configuration?
        do {
            configuration = try options.venueResults.configuration(
                endpoint: options.nats.endpoint(clientName: "gather club results"))
        } catch {
            throw StartupFailure(description: "\(error)")
        }
        // (`--nats-password`'s warning is the list publisher's: --nats goes with --club.)
        guard let configuration else { return nil }
        let venue = configuration.venue.rawValue
        return VenueResultsFollower(configuration: configuration, logger: logger) { result in
            guard let dateId = result.clubDate else { return .ignored(reason: "not made from a club date") }
            do {
                switch try service.applyPitchResult(ClubService.PitchResult(
                    id: result.id, venue: venue, dateId: dateId, endedAt: result.endedAt, played: Set(result.memberIds))) {
                case .applied: return .applied
                case .alreadyApplied: return .alreadyApplied
                case .ignored(let reason): return .ignored(reason: reason)
                }
            } catch {
                return .failed(reason: "\(error)")
            }
        }
    }

    /// The `/healthz` members of the follower: `,"venue":NAME,"venueNats":…,"venueDropped":N,
    /// "venueResultsApplied":N` (nothing without `--venue`).
    static func healthFields(_ follower: VenueResultsFollower?, venue: String?) -> String {
        guard let follower, let venue else { return "" }
        let health = follower.reading()
        return ",\"venue\":\"\(venue)\",\"venueNats\":\"\(health.nats)\",\"venueDropped\":\(health.dropped),"
            + "\"venueResultsApplied\":\(health.applied)"
    }
}
