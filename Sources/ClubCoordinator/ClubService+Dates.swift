import ClubModel
import ClubStore
import Foundation
import GatherModel

/// Dates: what organisers read and change, and what members answer. Every change locks the
/// date's row first (`SELECT … FOR UPDATE`), then reads the clock, so two instances judging the
/// last seat at once are put in one order, and the answers' `answeredAt` follows it.
extension ClubService {
    enum MemberAction {
        case answer, claim, pass
    }

    func dateView(_ dateId: String, _ request: ClubRequest) throws -> ClubResponse {
        try store.read { transaction in
            _ = try organiser(request, in: transaction)
            guard let date = try transaction.date(id: dateId) else { throw Refusal(.notFound) }
            return try organiserDateResponse(date, transaction, request)
        }
    }

    func changeDate(_ dateId: String, _ request: ClubRequest) throws -> ClubResponse {
        let body = try ClubBody(request.body)
        let id = try body.id()
        let draft = try body.draft(DatePatchDraft.self)
        return try organiserChange(request, id: id) { [self] transaction, _ in
            guard let date = try transaction.lockDate(id: dateId) else { throw Refusal(.notFound) }
            let result = try Waitlist.patchDate(date, startsAt: draft.startsAt, capacity: draft.capacity,
                                                answers: try transaction.answers(date: date.id), now: try transaction.now())
            return try commit(result, transaction, request)
        }
    }

    func answerFor(_ dateId: String, _ request: ClubRequest) throws -> ClubResponse {
        let body = try ClubBody(request.body)
        let id = try body.id()
        let draft = try body.draft(AnswerDraft.self)
        guard let memberId = draft.memberId else { throw Refusal.invalid("memberId", "missing") }
        let choice = try ClubInput.answerChoice(draft.answer)
        let guests = try ClubInput.guests(draft.guests ?? 0)
        return try organiserChange(request, id: id) { [self] transaction, _ in
            guard try transaction.member(id: memberId) != nil else { throw Refusal(.notFound, ["field": "memberId"]) }
            guard let date = try transaction.lockDate(id: dateId) else { throw Refusal(.notFound) }
            let result = try Waitlist.answer(choice, guests: guests, memberId: memberId, by: .organiser, date: date,
                                             answers: try transaction.answers(date: date.id), now: try transaction.now())
            return try commit(result, transaction, request)
        }
    }

    func cancelDate(_ dateId: String, _ request: ClubRequest) throws -> ClubResponse {
        let id = try ClubBody(request.body).id()
        return try organiserChange(request, id: id) { [self] transaction, _ in
            guard let date = try transaction.lockDate(id: dateId) else { throw Refusal(.notFound) }
            let result = try Waitlist.cancel(date: date, answers: try transaction.answers(date: date.id),
                                             now: try transaction.now())
            return try commit(result, transaction, request)
        }
    }

    // MARK: - Members

    func memberView(_ token: String, _ request: ClubRequest) throws -> ClubResponse {
        try store.change { transaction in
            guard let member = try transaction.member(tokenHash: MemberLinks.hash(token: token)) else { throw Refusal(.notFound) }
            let settings = try settings(transaction)
            let now = try transaction.now()
            try ensureDates(transaction, settings: settings, now: now)
            let fixtures = try transaction.fixtures()
            let members = try transaction.members()
            let dates = try transaction.dates(from: now, to: now + Schedule.windowMillis)
            let answers = try transaction.answers(dates: dates.map(\.id))
            return .json(200, [
                "member": ["id": .string(member.id), "name": .string(member.name)],
                "club": ["name": .string(settings.name), "timeZone": .string(settings.timeZone)],
                "now": .int(Int(now)),
                "dates": .array(dates.map { date in
                    ClubViews.memberDate(date, fixture: fixtures.first { $0.id == date.fixtureId },
                                         answers: answers[date.id] ?? [], members: members, memberId: member.id)
                }),
            ])
        }
    }

