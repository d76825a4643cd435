import Foundation

/// What every scenario shares.
struct BenchSettings {
    var organisers = 4
    var commands = 100
    var players = 22
    var pressesPerGather = 20
    /// Presses stop early (and say so) once a phase has run this long.
    var phaseSeconds = 600.0
    /// No phase runs past this instant: the whole run stays bounded.
    var runDeadline = Date.distantFuture
    var inviteCode = "BENCHCODE1"
    var progress: (String) -> Void = { _ in }

    /// The organisers' protocol: the driver reads the state from their gather.v1 snapshots.
    static let organiserWire = "gather.v1"
}

struct FanOutResult {
    var spectators = 0
    /// The spectators' subprotocol, gather.v1 or gather.v2.
    var wire = "gather.v1"
    var connected = 0
    /// Spectators the server counted once connecting was over (late handshakes included).
    var counted = 0
    var failed = 0
    var firstError: String?
    var handshakesPerSecond = 0.0
    var residentKilobytesPerConnection: Double?
    var press: Distribution?
    var ack: Distribution?
    var missing = 0
    /// Ticks at the last spectator, on the loop that also parses every spectator's messages.
    var ticks: TickRegularity?
    /// Ticks at an organiser, on the organisers' own loop: what one phone sees.
    var organiserTicks: TickRegularity?
    var snapshotBytes = (smallest: 0, largest: 0)
    var patchBytes = (smallest: 0, largest: 0)
    /// One tick as the spectators' protocol sends it, frame header included.
    var tickFrameBytes: Int?
    var rejections: [String: Int] = [:]
    /// The server's side of the score presses.
    var server = ServerWindow()
    var pressesDone = 0
    var error: String?

    var organisersShareProtocol: Bool { wire == BenchSettings.organiserWire }

    /// Bytes per score change per spectator, from the server's counters.
    func bytesPerChange(organisers: Int) -> (bytes: Double, ticksPerConnection: Double)? {
        server.bytesPerChangePerSpectator(wire: wire, connections: counted + (organisersShareProtocol ? organisers : 0),
                                          organisersShareProtocol: organisersShareProtocol,
                                          tickFrameBytes: tickFrameBytes)
    }
}

struct StalledResult {
    var spectators = 0
    var wire = "gather.v1"
    var connected = 0
    var before: Distribution?
    var during: Distribution?
    var residentGrowthKilobytes: Int?
    var stalledClosedByServer = false
    var missing = 0
    var error: String?
}
