import GatherModel

// MARK: - What the coordinator remembers

/// One applied change, the exactly-once and arbitration memory of the coordinator.
public struct JournalEntry: Equatable, Sendable {
    /// The version this change produced (1, 2, 3, …).
    public var version: Int
    /// nil for the server (timer ran out).
    public var organiser: String?
    /// nil for the server.
    public var commandID: String?
    /// What changed: an organiser's action, or the server's `timerExpired`.
    public var kind: ActionKind
    public var subjects: Set<Subject>
    /// Epoch ms.
    public var at: Int64
    /// The pitch the change was about (nil for the roster; nil in rows older than the accounts migration).
    public var pitch: Int?
    /// A sentence for the activity list ("Added a goal for Whites (Ann, assist Bob)"); nil in
    /// rows older than the accounts migration.
    public var summary: String?
    /// The same sentence as a key and params; nil in rows older than keyed sentences.
    public var sentence: Sentence?

    public init(version: Int, organiser: String?, commandID: String?, kind: ActionKind, subjects: Set<Subject>, at: Int64,
                pitch: Int? = nil, summary: String? = nil, sentence: Sentence? = nil) {
        self.version = version
        self.organiser = organiser
        self.commandID = commandID
        self.kind = kind
        self.subjects = subjects
        self.at = at
        self.pitch = pitch
        self.summary = summary
        self.sentence = sentence
    }
}

/// The answer a command got, kept so that a resent id gets the same answer back.
public enum StoredReply: Equatable, Sendable {
    case ack(version: Int)
    /// `reason`: the sentence's key and params, so a resent command id gets the same answer in
    /// every language (nil for answers kept before sentences had keys: the code's key then).
    case rejected(code: RejectionCode, message: String, version: Int, reason: Sentence? = nil)
}

/// One kept answer: who sent the command, its id, and what it got.
public struct KeptReply: Equatable, Sendable {
    public var organiser: String
    public var commandID: String
    public var reply: StoredReply

    public init(organiser: String, commandID: String, reply: StoredReply) {
        self.organiser = organiser
        self.commandID = commandID
        self.reply = reply
    }
}

/// Everything the coordinator needs to resume where it stopped.
public struct LoadedState: Equatable, Sendable {
    /// history = the 20 most recent, newest first; players sorted by id; nextPlayerID never reused.
    public var state: GatherState
    /// 0 for an empty database.
    public var version: Int

    public init(state: GatherState, version: Int) {
        self.state = state
        self.version = version
    }
}

/// A referee link as kept: what organisers see, and the hash its code is found by.
public struct StoredRefereeLink: Equatable, Sendable {
    public var link: RefereeLink
    public var codeHash: String

    public init(link: RefereeLink, codeHash: String) {
        self.link = link
        self.codeHash = codeHash
    }
}

public struct StoredOrganiser: Equatable, Sendable {
    /// Spelled as at registration, whatever case the lookup used.
    public var username: String
    public var passwordHash: String
    public var createdAt: Int64
    /// Exactly one account is the owner.
    public var owner: Bool
    /// Epoch ms of the last login, resume or goodbye; nil when never recorded.
    public var lastSeenAt: Int64?
    /// Live session tokens (filled by `organisers(sessionsUsedSince:)`, else 0).
    public var sessions: Int

    public init(username: String, passwordHash: String, createdAt: Int64, owner: Bool = false,
                lastSeenAt: Int64? = nil, sessions: Int = 0) {
        self.username = username
        self.passwordHash = passwordHash
        self.createdAt = createdAt
        self.owner = owner
        self.lastSeenAt = lastSeenAt
        self.sessions = sessions
    }
}

/// What an account change on the Store came to; the rules live in the transaction, so the
/// server and the laptop's `gather organisers` (server stopped) cannot disagree.
public enum AccountChange: Equatable, Sendable {
    /// Done, for the account as registered (its spelling), ending this many sessions.
    case done(username: String, sessionsEnded: Int)
    case notFound
    /// The owner cannot be removed (transfer first).
    case isOwner
}

// MARK: - The store

