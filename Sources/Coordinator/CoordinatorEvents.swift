import GatherDelivery
import GatherModel
import GatherPresenters

/// What happened, as the Coordinator's core hears it. Named after the fact, not the wish.
public enum CoordinatorEvent: Equatable, Sendable {
    case clientConnected(ConnectionID, address: String, protocol: WireProtocol = .v1, door: Door = .tls)
    case clientDisconnected(ConnectionID)
    case messageReceived(ConnectionID, text: String)
    /// The queue's lane for this connection was full: `count` of its messages were never read.
    case messagesDropped(ConnectionID, count: Int)
    /// The countdown of that pitch's running timer came due.
    case countdownWoke(pitch: Pitch.ID)
    case presenceWoke
    /// The earliest referee link's `expiresAt` came (`scheduleRefereeExpiry`).
    case refereeExpiryWoke
    /// The relays' spectators, summed by the venue stream's publisher (`presence.remote`).
    case remoteSpectatorsCounted(Int)
    case passwordHashed(PasswordJob, encodedHash: String)
    case passwordChecked(PasswordJob, matches: Bool)
}

/// What the core asks the runtime to do. Messages stay values here, so tests compare whole
/// messages; `GatherCoordinator` renders them once with the Presenters into `Delivery`s, the
/// one mapping between what the core decides and what the Transport writes.
public enum Effect: Equatable, Sendable {
    /// The first frame of a connection; after it the client follows the shared snapshot.
    case greet(ConnectionID, ServerMessage)
    case send(ConnectionID, ServerMessage)
    case publishSnapshot(version: Int, state: GatherState)
    case publishTick(pitch: Pitch.ID, timer: MatchTimer)
    case publishPresence(organisers: [String], spectators: Int, remote: Int = 0)
    /// Wake that pitch's countdown at this instant (epoch ms); nil cancels the wake-up.
    case scheduleCountdown(pitch: Pitch.ID, at: Int64?)
    case schedulePresence(at: Int64)
    /// Wake the referee links' expiry at this instant (epoch ms); nil cancels it.
    case scheduleRefereeExpiry(at: Int64?)
    /// Run the slow KDF off the Coordinator's queue, then report `passwordHashed`.
    case hashPassword(PasswordJob)
    /// Run the slow KDF off the Coordinator's queue, then report `passwordChecked`.
    case verifyPassword(PasswordJob, against: String)
    /// The address of this connection's running KDF failed since it started: run it at the lower
    /// priority of a suspect's (`PasswordJob.fromSuspect`) from now on.
    case lowerPasswordCheck(ConnectionID)
}

/// A `register` or `login` waiting for the KDF. Its description never shows the password.
public struct PasswordJob: Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// `changePassword` runs twice: the current password checked, then the new one hashed.
    public enum Purpose: String, Sendable { case register, login, changePassword }

    public let client: ConnectionID
    public let purpose: Purpose
    public let username: String
    public let password: String
    public let requestID: String?
    /// `changePassword`'s new password, carried while the current one is checked.
    public let newPassword: String?
    /// The address had failed recently when its check started (`PasswordChecks`): the KDF then
    /// runs at a lower priority than a clean address's, so a guessing crowd's checks (and its
    /// traffic) never take the CPU an organiser's login is waiting for.
    public var fromSuspect = false

    public init(client: ConnectionID, purpose: Purpose, username: String, password: String, requestID: String?,
                newPassword: String? = nil) {
        self.client = client
        self.purpose = purpose
        self.username = username
        self.password = password
        self.requestID = requestID
        self.newPassword = newPassword
    }

    /// The same request whatever its priority: the priority is how the shell runs it, not what it is.
    public static func == (lhs: PasswordJob, rhs: PasswordJob) -> Bool {
        (lhs.client, lhs.purpose, lhs.username, lhs.password, lhs.requestID, lhs.newPassword)
            == (rhs.client, rhs.purpose, rhs.username, rhs.password, rhs.requestID, rhs.newPassword)
    }

    public var description: String { "PasswordJob(\(purpose.rawValue) \(username) for \(client), password: <redacted>)" }
    public var debugDescription: String { description }
}

/// What the core decided, counted where it decided it: a replayed answer to a resent id is not a
/// new decision and is not counted again.
public struct DecisionTally: Equatable, Sendable {
    public var commandsApplied = 0
    public var rejectionsByCode: [String: Int] = [:]
    public var errorsByCode: [String: Int] = [:]
    /// The most password checks (KDF runs) that were ever under way at once.
    public var passwordChecksPeak = 0
    /// Password checks under way now, and waiting for a turn now (gauges for `/metrics`).
    public var passwordChecksRunning = 0
    public var passwordChecksWaiting = 0

    public init() {}
}
