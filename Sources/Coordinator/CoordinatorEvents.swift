import GatherModel
import GatherPresenters

/// A connected client, as the Coordinator knows it. The App maps transport connections 1:1.
public struct ClientID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public var description: String { "#\(rawValue)" }
    public static func < (lhs: ClientID, rhs: ClientID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// What happened, as the Coordinator's core hears it. Named after the fact, not the wish.
public enum CoordinatorEvent: Equatable, Sendable {
    case clientConnected(ClientID, address: String)
    case clientDisconnected(ClientID)
    case messageReceived(ClientID, text: String)
    case countdownWoke
    case presenceWoke
    case passwordHashed(PasswordJob, encodedHash: String)
    case passwordChecked(PasswordJob, matches: Bool)
}

/// What the core asks the runtime to do. The runtime renders messages with the Presenters and
/// hands bytes to the Transport; nothing here performs I/O.
public enum Effect: Equatable, Sendable {
    /// The first frame of a connection; after it the client follows the shared snapshot.
    case greet(ClientID, ServerMessage)
    case send(ClientID, ServerMessage)
    case publishSnapshot(version: Int, state: GatherState)
    case publishTick(MatchTimer)
    case publishPresence(organisers: [String], spectators: Int)
    case close(ClientID, code: UInt16, reason: String)
    /// Wake the countdown at this instant (epoch ms); nil cancels the wake-up.
    case scheduleCountdown(at: Int64?)
    case schedulePresence(at: Int64)
    /// Run the slow KDF off the Coordinator's queue, then report `passwordHashed`.
    case hashPassword(PasswordJob)
    /// Run the slow KDF off the Coordinator's queue, then report `passwordChecked`.
    case verifyPassword(PasswordJob, against: String)
}

/// A `register` or `login` waiting for the KDF. Its description never shows the password.
public struct PasswordJob: Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public enum Purpose: String, Sendable { case register, login }

    public let client: ClientID
    public let purpose: Purpose
    public let username: String
    public let password: String
    public let requestID: String?

    public init(client: ClientID, purpose: Purpose, username: String, password: String, requestID: String?) {
        self.client = client
        self.purpose = purpose
        self.username = username
        self.password = password
        self.requestID = requestID
    }

    public var description: String { "PasswordJob(\(purpose.rawValue) \(username) for \(client), password: <redacted>)" }
    public var debugDescription: String { description }
}
