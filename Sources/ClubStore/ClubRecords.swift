import ClubModel

/// The club's own settings row (one per database): what `gather club serve` stores at its first
/// start and every instance then reads.
public struct ClubSettings: Equatable, Sendable {
    public var name: String
    /// IANA name (e.g. "Europe/Madrid"): dates are computed in it.
    public var timeZone: String
    /// The default language of members without one (one of the six).
    public var language: String
    /// Printed at the first start; a new organiser must give it.
    public var inviteCode: String
    /// The secret from which members' link tokens are derived (HMAC of a per-link seed).
    public var linkSecret: String
    /// The club's Ed25519 key (PKCS#8 PEM) that signs the lists sent to the venue.
    public var signingKeyPEM: String
    /// The test clock's offset, added to the database's time by `now()`.
    public var clockOffsetMs: Millis

    public init(name: String, timeZone: String, language: String = "en", inviteCode: String,
                linkSecret: String, signingKeyPEM: String, clockOffsetMs: Millis = 0) {
        self.name = name
        self.timeZone = timeZone
        self.language = language
        self.inviteCode = inviteCode
        self.linkSecret = linkSecret
        self.signingKeyPEM = signingKeyPEM
        self.clockOffsetMs = clockOffsetMs
    }
}

/// An organiser account as stored: the scrypt hash string is checked by the accounts code.
public struct ClubOrganiser: Equatable, Sendable {
    public var id: Int64
    public var username: String
    public var passwordHash: String
    public var owner: Bool
    public var createdAt: Millis
}

/// A member with what only the server sees: the link's seed and the token's SHA-256.
public struct StoredMember: Equatable, Sendable {
    public var member: Member
    public var linkSeed: String
    public var linkTokenHash: String
    public var createdAt: Millis
}

/// The answer given once to a change id, given again word for word when the id comes back.
public struct KeptReply: Equatable, Sendable {
    public var status: Int
    public var body: String

    public init(status: Int, body: String) {
        self.status = status
        self.body = body
    }
}

/// What the shared login limiter says about one attempt (Precision 17: every instance counts
/// in the same table).
public enum LoginAdmission: Equatable, Sendable {
    /// Go ahead; report the outcome with this attempt's id.
    case admitted(attempt: Int64)
    /// `allowed` attempts already stand within the window.
    case refused
    /// Locked out after failures, until then.
    case locked(until: Millis)
}

/// Errors of the store's own checks (a value over its cap); database failures are `PostgresError`,
/// a rule's refusal (a name taken) is the model's `Refusal`.
public struct ClubStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { "club store: \(message)" }
}
