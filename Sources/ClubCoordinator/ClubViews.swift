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
            "confirmedSeats": .int(Waitlist.confirmedSeats(answers)), "waiting": .int(Waitlist.waitingCount(answers)),
        ]
    }

    /// `GET /club/api/dates/DID`: the summary, every answer with its position, who has not
    /// answered (active members only), the group-chat message and the date's mail.
    static func organiserDate(_ date: ClubDate, fixture: Fixture?, answers: [Answer], members: [Member],
                              message: String, mail: [MailRecord]) -> JSONValue {
        var fields = dateSummary(date, fixture: fixture, answers: answers)
        let names = Dictionary(members.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let positions = Waitlist.positions(answers)
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
        fields["notAnswered"] = .array(Waitlist.notAnswered(members, answers: answers).map { .string($0) })
        fields["message"] = .string(message)
        fields["mail"] = .array(mail.map { record in
            [
                "memberId": .string(record.key.memberId), "kind": .string(record.key.kind.rawValue),
                "slot": .int(record.key.slot), "state": .string(record.state.shown), "at": .int(Int(record.at)),
            ]
        })
        return .object(fields)
    }

    /// One date as a member sees it.
    static func memberDate(_ date: ClubDate, fixture: Fixture?, answers: [Answer], members: [Member],
                           memberId: String) -> JSONValue {
        var fields = dateSummary(date, fixture: fixture, answers: answers)
        fields["fixtureId"] = nil
        let names = Dictionary(members.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let positions = Waitlist.positions(answers)
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
        fields["waitingList"] = .array(ordered(answers).map {
            ["name": .string(names[$0.memberId] ?? ""), "guests": .int($0.guests), "position": .int(positions[$0.memberId] ?? 0)]
        })
        return .object(fields)
    }

    /// Waiting answers in the waitlist's order (the model's: `answeredAt`, then judged order).
    static func ordered(_ answers: [Answer]) -> [Answer] {
        Waitlist.waitlistOrder(answers).map { answers[$0] }
    }

}
