import ClubModel
import Foundation
import GatherModel

/// The organisers' club: its settings, members and fixtures. Every change holds the locks its
/// rules read (a fixture's row, each affected date's row), and tells every instance's pages.
extension ClubService {
    static let maximumMembers = 500

    func clubView(_ request: ClubRequest) throws -> ClubResponse {
        try database.change { transaction in
            _ = try organiser(request, in: transaction)
            let settings = try transaction.settings()
            let now = try transaction.now()
            try ensureDates(transaction, settings: settings, now: now)
            let base = publicBase(request)
            let fixtures = try transaction.fixtures()
            let byId = Dictionary(fixtures.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            let dates = try transaction.dates(notEndedBy: now).filter { $0.startsAt < now + ClubSchedule.windowMs }
            let members = try transaction.members()
            return .json(200, [
                "name": .string(settings.name), "timeZone": .string(settings.timeZone), "language": .string(settings.language),
                "members": .array(members.map {
                    ClubViews.member($0.member, link: memberLink($0, secret: settings.linkSecret, base: base))
                }),
                "fixtures": .array(fixtures.map(ClubViews.fixture)),
                "dates": .array(try dates.map {
                    .object(ClubViews.dateSummary($0, fixture: byId[$0.fixtureId], answers: try transaction.answers(date: $0.id)))
                }),
            ])
        }
    }

    func changeClub(_ request: ClubRequest) throws -> ClubResponse {
        let body = try ClubBody(request.body)
        let id = try body.id()
        let name = try body.optionalString("name", maxBytes: 200)
        let zone = try body.optionalString("timeZone", maxBytes: 64)
        let language = try body.optionalString("language", maxBytes: 8)
        return try organiserChange(request, id: id) { transaction, organiser in
            guard organiser.owner else { throw Refusal(.forbidden) }
            var settings = try transaction.settings()
            if let name { settings.name = try Rules.clubName(name ?? "") }
            if let zone { settings.timeZone = try Rules.timeZone(zone ?? "").identifier }
            if let language { settings.language = try Rules.language(language ?? "") }
            try transaction.saveSettings(settings)
            try transaction.notifyChanged(dates: [])
            return .json(200, ["name": .string(settings.name), "timeZone": .string(settings.timeZone),
                               "language": .string(settings.language)])
        }
    }

    func addMember(_ request: ClubRequest) throws -> ClubResponse {
        let body = try ClubBody(request.body)
        let id = try body.id()
        let name = try Rules.memberName(try body.requiredString("name", maxBytes: 200))
        let email = try body.optionalString("email", maxBytes: 320).flatMap { $0 }.map(Rules.email)
        let language = try body.optionalString("language", maxBytes: 8).flatMap { $0 }.map(Rules.language)
        return try organiserChange(request, id: id) { transaction, _ in
            let members = try transaction.members()
            guard members.count < Self.maximumMembers else { throw Refusal(.conflict, ["max": "\(Self.maximumMembers)"]) }
            guard !members.contains(where: { $0.member.name.lowercased() == name.lowercased() }) else {
                throw Refusal(.conflict, ["field": "name"])
            }
            let settings = try transaction.settings()
            let seed = MemberLinks.newSeed()
            let token = MemberLinks.token(seed: seed, secret: settings.linkSecret)
            let record = MemberRecord(member: Member(id: Rules.newId(), name: name, email: email, language: language),
                                      linkSeed: seed, linkHash: MemberLinks.hash(token: token))
            try transaction.insertMember(record)
            try transaction.notifyChanged(dates: [])
            let link = memberLink(record, secret: settings.linkSecret, base: publicBase(request))
            return .json(200, ["member": ClubViews.member(record.member, link: link), "link": .string(link)])
        }
    }

    func changeMember(_ memberId: String, _ request: ClubRequest) throws -> ClubResponse {
        let body = try ClubBody(request.body)
        let id = try body.id()
        let name = try body.optionalString("name", maxBytes: 200).map { try Rules.memberName($0 ?? "") }
        let email = try body.optionalString("email", maxBytes: 320).map { try $0.map(Rules.email) }
        let language = try body.optionalString("language", maxBytes: 8).map { try $0.map(Rules.language) }
        let active = try body.bool("active")
        return try organiserChange(request, id: id) { transaction, _ in
            guard var record = try transaction.member(id: memberId) else { throw Refusal(.notFound) }
            if let name {
                let others = try transaction.members().filter { $0.member.id != memberId }
                guard !others.contains(where: { $0.member.name.lowercased() == name.lowercased() }) else {
                    throw Refusal(.conflict, ["field": "name"])
                }
                record.member.name = name
            }
            if let email { record.member.email = email }
            if let language { record.member.language = language }
            if let active { record.member.active = active }
            try transaction.updateMember(record)
            try transaction.notifyChanged(dates: [])
            let settings = try transaction.settings()
            return .json(200, ["member": ClubViews.member(record.member, link: memberLink(record, secret: settings.linkSecret,
                                                                                           base: publicBase(request)))])
        }
    }

    /// Frees the member's seats in every date still to come (the walk runs), then removes them.
    func removeMember(_ memberId: String, _ request: ClubRequest) throws -> ClubResponse {
        let id = try ClubBody(request.body).id()
        return try organiserChange(request, id: id) { transaction, _ in
            guard try transaction.member(id: memberId) != nil else { throw Refusal(.notFound) }
            var changed: [String] = []
            for listed in try transaction.dates(notEndedBy: try transaction.now()) {
                guard let date = try transaction.lockDate(id: listed.id) else { continue }
                let answers = try transaction.answers(date: date.id)
                guard answers.contains(where: { $0.memberId == memberId }) else { continue }
                let now = try transaction.now()
                try transaction.saveAnswers(date: date.id, Rules.memberRemoved(memberId, date: date, answers: answers, now: now))
                changed.append(date.id)
            }
            try transaction.deleteMember(id: memberId)
            try transaction.notifyChanged(dates: changed)
            return .json(200, [:])
        }
    }

    func newLink(_ memberId: String, _ request: ClubRequest) throws -> ClubResponse {
        let id = try ClubBody(request.body).id()
        return try organiserChange(request, id: id) { transaction, _ in
            guard var record = try transaction.member(id: memberId) else { throw Refusal(.notFound) }
            let settings = try transaction.settings()
            record.linkSeed = MemberLinks.newSeed()
            record.linkHash = MemberLinks.hash(token: MemberLinks.token(seed: record.linkSeed, secret: settings.linkSecret))
            try transaction.updateMember(record)
            return .json(200, ["link": .string(memberLink(record, secret: settings.linkSecret, base: publicBase(request)))])
        }
    }

    func addFixture(_ request: ClubRequest) throws -> ClubResponse {
        let body = try ClubBody(request.body)
        let id = try body.id()
        let fixture = try Rules.fixture(body.fields, id: Rules.newId(), base: nil)
        return try organiserChange(request, id: id) { transaction, _ in
            guard try transaction.fixtures().count < 20 else { throw Refusal(.conflict, ["max": "20"]) }
            try transaction.insertFixture(fixture)
            let settings = try transaction.settings()
            let added = try ensureDates(transaction, settings: settings, now: try transaction.now())
            try transaction.notifyChanged(dates: added)
            return .json(200, ["fixture": ClubViews.fixture(fixture)])
        }
    }

    /// Precision 14: the dates not yet started follow (except one changed on its own); pausing
    /// cancels them; a smaller capacity never takes a confirmed place away.
    func changeFixture(_ fixtureId: String, _ request: ClubRequest) throws -> ClubResponse {
        let body = try ClubBody(request.body)
        let id = try body.id()
        return try organiserChange(request, id: id) { transaction, _ in
            guard let old = try transaction.lockFixture(id: fixtureId) else { throw Refusal(.notFound) }
            let fixture = try Rules.fixture(body.fields, id: fixtureId, base: old)
            try transaction.updateFixture(fixture)
            let settings = try transaction.settings()
            let zone = try Rules.timeZone(settings.timeZone)
            var changed: [String] = []
            for listed in try transaction.dates(notEndedBy: try transaction.now()) where listed.fixtureId == fixtureId {
                guard let date = try transaction.lockDate(id: listed.id) else { continue }
                let now = try transaction.now()
                guard date.startsAt > now, date.status == .scheduled else { continue }
                let answers = try transaction.answers(date: date.id)
                let (moved, walked) = Rules.fixtureChanged(date, answers: answers, to: fixture, timeZone: zone, now: now)
                guard moved != date || walked != answers else { continue }
                try transaction.updateDate(moved)
                try transaction.saveAnswers(date: moved.id, walked)
                changed.append(moved.id)
            }
            changed += try ensureDates(transaction, settings: settings, now: try transaction.now())
            try transaction.notifyChanged(dates: changed)
            return .json(200, ["fixture": ClubViews.fixture(fixture)])
        }
    }

    // MARK: - Shared steps

    /// An organiser's change, exactly once per (organiser, id).
    func organiserChange(_ request: ClubRequest, id: String,
                         _ body: @escaping (any ClubTransaction, OrganiserRecord) throws -> ClubResponse) throws -> ClubResponse {
        let organiserRecord: OrganiserRecord = try database.change { try organiser(request, in: $0) }
        return try once(scope: "organiser:\(organiserRecord.username.lowercased())", id: id, language: request.language) {
            transaction in
            // The token may have ended between the two transactions: check it again under this one.
            let current = try organiser(request, in: transaction)
            return try body(transaction, current)
        }
    }

    /// Makes every occurrence of the active fixtures starting within the window exist (a new id
    /// is inserted, an existing one left alone, so instances doing it at once agree). Returns the
    /// ids it added.
    @discardableResult
    func ensureDates(_ transaction: any ClubTransaction, settings: ClubSettings, now: Millis) throws -> [String] {
        let zone = try Rules.timeZone(settings.timeZone)
        let existing = Set(try transaction.dates(notEndedBy: now).map(\.id))
        var wanted: [ClubDate] = []
        for fixture in try transaction.fixtures() where fixture.active {
            wanted += Rules.occurrences(of: fixture, timeZone: zone, now: now).filter { !existing.contains($0.id) }
        }
        guard !wanted.isEmpty else { return [] }
        try transaction.insertMissingDates(wanted)
        return wanted.map(\.id)
    }
}
