import ClubModel
import ClubStore
import GatherModel

/// Sunday's list for the venue (docs/PROTOCOL.md §21): each date's list as the club publishes it
/// on NATS. The `seq` is allocated in the database under the date's row lock, as
/// `max(last + 1, club clock ms)`, so several instances (or a restored database) never publish
/// a lower one than was published before.
extension ClubService {
    /// Ids of the dates to publish at the club's `now`: `startsAt < now + 7 days` and
    /// `now < startsAt + durationMinutes`.
    public func publishableDateIds() throws -> [String] {
        try store.read { transaction in
            let now = try transaction.now()
            return try transaction.dates(from: now, to: now + 7 * 86_400_000).map(\.id)
        }
    }

    /// The date's list with its next `seq` (allocated and committed), or nil when the date is
    /// gone or outside the window. `club` is the stream's club name (`--club`).
    public func nextClubList(date id: String, club: String) throws -> ClubDateList? {
        try store.change { transaction in
            guard let date = try transaction.lockDate(id: id) else { return nil }
            let now = try transaction.now()
            let fixture = try transaction.fixture(id: date.fixtureId)
            var list = Self.clubList(date, fixture: fixture, answers: try transaction.answers(date: id),
                                     members: try transaction.members(), club: club, seq: 1)
            guard list.isInWindow(now: now), let seq = try transaction.nextPublishSeq(date: id, now: now)
            else { return nil }
            list.seq = seq
            return list
        }
    }

    /// The `seq` last allocated for the date (0: never published; nil: no such date).
    public func publishedSeq(date id: String) throws -> Int64? {
        try store.read { try $0.publishSeq(date: id) }
    }

    /// A pure rendering of the date's answers as the list's three parts: confirmed in judged
    /// order, waiting in the waitlist's order with positions, offered with their expiry.
    static func clubList(_ date: ClubDate, fixture: Fixture?, answers: [Answer], members: [Member], club: String,
                         seq: Int64) -> ClubDateList {
        let names = Dictionary(members.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let positions = Waitlist.positions(answers)
        func entry(_ answer: Answer) -> ClubDateList.Entry {
            ClubDateList.Entry(memberId: answer.memberId, name: names[answer.memberId] ?? "?", guests: answer.guests)
        }
        return ClubDateList(
            club: club, date: date.id, startsAt: date.startsAt, durationMinutes: date.durationMinutes,
            title: fixture?.title ?? "", place: fixture?.place ?? "", status: date.status.rawValue, seq: seq,
            confirmed: answers.filter { $0.state == .confirmed }.map(entry),
            waiting: ClubViews.ordered(answers).map { answer in
                var line = entry(answer)
                line.position = positions[answer.memberId]
                return line
            },
            offered: answers.filter { $0.state == .offered }.map { answer in
                var line = entry(answer)
                line.offerExpiresAt = answer.offerExpiresAt
                return line
            })
    }
}
