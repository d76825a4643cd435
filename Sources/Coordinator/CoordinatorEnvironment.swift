import Foundation
import GatherPresenters

/// Everything the core takes from the outside world, injected so tests are deterministic:
/// a test clock instead of the wall clock, counters instead of random ids.
public struct CoordinatorEnvironment: Sendable {
    /// Epoch milliseconds.
    public var now: @Sendable () -> Int64
    public var newGatherID: @Sendable () -> String
    /// 256 random bits, printable.
    public var newToken: @Sendable () -> String
    /// Tokens are stored only as this hash.
    public var hashToken: @Sendable (String) -> String
    /// The operator's invite code (`--invite-code`), replacing the kept one; nil keeps the stored
    /// code, or draws one with `newInviteCode` the first time. The Coordinator is its one writer.
    public var inviteCode: String?
    /// A real password hash of a random password: a login for an unknown name still runs the KDF
    /// once, so timing does not reveal which usernames exist.
    public var decoyPasswordHash: String
    /// Where organisers log in (the TLS organiser page), for the spectator door's answers.
    public var organiserAddress: @Sendable () -> String
    /// A new random invite code, for the first start and `rotateInvite`.
    public var newInviteCode: @Sendable () -> String
    /// A referee link's code: 128 random bits, base64url (22 characters); stored only hashed by
    /// `hashToken` (a SHA-256: the code is random, so no slow KDF is needed).
    public var newRefereeCode: @Sendable () -> String
    public var limits: Limits
    /// This run of the server, stamped on `welcome` and every gather.v2 snapshot; nil in tests.
    public var epoch: StreamEpoch? = nil

    public init(now: @escaping @Sendable () -> Int64, newGatherID: @escaping @Sendable () -> String,
                newToken: @escaping @Sendable () -> String, hashToken: @escaping @Sendable (String) -> String,
                inviteCode: String?, decoyPasswordHash: String,
                organiserAddress: @escaping @Sendable () -> String = { "the organiser page over https" },
                newInviteCode: (@Sendable () -> String)? = nil,
                newRefereeCode: (@Sendable () -> String)? = nil,
                limits: Limits = Limits()) {
        self.now = now
        self.newGatherID = newGatherID
        self.newToken = newToken
        self.hashToken = hashToken
        self.inviteCode = inviteCode
        self.decoyPasswordHash = decoyPasswordHash
        self.organiserAddress = organiserAddress
        // Without one of its own (tests), a code cut from a new token: letters and digits only.
        self.newInviteCode = newInviteCode ?? {
            String(newToken().uppercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber) }.suffix(10))
        }
        // Without one of its own (tests), a code cut from a new token, in the code's alphabet and length.
        self.newRefereeCode = newRefereeCode ?? {
            let allowed = newToken().filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
            return String((allowed + String(repeating: "R", count: 22)).prefix(22))
        }
        self.limits = limits
    }

    /// The numbers of docs/PROTOCOL.md, in one place.
    public struct Limits: Sendable {
        public var commandBurst = 100.0
        public var commandsPerSecond = 20.0
        public var failedLoginsAllowed = 5
        public var failureWindowMs: Int64 = 60_000
        public var lockoutMs: Int64 = 60_000
        public var sessionIdleExpiryMs: Int64 = 30 * 24 * 3600 * 1000
        public var presenceIntervalMs: Int64 = 1000
        /// Changes kept in the journal: a command whose `base` is older is a `conflict` ("too far
        /// behind"), since nobody can tell what changed since.
        public var journalKept = 10_000
        /// Answers kept per organiser: a resent id among them gets its answer again.
        public var repliesKeptPerOrganiser = 1_000
        /// How often (in versions) the journal and replies are pruned.
        public var pruneEvery = 500

        public init() {}
    }
}