/// The coordinator's durable memory. Every write happens on the coordinator's queue; reads such as
/// `allHistory()` and `backup(toPath:)` may come from any thread.
public protocol GatherStore: AnyObject, Sendable {
    func load() throws -> LoadedState
    /// One transaction: the state change (diffed from `before` to `after`: players upserted/deleted, active
    /// gather replaced or cleared, a newly ended gather appended to history), the version counter set to
    /// entry.version, the journal row, and — when the change came from a command — the command's reply
    /// (organiser, commandID) → .ack(version).
    /// Returns only after the transaction has committed (this is what makes an `ack` a promise).
    /// `amendedHistory`: entries older than the state's recent list that the change corrected
    /// (`GatherRules.apply(_:to:context:stored:)`), rewritten in their rows in the same transaction.
    ///
    /// `replyKey`: whom the reply is kept under when not `entry.organiser` (a referee's link, whose
    /// label stands in the journal where an organiser's name does).
    func commit(before: GatherState, after: GatherState, entry: JournalEntry, amendedHistory: [HistoryEntry],
                replyKey: String?) throws
    /// Keeps a verified club list (docs/PROTOCOL.md §21), replacing the date's older one: a
    /// restart, or a mirror purged by a forged rollup, never loses Sunday's list. `load` returns
    /// every kept list in `state.clubDates`. `version`: the state's version the list makes (each
    /// new list is a new version, docs/PROTOCOL.md §21.3), stored in the same transaction; a
    /// version not above the stored one is refused, as a commit's is, and nothing is written.
    func keepClubList(_ list: ClubDateList, version: Int) throws
    /// A final rejection for (organiser, commandID), so a resent id is answered the same way.
    func recordReply(_ reply: StoredReply, organiser: String, commandID: String) throws
    /// Every kept answer, in the order they were given (the Coordinator holds them in memory, so
    /// a resent id is answered without a read).
    func keptReplies() throws -> [KeptReply]
    /// Entries with version > `version`, oldest first (arbitration for a `base` older than the in-memory window).
    func journal(after version: Int) throws -> [JournalEntry]
    /// Deletes all but the newest `journalKept` journal entries and each organiser's newest
    /// `repliesPerOrganiser` replies.
    func prune(journalKept: Int, repliesPerOrganiser: Int) throws
    /// Every finished gather, newest first (exports). Callable from any thread while the coordinator writes.
    func allHistory() throws -> [HistoryEntry]
    /// One finished gather, whatever its age (a correction to a match played long ago); nil if not stored.
    func historyEntry(id: String) throws -> HistoryEntry?
    /// Every tournament kept, newest first, and whether it was cancelled; the same threading as `allHistory`.
    func allTournaments() throws -> [(tournament: Tournament, cancelled: Bool)]

    // MARK: Accounts

    /// false if taken (case-insensitively).
    func insertOrganiser(username: String, passwordHash: String, at: Int64) throws -> Bool
    /// Case-insensitive lookup.
    func organiser(username: String) throws -> StoredOrganiser?
    func insertSession(tokenHash: String, username: String, at: Int64) throws
    /// The username for a token hash last used at or after `usedSince`; touches last-used to `now`.
    /// Expired rows may be deleted.
    func sessionUsername(tokenHash: String, usedSince: Int64, now: Int64) throws -> String?
    func deleteSession(tokenHash: String) throws

    // MARK: Accounts of a real group

    /// Every account not removed, oldest first, with its live sessions (used at or after `usedSince`).
    func organisers(sessionsUsedSince usedSince: Int64) throws -> [StoredOrganiser]
    /// The kept invite code; nil before the first start with accounts.
    func inviteCode() throws -> String?
    func setInviteCode(_ code: String) throws
    /// Ends the account (a tombstone keeps its name taken) and all its sessions; never the owner.
    func removeOrganiser(username: String, at: Int64) throws -> AccountChange
    /// `username` becomes the owner, the owner before an organiser, in one transaction.
    func makeOwner(username: String) throws -> AccountChange
    /// A new password hash; ends every session of the account except `keeping` (a token hash).
    func setPassword(username: String, passwordHash: String, keeping tokenHash: String?) throws -> AccountChange
    /// Ends every session of the account.
    func deleteSessions(username: String) throws -> Int
    func touchLastSeen(username: String, at: Int64) throws
    /// Journal entries with version < `before` (all when nil), newest first, at most `limit`.
    func activity(before: Int?, limit: Int) throws -> [JournalEntry]

    // MARK: Referee links (docs/PROTOCOL.md §20)

    /// Every link kept, expired ones included, oldest first.
    func refereeLinks() throws -> [StoredRefereeLink]
    /// A new link kept under its code's hash; returns its id (never reused).
    func insertRefereeLink(codeHash: String, pitch: Int, label: String, createdBy: String, at: Int64,
                           expiresAt: Int64) throws -> Int
    /// Ends links and every session they opened, in one transaction.
    func deleteRefereeLinks(_ ids: [Int]) throws
    /// Every referee session: its token's hash and its link.
    func refereeSessions() throws -> [(tokenHash: String, link: Int)]
    func insertRefereeSession(tokenHash: String, link: Int, at: Int64) throws
    func deleteRefereeSession(tokenHash: String) throws

    /// A consistent copy while the server runs (SQLite online backup through GRDB's `backup(to:)`).
    func backup(toPath path: String) throws
}

extension GatherStore {
    /// A change that corrects no entry older than the state's recent list (nearly all of them),
    /// its reply, if any, kept under the entry's organiser.
    public func commit(before: GatherState, after: GatherState, entry: JournalEntry) throws {
        try commit(before: before, after: after, entry: entry, amendedHistory: [], replyKey: nil)
    }

    public func commit(before: GatherState, after: GatherState, entry: JournalEntry, amendedHistory: [HistoryEntry]) throws {
        try commit(before: before, after: after, entry: entry, amendedHistory: amendedHistory, replyKey: nil)
    }

    public func commit(before: GatherState, after: GatherState, entry: JournalEntry, replyKey: String?) throws {
        try commit(before: before, after: after, entry: entry, amendedHistory: [], replyKey: replyKey)
    }
}

/// A failure worth one clear sentence to the person running the server.
public struct StoreError: Error, CustomStringConvertible, Equatable {
    /// What kind of failure, where the caller answers some differently.
    public enum Kind: Sendable, Equatable {
        case other
        /// The disk (or the database's size limit) is full: nothing was written.
        case full
    }

    public let description: String
    public let kind: Kind

    public init(_ description: String, kind: Kind = .other) {
        self.description = description
        self.kind = kind
    }
}
