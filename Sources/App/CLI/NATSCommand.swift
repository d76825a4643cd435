import ArgumentParser
import Foundation
import GatherStream

/// `gather nats …`: set-up of the NATS side of "Followers beyond the Wi-Fi".
struct NATSCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nats",
        abstract: "Set up the NATS side of the venue stream.",
        subcommands: [NATSMirrorCommand.self]
    )
}

/// `gather nats mirror --hub URL --venue NAME`: the hub's mirror of a venue's stream.
struct NATSMirrorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mirror",
        abstract: "Create, on the cloud hub, a mirror of a venue's stream (with rollups allowed) for relays to read."
    )

    @Option(name: .customLong("hub"), help: "The hub's NATS address, e.g. nats://hub.example.org:4222.")
    var hub: String

    @Option(name: .customLong("venue"), help: "The venue (its gather serve --venue).")
    var venueOption: String

    @Option(name: .customLong("domain"), help: "The JetStream domain of the venue's leaf node (default: the venue's name).")
    var domainOption: String?

    @Option(name: .customLong("mirror"), help: "The mirror's name on the hub (default GATHER_<venue>; relays read it with --stream).")
    var mirrorOption: String?

    @Flag(name: .customLong("for-relays"), help: "Make the mirror in the relays' own account (its user's), reading the venue's account through the exports of deploy/nats: deliveries come on deliver.<venue>.")
    var forRelays = false

    @Option(name: .customLong("replicas"), help: "Copies of the mirror the hub keeps: 1 on one hub server, 3 on a hub of three (1-5).")
    var replicas = 1

    @Option(name: .customLong("nats-creds"), help: "NATS credentials file (.creds) of a hub user allowed to create streams.")
    var credentialsFile: String?

    @Option(name: .customLong("nats-user"), help: "NATS user; the password comes from GATHER_NATS_PASSWORD.")
    var user: String?

    func validate() throws {
        _ = try parseVenue(venueOption)
        if let domainOption, VenueName(domainOption) == nil {
            throw ValidationError("--domain must be \(VenueName.rule).")
        }
        if let mirrorOption, VenueName(mirrorOption.lowercased().replacingOccurrences(of: "_", with: "-")) == nil {
            throw ValidationError("--mirror must be a stream name of letters, digits, '-' and '_' (at most 32).")
        }
        try validateNATSAddresses(hub, option: "--hub")
        try requireInRange(replicas, 1...5, option: "--replicas")
        if user != nil, ProcessInfo.processInfo.environment["GATHER_NATS_PASSWORD"] == nil {
            throw ValidationError("--nats-user needs a password: set GATHER_NATS_PASSWORD.")
        }
    }

    func run() throws {
        let venue = try parseVenue(venueOption)
        let mirror = mirrorOption ?? venue.streamName
        let domain = domainOption ?? venue.rawValue
        let credentials = natsCredentials(file: credentialsFile, user: user,
                                          password: ProcessInfo.processInfo.environment["GATHER_NATS_PASSWORD"])
        do {
            let outcome = try MirrorSetup.ensure(endpoint: NATSEndpoint(url: hub, credentials: credentials, clientName: "gather nats mirror"),
                                                 venue: venue, mirrorName: mirror, domain: domain, replicas: replicas,
                                                 deliverPrefix: forRelays ? "deliver.\(venue)" : nil)
            let verb = outcome == .created ? "Created" : "Already there:"
            print("\(verb) the mirror \(mirror) on \(hub), of \(venue.streamName) \(forRelays ? "through the venue's account exports as " : "in the JetStream domain ")\(domain) (rollups allowed, at most \(MirrorSetup.maximumConsumers) consumers, \(replicas) replica\(replicas == 1 ? "" : "s")).")
            print("Relays read it with: gather relay --nats \(hub) --venue \(venue) --stream \(mirror) --venue-key KEY "
                  + "(the venue's banner and /healthz show KEY)")
        } catch {
            FileHandle.standardError.write(Data("gather: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
