import ClubModel
import GatherModel

/// The JSON each audience reads (the contract's "The API"): pure functions of the values.
/// Organisers see everything of the club; a member sees their own answer and the names of those
/// in and waiting, never another member's link, email or answer history.
enum ClubViews {
    static func fixture(_ fixture: Fixture) -> JSONValue {
        [
            "id": .string(fixture.id), "title": .string(fixture.title), "weekday": .int(fixture.weekday),
            "time": .string(fixture.time.description), "durationMinutes": .int(fixture.durationMinutes),
            "place": .string(fixture.place), "capacity": .int(fixture.capacity),
            "opensHoursBefore": .int(fixture.opensHoursBefore), "closesMinutesBefore": .int(fixture.closesMinutesBefore),
            "claimHours": .int(fixture.claimHours), "lastMinuteHours": .int(fixture.lastMinuteHours),
            "reminderHoursBefore": .array(fixture.reminderHoursBefore.map { .int($0) }), "active": .bool(fixture.active),
        ]
    }

    static func member(_ member: Member, link: String?, noShows: Int? = nil) -> JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(member.id), "name": .string(member.name), "active": .bool(member.active),
            "email": member.email.map(JSONValue.string) ?? .null, "language": member.language.map(JSONValue.string) ?? .null,
        ]
        if let link { fields["link"] = .string(link) }
        if let noShows { fields["noShows"] = .int(noShows) }
        return .object(fields)
    }

    /// A date as organisers list it (Precision 4), without the answer lists.
    static func dateSummary(_ date: ClubDate, fixture: Fixture?, answers: [Answer]) -> [String: JSONValue] {
        [
            "id": .string(date.id), "fixtureId": .string(date.fixtureId), "title": .string(fixture?.title ?? ""),
            "place": .string(fixture?.place ?? ""), "startsAt": .int(Int(date.startsAt)), "opensAt": .int(Int(date.opensAt)),
            "closesAt": .int(Int(date.closesAt)), "durationMinutes": .int(date.durationMinutes),
            "capacity": .int(date.capacity), "status": .string(date.status.rawValue),
            "confirmedSeats": .int(answers.filter { $0.state == .confirmed }.reduce(0) { $0 + $1.seats }),
            "waiting": .int(answers.filter { $0.state == .waiting }.count),
        ]
    }

    /// `GET /club/api/dates/DID`: the summary, every answer with its position, who has not
    /// answered (active members only) and the group-chat message.
    static func organiserDate(_ date: ClubDate, fixture: Fixture?, answers: [Answer], members: [Member],
                              message: String) -> JSONValue {
        var fields = dateSummary(date, fixture: fixture, answers: answers)
        let names = Dictionary(members.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let positions = waitingPositions(answers)
        fields["answers"] = .array(answers.map { answer in
            var entry: [String: JSONValue] = [
                "memberId": .string(answer.memberId), "name": .string(names[answer.memberId] ?? ""),
                "answer": .string(answer.answer.rawValue), "guests": .int(answer.guests),
                "state": .string(answer.state.rawValue), "answeredAt": .int(Int(answer.answeredAt)),
            ]
            if let position = positions[answer.memberId] { entry["position"] = .int(position) }
            if let expiry = answer.offerExpiresAt, answer.state == .offered { entry["offerExpiresAt"] = .int(Int(expiry)) }
            if let attended = answer.attended { entry["attended"] = .bool(attended) }
            return .object(entry)
        })
        let answered = Set(answers.map(\.memberId))
        fields["notAnswered"] = .array(members.filter { $0.active && !answered.contains($0.id) }.map { .string($0.id) })
        fields["message"] = .string(message)
        return .object(fields)
    }

    /// One date as a member sees it.
    static func memberDate(_ date: ClubDate, fixture: Fixture?, answers: [Answer], members: [Member],
                           memberId: String) -> JSONValue {
        var fields = dateSummary(date, fixture: fixture, answers: answers)
        fields["fixtureId"] = nil
        let names = Dictionary(members.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let positions = waitingPositions(answers)
        if let mine = answers.first(where: { $0.memberId == memberId }) {
            var entry: [String: JSONValue] = [
                "answer": .string(mine.answer.rawValue), "guests": .int(mine.guests), "state": .string(mine.state.rawValue),
            ]
            if let position = positions[memberId] { entry["position"] = .int(position) }
            if let expiry = mine.offerExpiresAt, mine.state == .offered { entry["offerExpiresAt"] = .int(Int(expiry)) }
            fields["mine"] = .object(entry)
        } else {
            fields["mine"] = .null
        }
        fields["confirmed"] = .array(answers.filter { $0.state == .confirmed }.map {
            ["name": .string(names[$0.memberId] ?? ""), "guests": .int($0.guests)]
        })
        fields["waitingList"] = .array(ordered(answers.filter { $0.state == .waiting }).map {
            ["name": .string(names[$0.memberId] ?? ""), "guests": .int($0.guests), "position": .int(positions[$0.memberId] ?? 0)]
        })
        return .object(fields)
    }

    /// Waiting answers in `answeredAt` order; equal times keep the order they were judged in
    /// (the stored order), so a stable sort.
    static func ordered(_ answers: [Answer]) -> [Answer] {
        answers.enumerated().sorted { ($0.element.answeredAt, $0.offset) < ($1.element.answeredAt, $1.offset) }.map(\.element)
    }

    /// 1-based positions of the waiting answers.
    static func waitingPositions(_ answers: [Answer]) -> [String: Int] {
        var positions: [String: Int] = [:]
        for (index, answer) in ordered(answers.filter { $0.state == .waiting }).enumerated() {
            positions[answer.memberId] = index + 1
        }
        return positions
    }
}
