import Foundation
import GatherModel
import GatherStore
import Synchronization

/// Test support: the real `SQLiteStore` with one switch, so a test can make the writes the match
/// depends on fail the way a broken disk would (before anything is written), then clear the fault
/// and see what a retry does. Everything else goes straight to the real store.
final class FaultInjectingStore: GatherStore {
    let real: SQLiteStore
    private let fault = Mutex<(any Error)?>(nil)
    private let commits = Mutex(0)

    init(_ real: SQLiteStore) { self.real = real }

    /// From now on `commit` and `recordReply` throw `error` without touching the database; nil heals.
    func failWrites(with error: (any Error)?) { fault.withLock { $0 = error } }
    /// Commits that reached the real store.
    var committed: Int { commits.withLock { $0 } }

    private func check() throws {
        if let error = fault.withLock({ $0 }) { throw error }
    }

    func load() throws -> LoadedState { try real.load() }
    func commit(before: GatherState, after: GatherState, entry: JournalEntry, amendedHistory: [HistoryEntry],
                replyKey: String?) throws {
        try check()
        try real.commit(before: before, after: after, entry: entry, amendedHistory: amendedHistory, replyKey: replyKey)
        commits.withLock { $0 += 1 }
    }
    func keepClubList(_ list: ClubDateList, version: Int) throws {
        try check()
        try real.keepClubList(list, version: version)
    }
    func recordReply(_ reply: StoredReply, organiser: String, commandID: String) throws {
        try check()
        try real.recordReply(reply, organiser: organiser, commandID: commandID)
    }
    func keptReplies() throws -> [KeptReply] { try real.keptReplies() }
    func journal(after version: Int) throws -> [JournalEntry] { try real.journal(after: version) }
    func prune(journalKept: Int, repliesPerOrganiser: Int) throws {
        try real.prune(journalKept: journalKept, repliesPerOrganiser: repliesPerOrganiser)
    }
    func allHistory() throws -> [HistoryEntry] { try real.allHistory() }
    func historyEntry(id: String) throws -> HistoryEntry? { try real.historyEntry(id: id) }
    func allTournaments() throws -> [(tournament: Tournament, cancelled: Bool)] { try real.allTournaments() }
    func insertOrganiser(username: String, passwordHash: String, at: Int64) throws -> Bool {
        try real.insertOrganiser(username: username, passwordHash: passwordHash, at: at)
    }
    func organiser(username: String) throws -> StoredOrganiser? { try real.organiser(username: username) }
    func insertSession(tokenHash: String, username: String, at: Int64) throws {
        try real.insertSession(tokenHash: tokenHash, username: username, at: at)
    }
    func sessionUsername(tokenHash: String, usedSince: Int64, now: Int64) throws -> String? {
        try real.sessionUsername(tokenHash: tokenHash, usedSince: usedSince, now: now)
    }
    func deleteSession(tokenHash: String) throws { try real.deleteSession(tokenHash: tokenHash) }
    func organisers(sessionsUsedSince usedSince: Int64) throws -> [StoredOrganiser] {
        try real.organisers(sessionsUsedSince: usedSince)
    }
    func refereeLinks() throws -> [StoredRefereeLink] { try real.refereeLinks() }
    func insertRefereeLink(codeHash: String, pitch: Int, label: String, createdBy: String, at: Int64,
                           expiresAt: Int64) throws -> Int {
        try check()
        return try real.insertRefereeLink(codeHash: codeHash, pitch: pitch, label: label, createdBy: createdBy, at: at,
                                          expiresAt: expiresAt)
    }
    func deleteRefereeLinks(_ ids: [Int]) throws { try real.deleteRefereeLinks(ids) }
    func refereeSessions() throws -> [(tokenHash: String, link: Int)] { try real.refereeSessions() }
    func insertRefereeSession(tokenHash: String, link: Int, at: Int64) throws {
        try real.insertRefereeSession(tokenHash: tokenHash, link: link, at: at)
    }
    func deleteRefereeSession(tokenHash: String) throws { try real.deleteRefereeSession(tokenHash: tokenHash) }
    func inviteCode() throws -> String? { try real.inviteCode() }
    func setInviteCode(_ code: String) throws { try real.setInviteCode(code) }
    func removeOrganiser(username: String, at: Int64) throws -> AccountChange {
        try real.removeOrganiser(username: username, at: at)
    }
    func makeOwner(username: String) throws -> AccountChange { try real.makeOwner(username: username) }
    func setPassword(username: String, passwordHash: String, keeping tokenHash: String?) throws -> AccountChange {
        try real.setPassword(username: username, passwordHash: passwordHash, keeping: tokenHash)
    }
    func deleteSessions(username: String) throws -> Int { try real.deleteSessions(username: username) }
    func touchLastSeen(username: String, at: Int64) throws { try real.touchLastSeen(username: username, at: at) }
    func activity(before: Int?, limit: Int) throws -> [JournalEntry] { try real.activity(before: before, limit: limit) }
    func backup(toPath path: String) throws { try real.backup(toPath: path) }
}
