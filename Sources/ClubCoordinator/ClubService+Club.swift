import ClubModel
import ClubStore
import Foundation
import GatherModel
import GatherSecurity

/// The organisers' club: its settings, members and fixtures. Every change holds the locks its
/// rules read (a fixture's row, each affected date's row), and tells every instance's pages.
extension ClubService {
    /// At most this many fixtures: a club plays a few times a week, not hundreds.
    static let maximumFixtures = 20

    func clubView(_ request: ClubRequest) throws -> ClubResponse {
        try store.change { transaction in
            _ = try organiser(request, in: transaction)
            let settings = try settings(transaction)
            let now = try transaction.now()
            try ensureDates(transaction, settings: settings, now: now)
            let base = publicBase(request)
            let fixtures = try transaction.fixtures()
            let byId = Dictionary(fixtures.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            let dates = try transaction.dates(from: now, to: now + Schedule.windowMillis)
            let answers = try transaction.answers(dates: dates.map(\.id))
            let noShows = try noShows(transaction, now: now)
            return .json(200, [
                "name": .string(settings.name), "timeZone": .string(settings.timeZone), "language": .string(settings.language),
                "now": .int(Int(now)), "clubKey": Self.publicKey(settings).map(JSONValue.string) ?? .null,
                "members": .array(try transaction.storedMembers().map {
                    ClubViews.member($0.member, link: memberLink(seed: $0.linkSeed, secret: settings.linkSecret, base: base),
                                     noShows: noShows[$0.member.id] ?? 0)
                }),
                "fixtures": .array(fixtures.map(ClubViews.fixture)),
                "dates": .array(dates.map {
                    .object(ClubViews.dateSummary($0, fixture: byId[$0.fixtureId], answers: answers[$0.id] ?? []))
                }),
            ])
        }
    }

    func changeClub(_ request: ClubRequest) throws -> ClubResponse {
        let body = try ClubBody(request.body)
        let id = try body.id()
        let draft = try body.draft(ClubPatchDraft.self)
        let name = try draft.name.map { raw throws(Refusal) in try ClubInput.clubName(raw) }
        let zone = try draft.timeZone.map { raw throws(Refusal) in try ClubInput.timeZone(raw).identifier }
        let language = try draft.language.map { raw throws(Refusal) in try ClubInput.language(raw) }
        return try organiserChange(request, id: id) { transaction, organiser in
            guard organiser.owner else { throw Refusal(.forbidden) }
            try transaction.updateClub(name: name, timeZone: zone, language: language)
            try transaction.notifyClubChanged()
            let settings = try settings(transaction)
            return .json(200, ["name": .string(settings.name), "timeZone": .string(settings.timeZone),
                               "language": .string(settings.language)])
        }
    }

    func addMember(_ request: ClubRequest) throws -> ClubResponse {
        let body = try ClubBody(request.body)
        let id = try body.id()
        let draft = try body.draft(MemberDraft.self)
        return try organiserChange(request, id: id) { transaction, _ in
            let member = try ClubInput.newMember(id: "", draft: draft, existing: try transaction.members())
            let settings = try settings(transaction)
            let seed = MemberLinks.newSeed()
            let hash = MemberLinks.hash(token: MemberLinks.token(seed: seed, secret: settings.linkSecret))
            let stored = try transaction.insertMember(member, linkSeed: seed, linkTokenHash: hash, now: try transaction.now())
            try transaction.notifyClubChanged()
            let link = memberLink(seed: seed, secret: settings.linkSecret, base: publicBase(request))
            return .json(200, ["member": ClubViews.member(stored, link: link), "link": .string(link)])
        }
    }

    func changeMember(_ memberId: String, _ request: ClubRequest) throws -> ClubResponse {
        let body = try ClubBody(request.body)
        let id = try body.id()
        let draft = try body.draft(MemberDraft.self)
        return try organiserChange(request, id: id) { transaction, _ in
            guard let record = try transaction.storedMember(id: memberId) else { throw Refusal(.notFound) }
            let changed = try ClubInput.patchedMember(record.member, draft: draft, existing: try transaction.members())
            try transaction.updateMember(changed)
            try transaction.notifyClubChanged()
            let settings = try settings(transaction)
            return .json(200, ["member": ClubViews.member(changed, link: memberLink(seed: record.linkSeed, secret: settings.linkSecret,
                                                                                      base: publicBase(request)))])
        }
    }

    /// Frees the member's seats in every date still to come (the walk runs), then removes them.
    func removeMember(_ memberId: String, _ request: ClubRequest) throws -> ClubResponse {
        let id = try ClubBody(request.body).id()
        return try organiserChange(request, id: id) { transaction, _ in
            guard try transaction.member(id: memberId) != nil else { throw Refusal(.notFound) }
            var changed: [String] = []
            let now = try transaction.now()
            for listed in try transaction.dates(from: now, to: now + 2 * Schedule.windowMillis) {
                guard let date = try transaction.lockDate(id: listed.id), date.status == .scheduled else { continue }
                let answers = try transaction.answers(date: date.id)
                guard answers.contains(where: { $0.memberId == memberId }) else { continue }
                let result = Waitlist.removeMember(memberId: memberId, date: date, answers: answers, now: try transaction.now())
                try transaction.saveAnswers(date: date.id, result.answers)
                try claimMail(for: result, transaction)
                changed.append(date.id)
            }
            try transaction.deleteMember(id: memberId)
            try transaction.notify(dateIds: changed)
            try transaction.notifyClubChanged()
            return .json(200, [:])
        }
    }

    func newLink(_ memberId: String, _ request: ClubRequest) throws -> ClubResponse {
        let id = try ClubBody(request.body).id()
        return try organiserChange(request, id: id) { transaction, _ in
            guard try transaction.member(id: memberId) != nil else { throw Refusal(.notFound) }
            let settings = try settings(transaction)
            let seed = MemberLinks.newSeed()
            try transaction.setLink(member: memberId, seed: seed,
                                    hash: MemberLinks.hash(token: MemberLinks.token(seed: seed, secret: settings.linkSecret)))
            try transaction.notifyClubChanged()
            return .json(200, ["link": .string(memberLink(seed: seed, secret: settings.linkSecret, base: publicBase(request)))])
        }
    }

    func addFixture(_ request: ClubRequest) throws -> ClubResponse {
        let body = try ClubBody(request.body)
        let id = try body.id()
        let draft = try body.draft(FixtureDraft.self)
        _ = try ClubInput.newFixture(id: "check", draft: draft)
        return try organiserChange(request, id: id) { transaction, _ in
            guard try transaction.fixtures().count < Self.maximumFixtures else {
                throw Refusal(.conflict, ["max": "\(Self.maximumFixtures)"])
            }
            let fixture = try transaction.insertFixture(try ClubInput.newFixture(id: "", draft: draft), now: try transaction.now())
            let added = try ensureDates(transaction, settings: try settings(transaction), now: try transaction.now())
            try transaction.notify(dateIds: added)
            try transaction.notifyClubChanged()
            return .json(200, ["fixture": ClubViews.fixture(fixture)])
        }
    }

    /// Precision 14: the dates not yet started follow (except one changed on its own); pausing
    /// cancels them; a smaller capacity never takes a confirmed place away.
    func changeFixture(_ fixtureId: String, _ request: ClubRequest) throws -> ClubResponse {
        let body = try ClubBody(request.body)
        let id = try body.id()
        let draft = try body.draft(FixtureDraft.self)
        return try organiserChange(request, id: id) { transaction, _ in
            guard let old = try transaction.lockFixture(id: fixtureId) else { throw Refusal(.notFound) }
            let fixture = try ClubInput.patchedFixture(old, draft: draft)
            try transaction.updateFixture(fixture)
            let club = ClubTime(timeZone: try ClubInput.timeZone(try settings(transaction).timeZone))
            let now = try transaction.now()
            let existing = try transaction.dates(fixtureId: fixtureId, startingAfter: now)
            var changed: [String] = []
            for change in Schedule.dateChanges(for: fixture, existing: existing, in: club, now: now) {
                switch change {
                case .create(let date):
                    changed += try transaction.insertMissingDates([date]).map(\.id)
                case .update(let old, let new):
                    let result = Waitlist.changeDate(to: new, answers: try transaction.answers(date: old.id), now: now)
                    try transaction.saveDate(result.date)
                    try transaction.saveAnswers(date: old.id, result.answers)
                    try claimMail(for: result, transaction)
                    changed.append(old.id)
                case .cancel(let date):
                    let answers = try transaction.answers(date: date.id)
                    let result = try Waitlist.cancel(date: date, answers: answers, now: now, alone: false)
                    try transaction.saveDate(result.date)
                    try claimMail(for: result, transaction)
                    changed.append(date.id)
                }
            }
            try transaction.notify(dateIds: changed)
            try transaction.notifyClubChanged()
            return .json(200, ["fixture": ClubViews.fixture(fixture)])
        }
    }

    // MARK: - Shared steps

    /// The club's Ed25519 public key (base64), which a venue is given to believe the club's lists.
    static func publicKey(_ settings: ClubSettings) -> String? {
        guard let key = Ed25519PrivateKey.load(pem: Data(settings.signingKeyPEM.utf8)),
              let raw = try? key.publicKeyBytes() else { return nil }
        return Base64.encoded(raw)
    }

    /// An organiser's change, exactly once per (organiser, id).
    func organiserChange(_ request: ClubRequest, id: String,
                         _ body: (ClubTransaction, ClubOrganiser) throws -> ClubResponse) throws -> ClubResponse {
        let first: ClubOrganiser = try store.change { try organiser(request, in: $0) }
        return try once(scope: "organiser:\(first.username.lowercased())", id: id, language: request.language) { transaction in
            // The token may have ended between the two transactions: check it again under this one.
            try body(transaction, try organiser(request, in: transaction))
        }
    }

    /// Makes every occurrence of the active fixtures starting within the window exist (a new
    /// natural key is inserted, an existing one left alone, so instances doing it at once agree).
    /// Returns the ids it added.
    @discardableResult
    func ensureDates(_ transaction: ClubTransaction, settings: ClubSettings, now: Millis) throws -> [String] {
        let club = ClubTime(timeZone: try ClubInput.timeZone(settings.timeZone))
        var wanted: [ClubDate] = []
        for fixture in try transaction.fixtures() where fixture.active {
            wanted += Schedule.occurrences(of: fixture, in: club, now: now)
        }
        guard !wanted.isEmpty else { return [] }
        let known = Set(try transaction.dates(from: now, to: now + Schedule.windowMillis + 86_400_000)
            .map { "\($0.fixtureId)/\($0.occurrence)" })
        let missing = wanted.filter { !known.contains("\($0.fixtureId)/\($0.occurrence)") }
        guard !missing.isEmpty else { return [] }
        return try transaction.insertMissingDates(missing).map(\.id)
    }
}
