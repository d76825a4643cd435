import ArgumentParser
import Foundation

/// Which scenarios to run.
enum ScenarioChoice: String, ExpressibleByArgument, CaseIterable {
    /// `nchan`: one relay and nginx + nchan fed the same messages, side by side (also part of `all`).
    /// `club`: 500 members answering in a date's first minute over two `gather club serve` on
    /// PostgreSQL (not part of `all`: it needs PostgreSQL).
    case fanout, stalled, relays, tournament, nchan, club, all
}

/// How followers reach a relay.
enum RelayTransport: String, ExpressibleByArgument, CaseIterable {
    case plain, tls
}

/// The spectators' subprotocol.
enum WireChoice: String, ExpressibleByArgument, CaseIterable {
    case v1 = "gather.v1"
    case v2 = "gather.v2"
}

/// `gather-bench`: the server's CPU, bytes and fan-out per change, with fan-out latency, durable
/// acks, ticks, handshakes and memory of a real server.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gather-bench",
        abstract: "Measure a real gather server over wss on loopback: its CPU, bytes and fan-out per change, acks, ticks, memory.",
        discussion: "Starts `gather serve` on a free loopback port (a fresh process per scenario, temporary data and "
            + "certificates), or targets a running one with --url and --ca. Release builds only give honest numbers."
    )

    @Option(help: "The gather executable to start (e.g. .build/release/gather).")
    var server: String?

    @Option(help: "The pages folder for the started server.")
    var `public` = "Public"

    @Option(help: "A running server instead: wss://127.0.0.1:PORT (loopback only).")
    var url: String?

    @Option(help: "The CA certificate (PEM) that signed the running server's certificate.")
    var ca: String?

    @Option(name: .customLong("server-pid"), help: "PID of the running server, for its memory (with --url).")
    var serverPID: Int32?

    @Option(name: .customLong("invite-code"), help: "Invite code (given to the started server; needed with --url).")
    var inviteCode = "BENCHCODE1"

    @Option(help: "Spectator counts of the fan-out scenario (repeatable).")
    var spectators: [Int] = [1_000, 10_000]

    @Option(help: "The spectators' subprotocol: every fan-out runs once with each given (repeatable).")
    var wire: [WireChoice] = [.v1, .v2]

    @Option(name: .customLong("stalled-spectators"), help: "Spectators of the stalled scenario (one of them stalls).")
    var stalledSpectators = 1_000

    @Option(name: .customLong("stalled-wire"), help: "The stalled scenario's subprotocol.")
    var stalledWire: WireChoice = .v1

    @Option(help: "Organisers pressing in turn.")
    var organisers = 4

    @Option(help: "Measured presses (score +1/−1) per scenario; the stalled scenario does them twice.")
    var commands = 100

    @Option(help: "Players on the roster (they make the snapshot as big as a real one).")
    var players = 22

    @Option(name: .customLong("presses-per-gather"), help: "A fresh gather after this many presses, as in real matches.")
    var pressesPerGather = 20

    @Option(name: .customLong("phase-seconds"), help: "Stop pressing (and say so) after this long in one phase.")
    var phaseSeconds = 60

    @Option(name: .customLong("budget-seconds"), help: "No phase runs past this many seconds from the start.")
    var budgetSeconds = 330

    @Option(help: "fanout, stalled, relays (with the floor), tournament, nchan (a relay beside nginx + nchan), club (PostgreSQL) or all.")
    var scenario: ScenarioChoice = .all

    @Option(help: "Relays of the relay scenarios (each a `gather relay` process).")
    var relays = 2

    @Option(help: "Followers of the relay scenarios, spread over the relays.")
    var followers = 20_000

    @Option(name: .customLong("relay-transport"), help: "plain (ws://) and/or tls (wss://) relay scenarios (repeatable).")
    var relayTransport: [RelayTransport] = [.plain, .tls]

    @Option(name: .customLong("tournament-spectators"), help: "Spectators (gather.v2) following the tournament day.")
    var tournamentSpectators = 2_000

    @Option(name: .customLong("tournament-relays"), help: "Relays following the tournament day (0: none, no nats-server).")
    var tournamentRelays = 2

    @Option(name: .customLong("floor-rounds"), help: "Frames the floor writes to each connection.")
    var floorRounds = 50

    @Option(name: .customLong("nchan-followers"), help: "Followers of the relay and of nginx + nchan in the nchan comparison.")
    var nchanFollowers = 2_000

    @Option(help: "The nginx executable of the nchan comparison (default: Debian's, with libnginx-mod-nchan).")
    var nginx: String?

    @Option(name: .customLong("nats-server"), help: "The nats-server executable (default: found on the usual paths).")
    var natsServer: String?

    @Option(name: .customLong("club-members"), help: "Members of the club scenario, each answering once (1–500).")
    var clubMembers = 500

    @Option(name: .customLong("club-instances"), help: "`gather club serve` instances of the club scenario (1–4).")
    var clubInstances = 2

    @Option(name: .customLong("club-window-seconds"), help: "The club's answers all leave within this many seconds (10–600).")
    var clubWindowSeconds = 60

    @Option(name: .customLong("postgres-bin"), help: "PostgreSQL's programs (initdb, pg_ctl, psql) for the club scenario (default: Debian's newest).")
    var postgresBin: String?

    // MARK: The follower worker (a child the relay scenarios start; not for people)

    @Flag(name: .customLong("follower-worker"), help: .hidden)
    var followerWorker = false

    @Option(name: .customLong("relay-port"), help: .hidden)
    var relayPorts: [Int] = []

    @Flag(name: .customLong("relay-tls"), help: .hidden)
    var relayTLS = false

    @Option(name: .customLong("first-block"), help: .hidden)
    var firstBlock = 1

    @Flag(help: "Print one JSON object instead of the table.")
    var json = false

    func validate() throws {
        if followerWorker {
            guard !relayPorts.isEmpty, ca != nil, (1...20_000).contains(followers), (1...200).contains(firstBlock) else {
                throw ValidationError("--follower-worker needs --relay-port, --ca, --followers 1–20000 and --first-block.")
            }
            return
        }
        guard (1...100_000).contains(tournamentSpectators), (0...16).contains(tournamentRelays) else {
            throw ValidationError("--tournament-spectators 1–100000, --tournament-relays 0–16.")
        }
        guard (1...16).contains(relays), (1...100_000).contains(followers), (1...10_000).contains(floorRounds),
              !relayTransport.isEmpty, (1...RelayScenario.followersPerWorker).contains(nchanFollowers)
        else {
            throw ValidationError("--relays 1–16, --followers 1–100000, --floor-rounds 1–10000, a --relay-transport, "
                + "--nchan-followers 1–\(RelayScenario.followersPerWorker).")
        }
        guard (server == nil) != (url == nil) else { throw ValidationError("Give either --server or --url.") }
        if scenario == .club {
            guard server != nil else { throw ValidationError("--scenario club starts its own instances: it needs --server.") }
            guard (1...500).contains(clubMembers), (1...4).contains(clubInstances), (10...600).contains(clubWindowSeconds) else {
                throw ValidationError("--club-members 1–500, --club-instances 1–4, --club-window-seconds 10–600.")
            }
        }
        if url != nil, ca == nil { throw ValidationError("--url needs --ca.") }
        guard spectators.allSatisfy({ (1...100_000).contains($0) }), (2...100_000).contains(stalledSpectators) else {
            throw ValidationError("--spectators must be 1–100000 and --stalled-spectators 2–100000.")
        }
        guard (1...64).contains(organisers), (1...100_000).contains(commands), (2...500).contains(players),
              (1...10_000).contains(pressesPerGather), phaseSeconds > 0, budgetSeconds > 0, !wire.isEmpty
        else {
            throw ValidationError("--organisers 1–64, --commands ≥ 1, --players 2–500, --presses-per-gather ≥ 1, "
                + "--phase-seconds and --budget-seconds > 0, at least one --wire.")
        }
    }

    func run() throws {
        if followerWorker {
            let targets = relayPorts.map { ServerTarget(port: $0, caPath: ca ?? "", tls: relayTLS) }
            try FollowerWorker(targets: targets, followers: followers, firstBlock: firstBlock).run()
            return
        }
        try BenchRun(options: self).execute()
    }
}
