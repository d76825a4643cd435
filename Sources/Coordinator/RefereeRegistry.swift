import GatherModel
import GatherStore

/// The referee links alive now and the sessions their phones hold, as the Store keeps them (loaded
/// once at start, then changed only after the Store has written the same change), so a `referee`
/// or `resume` reads no SQLite. Pure: every question takes `now`.
struct RefereeRegistry: Equatable {
    private(set) var links: [RefereeLink.ID: StoredRefereeLink] = [:]
    /// Each session's token hash, and its link.
    private(set) var sessions: [String: RefereeLink.ID] = [:]

    init(links: [StoredRefereeLink] = [], sessions: [(tokenHash: String, link: Int)] = []) {
        for link in links { self.links[link.link.id] = link }
        for session in sessions where self.links[session.link] != nil { self.sessions[session.tokenHash] = session.link }
    }

    /// The links organisers see, oldest first.
    var visible: [RefereeLink] { links.values.map(\.link).sorted { $0.id < $1.id } }

    var isFull: Bool { links.count >= RefereeLink.maximumCount }

    /// The live link whose code hashes to `codeHash`; nil when none, or when it is past its expiry.
    func link(codeHash: String, now: Int64) -> RefereeLink? {
        guard let found = links.values.first(where: { $0.codeHash == codeHash }), found.link.expiresAt > now else {
            return nil
        }
        return found.link
    }

    /// The live link a session token (by hash) belongs to.
    func link(tokenHash: String, now: Int64) -> RefereeLink? {
        guard let id = sessions[tokenHash], let link = links[id]?.link, link.expiresAt > now else { return nil }
        return link
    }

    func sessionCount(_ link: RefereeLink.ID) -> Int { sessions.values.count(where: { $0 == link }) }

    /// Links past their expiry, and links whose pitch is gone (the pitch was removed).
    func ended(now: Int64, pitches: Set<Pitch.ID>) -> (expired: [RefereeLink.ID], pitchGone: [RefereeLink.ID]) {
        let expired = links.values.filter { $0.link.expiresAt <= now }.map(\.link.id).sorted()
        let gone = links.values.filter { $0.link.expiresAt > now && !pitches.contains($0.link.pitch) }.map(\.link.id).sorted()
        return (expired, gone)
    }

    /// When the next link expires; nil without links.
    var nextExpiry: Int64? { links.values.map(\.link.expiresAt).min() }

    mutating func add(_ link: StoredRefereeLink) { links[link.link.id] = link }

    mutating func remove(_ ids: [RefereeLink.ID]) {
        let gone = Set(ids)
        for id in gone { links[id] = nil }
        sessions = sessions.filter { !gone.contains($0.value) }
    }

    mutating func addSession(tokenHash: String, link: RefereeLink.ID) { sessions[tokenHash] = link }

    mutating func removeSession(tokenHash: String) { sessions[tokenHash] = nil }
}
