import ClubModel
import Foundation
import GatherModel

/// Dates: what organisers read and change, and what members answer. Every change locks the
/// date's row first (`SELECT … FOR UPDATE`), then reads the clock, so two instances judging the
/// last seat at once are put in one order, and the answer's `answeredAt` follows it.
extension ClubService {
    enum MemberAction {
        case answer, claim, pass
    }

    func dateView(_ dateId: String, _ request: ClubRequest) throws -> ClubResponse {
        try database.change { transaction in
            _ = try organiser(request, in: transaction)
            guard let date = try transaction.lockDate(id: dateId) else { throw Refusal(.notFound) }
            return try organiserDateResponse(date, transaction, request)
        }
    }

    func changeDate(_ dateId: String, _ request: ClubRequest) throws -> ClubResponse {
        let body = try ClubBody(request.body)
        let id = try body.id()
        let startsAt = try body.int("startsAt")
        let capacity = try body.int("capacity")
        return try organiserChange(request, id: id) { [self] transaction, _ in
            guard var date = try transaction.lockDate(id: dateId) else { throw Refusal(.notFound) }
            guard date.status == .scheduled else { throw Refusal(.closed) }
            let now = try transaction.now()
            let fixture = try transaction.fixtures().first { $0.id == date.fixtureId }
            var answers = try transaction.answers(date: date.id)
            if let startsAt {
                guard startsAt > Int(now), let fixture else { throw Refusal.invalid("startsAt") }
                date = Rules.moved(date, startsAt: Millis(startsAt), fixture: fixture)
            }
            if let capacity {
                guard (2...60).contains(capacity) else { throw Refusal.invalid("capacity") }
                date.capacity = capacity
                answers = Rules.capacityChanged(date: date, answers: answers, now: now)
            }
            date.changedAlone = true
            try transaction.updateDate(date)
            try transaction.saveAnswers(date: date.id, answers)
            try transaction.notifyChanged(dates: [date.id])
            return try organiserDateResponse(date, transaction, request)
        }
    }

    func answerFor(_ dateId: String, _ request: ClubRequest) throws -> ClubResponse {
        let body = try ClubBody(request.body)
        let id = try body.id()
        let memberId = try body.requiredString("memberId", maxBytes: 64)
        let (choice, guests) = try Self.answerFields(body)
        return try organiserChange(request, id: id) { [self] transaction, _ in
            guard try transaction.member(id: memberId) != nil else { throw Refusal(.notFound, ["field": "memberId"]) }
            guard let date = try transaction.lockDate(id: dateId) else { throw Refusal(.notFound) }
            let now = try transaction.now()
            let answers = try transaction.answers(date: date.id)
            let next = try Rules.answer(memberId: memberId, choice: choice, guests: guests, date: date, answers: answers,
                                        now: now, byOrganiser: true)
            try transaction.saveAnswers(date: date.id, next)
            try transaction.notifyChanged(dates: [date.id])
            return try organiserDateResponse(date, transaction, request)
        }
    }

    func cancelDate(_ dateId: String, _ request: ClubRequest) throws -> ClubResponse {
        let id = try ClubBody(request.body).id()
        return try organiserChange(request, id: id) { [self] transaction, _ in
            guard var date = try transaction.lockDate(id: dateId) else { throw Refusal(.notFound) }
            guard date.status == .scheduled else { throw Refusal(.closed) }
            date.status = .cancelled
            try transaction.updateDate(date)
            try transaction.notifyChanged(dates: [date.id])
            return try organiserDateResponse(date, transaction, request)
        }
    }

    // MARK: - Members

