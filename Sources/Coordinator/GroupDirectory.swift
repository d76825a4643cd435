import GatherPresenters
import GatherStore

/// The group as the organisers' screens list it: the accounts with who is online, and the
/// activity list, read from the Store and worded for the wire. Reads only.
struct GroupDirectory {
    let store: GatherStore
    let environment: CoordinatorEnvironment

    /// Every account, oldest first; `online` (lower-cased usernames) are seen now.
    func organisers(online: Set<String>) throws -> [OrganiserSummary] {
        let now = environment.now()
        return try store.organisers(sessionsUsedSince: now - environment.limits.sessionIdleExpiryMs).map { account in
            let isOnline = online.contains(account.username.lowercased())
            return OrganiserSummary(username: account.username, owner: account.owner, createdAt: account.createdAt,
                                    lastSeenAt: isOnline ? now : account.lastSeenAt, online: isOnline,
                                    sessions: account.sessions)
        }
    }

    func activity(before: Int?, limit: Int) throws -> [ActivityItem] {
        try store.activity(before: before, limit: limit).map { entry in
            ActivityItem(version: entry.version, at: entry.at, organiser: entry.organiser, kind: entry.kind.rawValue,
                         pitch: entry.pitch ?? ActivitySentence.pitch(of: entry.subjects),
                         summary: entry.summary ?? ActivitySentence.fallback(kind: entry.kind.rawValue),
                         sentence: entry.sentence ?? ActivitySentence.earlier(kind: entry.kind.rawValue))
        }
    }
}