    func memberChange(_ token: String, _ request: ClubRequest, _ action: MemberAction) throws -> ClubResponse {
        let body = try ClubBody(request.body)
        let id = try body.id()
        let dateId = try body.requiredString("date", maxBytes: 64)
        var answer: (AnswerChoice, Int)?
        if action == .answer {
            let draft = try body.draft(AnswerDraft.self)
            answer = (try ClubInput.answerChoice(draft.answer), try ClubInput.guests(draft.guests ?? 0))
        }
        let chosen = answer
        let memberId: String = try store.read { transaction in
            guard let member = try transaction.member(tokenHash: MemberLinks.hash(token: token)) else { throw Refusal(.notFound) }
            return member.id
        }
        return try once(scope: "member:\(memberId)", id: id, language: request.language) { transaction in
            // The link may have been replaced meanwhile: it must still be this member's.
            guard try transaction.member(tokenHash: MemberLinks.hash(token: token))?.id == memberId else {
                throw Refusal(.notFound)
            }
            guard let date = try transaction.lockDate(id: dateId) else { throw Refusal(.notFound, ["field": "date"]) }
            let now = try transaction.now()
            let answers = try transaction.answers(date: date.id)
            let result: WaitlistResult
            switch action {
            case .answer:
                let (choice, guests) = chosen!
                result = try Waitlist.answer(choice, guests: guests, memberId: memberId, by: .member, date: date,
                                             answers: answers, now: now)
            case .claim: result = try Waitlist.claim(memberId: memberId, date: date, answers: answers, now: now)
            case .pass: result = try Waitlist.pass(memberId: memberId, date: date, answers: answers, now: now)
            }
            try save(result, transaction)
            let fixture = try transaction.fixture(id: date.fixtureId)
            return .json(200, ["date": ClubViews.memberDate(result.date, fixture: fixture, answers: result.answers,
                                                            members: try transaction.members(), memberId: memberId)])
        }
    }

    // MARK: - Shared steps

    /// Writes what a rule decided (the date when it changed, its answers), claims the mail its
    /// events ask for, and tells every instance.
    func save(_ result: WaitlistResult, _ transaction: ClubTransaction) throws {
        try transaction.saveDate(result.date)
        try transaction.saveAnswers(date: result.date.id, result.answers)
        try claimMail(for: result, transaction)
        try transaction.notify(dateIds: [result.date.id])
    }

    /// `save`, then `{date}`: the organisers' view of the date (Precision 1).
    func commit(_ result: WaitlistResult, _ transaction: ClubTransaction, _ request: ClubRequest) throws -> ClubResponse {
        try save(result, transaction)
        return .json(200, ["date": try organiserDate(result.date, transaction, request)])
    }

    func organiserDateResponse(_ date: ClubDate, _ transaction: ClubTransaction, _ request: ClubRequest) throws -> ClubResponse {
        .json(200, try organiserDate(date, transaction, request))
    }

    /// `GET /club/api/dates/DID`'s body.
    func organiserDate(_ date: ClubDate, _ transaction: ClubTransaction, _ request: ClubRequest) throws -> JSONValue {
        let settings = try settings(transaction)
        let fixture = try transaction.fixture(id: date.fixtureId)
        let answers = try transaction.answers(date: date.id)
        let members = try transaction.members()
        let message = ClubMessages.groupChat(
            title: fixture?.title ?? settings.name, place: fixture?.place ?? "", startsAt: date.startsAt,
            confirmedSeats: Waitlist.confirmedSeats(answers), capacity: date.capacity, waiting: Waitlist.waitingCount(answers),
            link: "\(publicBase(request))/club/", club: ClubTime(timeZone: try ClubInput.timeZone(settings.timeZone)),
            language: request.language)
        return ClubViews.organiserDate(date, fixture: fixture, answers: answers, members: members, message: message,
                                       mail: try transaction.mail(date: date.id))
    }
}
