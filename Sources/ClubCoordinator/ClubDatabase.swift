import ClubModel

/// What the club's scope needs of its memory, as the venue's Coordinator needs `GatherStore`: the
/// PostgreSQL store conforms, and nothing here knows SQL. Every change runs in one `change`
/// transaction; reads that must see a consistent club take one too.
public protocol ClubDatabase: Sendable {
    /// Runs `body` in one transaction (committed when it returns, rolled back when it throws),
    /// retried as a whole on a serialisation failure or a deadlock: `body` must do nothing but
    /// talk to the transaction it is given.
    func change<T>(_ body: (any ClubTransaction) throws -> T) throws -> T
}

/// One open transaction. Locks taken through it are held until it ends.
public protocol ClubTransaction {
    /// The club's clock: the database's time plus the test offset, read after the locks taken so
    /// far, so a race keeps its order on every instance.
    func now() throws -> Millis
    /// Moves the test clock's offset forward; returns the new `now`.
    func advanceClock(byMs: Millis) throws -> Millis

    func settings() throws -> ClubSettings
    func saveSettings(_ settings: ClubSettings) throws

    // MARK: Exactly once
    func keptReply(scope: String, id: String) throws -> KeptReply?
    func keepReply(scope: String, id: String, _ reply: KeptReply) throws

    // MARK: Organisers
    /// Serialises the first registration across instances (the owner is decided once).
    func lockOrganisers() throws
    func organiserCount() throws -> Int
    func organiser(username: String) throws -> OrganiserRecord?
    func organiser(tokenHash: String) throws -> OrganiserRecord?
    func insertOrganiser(_ organiser: OrganiserRecord) throws
    func insertToken(hash: String, username: String, at: Millis) throws
    func deleteToken(hash: String) throws
    func failedLogins(username: String, since: Millis) throws -> Int
    func recordFailedLogin(username: String, at: Millis) throws

    // MARK: Members
    func members() throws -> [MemberRecord]
    func member(id: String) throws -> MemberRecord?
    func member(tokenHash: String) throws -> MemberRecord?
    func insertMember(_ member: MemberRecord) throws
    func updateMember(_ member: MemberRecord) throws
    func deleteMember(id: String) throws

    // MARK: Fixtures, dates, answers
    func fixtures() throws -> [Fixture]
    /// SELECT … FOR UPDATE.
    func lockFixture(id: String) throws -> Fixture?
    func insertFixture(_ fixture: Fixture) throws
    func updateFixture(_ fixture: Fixture) throws
    /// Every date still listed at `now` (not yet over), in start order.
    func dates(notEndedBy now: Millis) throws -> [ClubDate]
    /// SELECT … FOR UPDATE: every change of a date and its answers holds this lock.
    func lockDate(id: String) throws -> ClubDate?
    /// Inserts the dates whose id is new; an existing id is left as it is.
    func insertMissingDates(_ dates: [ClubDate]) throws
    func updateDate(_ date: ClubDate) throws
    func answers(date: String) throws -> [Answer]
    /// Replaces the date's answers with these (members absent from the list have none).
    func saveAnswers(date: String, _ answers: [Answer]) throws
    /// How many times the date or any of its answers changed (`updateDate` and `saveAnswers` each
    /// count one): the calendar's `SEQUENCE`.
    func revision(date: String) throws -> Int
    /// Ids of dates with an open offer due by `now` (for the sweeper; no lock).
    func datesWithOffersDue(by now: Millis) throws -> [String]
    /// `NOTIFY` after commit: every instance tells its pages these dates changed.
    func notifyChanged(dates: [String]) throws
}

/// The club's own settings row.
public struct ClubSettings: Equatable, Sendable {
    public var name: String
    public var timeZone: String
    public var language: String
    public var inviteCode: String
    /// 32 random bytes: member links are an HMAC of their seed under it.
    public var linkSecret: [UInt8]

    public init(name: String, timeZone: String, language: String, inviteCode: String, linkSecret: [UInt8]) {
        self.name = name
        self.timeZone = timeZone
        self.language = language
        self.inviteCode = inviteCode
        self.linkSecret = linkSecret
    }
}

/// The answer an id got, kept so the same id again gets the same status and body.
public struct KeptReply: Equatable, Sendable {
    public var status: Int
    public var body: String

    public init(status: Int, body: String) {
        self.status = status
        self.body = body
    }
}

public struct OrganiserRecord: Equatable, Sendable {
    public var username: String
    public var passwordHash: String
    public var owner: Bool

    public init(username: String, passwordHash: String, owner: Bool) {
        self.username = username
        self.passwordHash = passwordHash
        self.owner = owner
    }
}

/// A member and what their link is made from (the token itself is never stored).
public struct MemberRecord: Equatable, Sendable {
    public var member: Member
    public var linkSeed: [UInt8]
    public var linkHash: String

    public init(member: Member, linkSeed: [UInt8], linkHash: String) {
        self.member = member
        self.linkSeed = linkSeed
        self.linkHash = linkHash
    }
}
