import ClubModel
import ClubStore

/// Back from the pitch: a venue's verified result for one of the club's dates, applied once
/// (PROTOCOL.md "Sunday's list on the laptop, and back"). The date becomes `played`; each answer
/// gets `attended` (the member was on Team A or B at the end); confirmed members who did not
/// play are no-shows, counted over the last 56 days beside their name.
extension ClubService {
    /// A finished gather as the club needs it, read and verified by the caller (the venue's key).
    public struct PitchResult: Equatable, Sendable {
        /// The venue's history entry id: what makes it once.
        public var id: String
        public var venue: String
        public var dateId: String
        public var endedAt: Millis
        /// Members who played (a player with their `memberId` in Team A or B at the end).
        public var played: Set<String>

        public init(id: String, venue: String, dateId: String, endedAt: Millis, played: Set<String>) {
            self.id = id
            self.venue = venue
            self.dateId = dateId
            self.endedAt = endedAt
            self.played = played
        }
    }

    public enum PitchResultOutcome: Equatable, Sendable {
        case applied(noShows: [String])
        /// Recorded before, by this instance or another.
        case alreadyApplied
        case ignored(reason: String)
    }

    /// The no-show window (PROTOCOL settled 8): played dates whose start is within this of now.
    public static let noShowWindowMs: Millis = 56 * 86_400_000

    /// One transaction: the date's row locked, the result's id recorded (a second time finds it
    /// and changes nothing), the rule applied, the pages of every instance told.
    public func applyPitchResult(_ result: PitchResult) throws -> PitchResultOutcome {
        guard result.played.count <= 400 else { return .ignored(reason: "more than 400 members played") }
        return try store.change { transaction in
            let date = try transaction.lockDate(id: result.dateId)
            let now = try transaction.now()
            guard let date else {
                let fresh = try transaction.recordResult(id: result.id, venue: result.venue, dateId: result.dateId,
                                                         endedAt: result.endedAt, record: .ignored,
                                                         reason: "not a date of this club", now: now)
                return fresh ? .ignored(reason: "not a date of this club") : .alreadyApplied
            }
            let answers = try transaction.answers(date: date.id)
            let outcome: WaitlistResult
            do {
                outcome = try Waitlist.played(date: date, answers: answers, attended: result.played, now: now)
            } catch {
                let reason = "the date is \(date.status.rawValue)"
                let fresh = try transaction.recordResult(id: result.id, venue: result.venue, dateId: date.id,
                                                         endedAt: result.endedAt, record: .ignored, reason: reason, now: now)
                return fresh ? .ignored(reason: reason) : .alreadyApplied
            }
            guard try transaction.recordResult(id: result.id, venue: result.venue, dateId: date.id, endedAt: result.endedAt,
                                               record: .applied, now: now)
            else { return .alreadyApplied }
            try save(outcome, transaction)
            // Members' no-show counts changed: the organisers' members list reads again.
            try transaction.notifyClubChanged()
            let noShows = outcome.events.flatMap { event -> [String] in
                if case .played(let noShows) = event { return noShows }
                return []
            }
            return .applied(noShows: noShows)
        }
    }

    /// Each member's no-shows over the last 56 days of the club's clock: played dates that started
    /// at most 56 days ago (one played before its start, the venue's clock ahead of the club's,
    /// counts at once rather than later).
    func noShows(_ transaction: ClubTransaction, now: Millis) throws -> [String: Int] {
        try transaction.noShows(from: now - Self.noShowWindowMs, to: .max)
    }
}