    func memberView(_ token: String, _ request: ClubRequest) throws -> ClubResponse {
        try database.change { transaction in
            guard let record = try transaction.member(tokenHash: MemberLinks.hash(token: token)) else { throw Refusal(.notFound) }
            let settings = try transaction.settings()
            let now = try transaction.now()
            try ensureDates(transaction, settings: settings, now: now)
            let fixtures = try transaction.fixtures()
            let members = try transaction.members().map(\.member)
            let dates = try transaction.dates(notEndedBy: now).filter { $0.startsAt < now + ClubSchedule.windowMs }
            return .json(200, [
                "member": ["id": .string(record.member.id), "name": .string(record.member.name)],
                "club": ["name": .string(settings.name), "timeZone": .string(settings.timeZone)],
                "now": .int(Int(now)),
                "dates": .array(try dates.map { date in
                    ClubViews.memberDate(date, fixture: fixtures.first { $0.id == date.fixtureId },
                                         answers: try transaction.answers(date: date.id), members: members,
                                         memberId: record.member.id)
                }),
            ])
        }
    }

    func memberChange(_ token: String, _ request: ClubRequest, _ action: MemberAction) throws -> ClubResponse {
        let body = try ClubBody(request.body)
        let id = try body.id()
        let dateId = try body.requiredString("date", maxBytes: 64)
        let fields: (AnswerChoice, Int)? = action == .answer ? try Self.answerFields(body) : nil
        let memberId: String = try database.change { transaction in
            guard let record = try transaction.member(tokenHash: MemberLinks.hash(token: token)) else { throw Refusal(.notFound) }
            return record.member.id
        }
        return try once(scope: "member:\(memberId)", id: id, language: request.language) { transaction in
            // The link may have been replaced meanwhile: it must still be this member's.
            guard try transaction.member(tokenHash: MemberLinks.hash(token: token))?.member.id == memberId else {
                throw Refusal(.notFound)
            }
            guard let date = try transaction.lockDate(id: dateId) else { throw Refusal(.notFound, ["field": "date"]) }
            let now = try transaction.now()
            let answers = try transaction.answers(date: date.id)
            let next: [Answer]
            switch action {
            case .answer:
                let (choice, guests) = fields!
                next = try Rules.answer(memberId: memberId, choice: choice, guests: guests, date: date, answers: answers,
                                        now: now, byOrganiser: false)
            case .claim: next = try Rules.claim(memberId: memberId, date: date, answers: answers, now: now)
            case .pass: next = try Rules.pass(memberId: memberId, date: date, answers: answers, now: now)
            }
            try transaction.saveAnswers(date: date.id, next)
            try transaction.notifyChanged(dates: [date.id])
            let fixture = try transaction.fixtures().first { $0.id == date.fixtureId }
            let members = try transaction.members().map(\.member)
            return .json(200, ["date": ClubViews.memberDate(date, fixture: fixture, answers: next, members: members,
                                                            memberId: memberId)])
        }
    }

    // MARK: - Shared steps

    static func answerFields(_ body: ClubBody) throws(Refusal) -> (AnswerChoice, Int) {
        guard let raw = body.string("answer"), let choice = AnswerChoice(rawValue: raw) else { throw Refusal.invalid("answer") }
        let guests = try body.int("guests") ?? 0
        guard (0...3).contains(guests) else { throw Refusal.invalid("guests") }
        return (choice, guests)
    }

    func organiserDateResponse(_ date: ClubDate, _ transaction: any ClubTransaction, _ request: ClubRequest) throws -> ClubResponse {
        let settings = try transaction.settings()
        let fixture = try transaction.fixtures().first { $0.id == date.fixtureId }
        let answers = try transaction.answers(date: date.id)
        let members = try transaction.members().map(\.member)
        let confirmedSeats = answers.filter { $0.state == .confirmed }.reduce(0) { $0 + $1.seats }
        let message = Rules.groupChatMessage(date: date, fixture: fixture, confirmedSeats: confirmedSeats,
                                             waiting: answers.filter { $0.state == .waiting }.count,
                                             link: "\(publicBase(request))/club/", timeZone: settings.timeZone,
                                             language: request.language)
        return .json(200, ClubViews.organiserDate(date, fixture: fixture, answers: answers, members: members, message: message))
    }
}
