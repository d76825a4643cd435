import ClubModel
import Foundation
import XCTest
@testable import ClubStore

/// The Store's API for the coordinator, against a real PostgreSQL: what is saved reads back the
/// same, natural keys keep dates single, kept replies exist exactly when their change does.
final class ClubStoreAPITests: ClubStoreTestCase {
    func testAKeptReplyIsReadBackAndExistsOnlyIfItsChangeCommitted() throws {
        let (store, _) = try openClub()
        try store.change { transaction in
            XCTAssertNil(try transaction.keptReply(scope: "member:1", id: "abc-1"))
            try transaction.keepReply(scope: "member:1", id: "abc-1", status: 200, body: #"{"date":{"id":"5"}}"#)
        }
        let other = try openStore()
        XCTAssertEqual(try other.change { try $0.keptReply(scope: "member:1", id: "abc-1") },
                       KeptReply(status: 200, body: #"{"date":{"id":"5"}}"#), "read back on another instance")
        XCTAssertNil(try other.read { try $0.keptReply(scope: "member:2", id: "abc-1") }, "ids are scoped")

        // A change that fails keeps no reply: the id is judged again next time.
        XCTAssertThrowsError(try store.change { transaction in
            try transaction.keepReply(scope: "member:1", id: "lost", status: 200, body: "{}")
            throw Refusal(.closed)
        })
        XCTAssertNil(try store.read { try $0.keptReply(scope: "member:1", id: "lost") })
        XCTAssertThrowsError(try store.change { try $0.keptReply(scope: "s", id: String(repeating: "x", count: 65)) })
    }

    func testTheSameIdSentToTwoInstancesAtOnceIsJudgedOnce() throws {
        let (first, _) = try openClub()
        let second = try openStore()
        let applied = Results()
        let group = DispatchGroup()
        for store in [first, second] {
            DispatchQueue.global().async(group: group) {
                do {
                    let fresh = try store.change { transaction -> Int in
                        if try transaction.keptReply(scope: "organiser:1", id: "same") != nil { return 0 }
                        usleep(200_000)  // the other instance arrives meanwhile
                        try transaction.keepReply(scope: "organiser:1", id: "same", status: 200, body: "{}")
                        return 1
                    }
                    applied.add(.success(fresh))
                } catch { applied.add(.failure(error)) }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(try applied.all.map { try $0.get() }.sorted(), [0, 1], "one judged it, the other replayed it")
    }

    func testMembersLinksAndTheMemberCap() throws {
        let (store, _) = try openClub()
        let ana = try store.change {
            try $0.insertMember(Member(id: "ignored", name: "Ana", email: "ana@example.org", language: "es"),
                                linkSeed: "seed-1", linkTokenHash: "hash-1", now: 10)
        }
        XCTAssertNotEqual(ana.id, "ignored")
        XCTAssertEqual(try store.read { try $0.member(tokenHash: "hash-1") }, ana)
        XCTAssertTrue(try store.change { try $0.setLink(member: ana.id, seed: "seed-2", hash: "hash-2") })
        XCTAssertNil(try store.read { try $0.member(tokenHash: "hash-1") }, "the old link stops at once")
        XCTAssertEqual(try store.read { try $0.storedMember(id: ana.id) }?.linkSeed, "seed-2")

        var renamed = ana
        renamed.name = "Ana María"
        renamed.active = false
        XCTAssertTrue(try store.change { try $0.updateMember(renamed) })
        XCTAssertEqual(try store.read { try $0.member(id: ana.id) }, renamed)
        let bea = try store.change {
            try $0.insertMember(Member(id: "", name: "Bea"), linkSeed: "s", linkTokenHash: "hash-3", now: 11)
        }
        var clash = bea
        clash.name = "ANA MARÍA"
        XCTAssertThrowsError(try store.change { try $0.updateMember(clash) }) {
            XCTAssertEqual($0 as? Refusal, Refusal(.conflict, ["field": "name"]))
        }
        // Two instances racing past that check meet the unique index: the same refusal.
        XCTAssertThrowsError(try store.change { transaction in
            try transaction.session.execute("""
                INSERT INTO club_members (id, name, active, link_seed, link_token_hash, created_at)
                VALUES ('race', 'ana maría', true, 's', 'race-hash', 1)
                """)
        }) { XCTAssertEqual($0 as? Refusal, Refusal(.conflict, ["field": "name"])) }
        XCTAssertTrue(try store.change { try $0.deleteMember(id: bea.id) })
        XCTAssertFalse(try store.change { try $0.deleteMember(id: bea.id) })

        // The 501st member is refused.
        try store.change { transaction in
            for n in 1..<ClubTransaction.memberLimit {
                _ = try transaction.insertMember(Member(id: "", name: "Member \(n)"), linkSeed: "s\(n)",
                                                 linkTokenHash: "h\(n)", now: 12)
            }
        }
        XCTAssertThrowsError(try store.change {
            try $0.insertMember(Member(id: "", name: "One too many"), linkSeed: "x", linkTokenHash: "hx", now: 13)
        }) { XCTAssertEqual($0 as? Refusal, Refusal(.conflict, ["field": "members"])) }
        XCTAssertEqual(try store.read { try $0.memberCount() }, ClubTransaction.memberLimit)
    }

    func testFixturesDatesAndAnswersReadBackAsSaved() throws {
        let (store, fixture) = try openClub()
        XCTAssertEqual(try store.read { try $0.fixtures() }, [fixture])
        var changed = fixture
        changed.reminderHoursBefore = [72]
        changed.time = LocalTime(hour: 9, minute: 30)
        XCTAssertTrue(try store.change { try $0.updateFixture(changed) })
        XCTAssertEqual(try store.read { try $0.fixture(id: fixture.id) }, changed)

        // Dates by natural key: the same occurrence twice is one row.
        let first = sampleDate(fixture: fixture)
        let second = sampleDate(fixture: fixture, occurrence: "2026-12-13", startsAt: first.startsAt + 7 * 86_400_000)
        let made = try store.change { try $0.insertMissingDates([first, second]) }
        XCTAssertEqual(made.count, 2)
        XCTAssertEqual(try store.change { try $0.insertMissingDates([first, second]) }, [], "nothing new")
        var moved = first
        moved.startsAt += 3_600_000
        let upserted = try store.change { try $0.upsertDates([moved]) }
        XCTAssertEqual(upserted.first?.id, made[0].id, "the row already there keeps its id")
        XCTAssertEqual(try store.read { try $0.dates(from: 0, to: .max) }.map(\.id), made.map(\.id))

        let members = try store.change { transaction in
            try (1...3).map {
                try transaction.insertMember(Member(id: "", name: "M\($0)"), linkSeed: "s\($0)",
                                             linkTokenHash: "h\($0)", now: 1)
            }
        }
        let date = made[0]
        // Judged order, not id order, and equal answeredAt kept as given.
        let answers = [
            Answer(memberId: members[2].id, answer: .in, guests: 2, state: .confirmed, answeredAt: 50),
            Answer(memberId: members[0].id, answer: .in, state: .offered, answeredAt: 50, offerExpiresAt: 900,
                   offersMade: 1),
            Answer(memberId: members[1].id, answer: .out, state: .out, answeredAt: 40, attended: false),
        ]
        try store.change { transaction in
            let locked = try XCTUnwrap(transaction.lockDate(id: date.id))
            XCTAssertEqual(locked.id, date.id)
            try transaction.saveAnswers(date: date.id, answers)
        }
        XCTAssertEqual(try store.read { try $0.answers(date: date.id) }, answers)
        XCTAssertEqual(try store.read { try $0.dateIdsWithOffersExpired(by: 900) }, [date.id])
        XCTAssertEqual(try store.read { try $0.dateIdsWithOffersExpired(by: 899) }, [])

        // Saving a shorter list removes the absent answer; only changed rows rise in revision.
        let before = try store.read { try $0.calendarSequences(member: members[2].id) }[date.id]
        try store.change { try $0.saveAnswers(date: date.id, Array(answers.prefix(2))) }
        XCTAssertEqual(try store.read { try $0.answers(date: date.id) }, Array(answers.prefix(2)))
        XCTAssertEqual(try store.read { try $0.calendarSequences(member: members[2].id) }[date.id], before)
        var fewer = answers[0]
        fewer.guests = 1
        try store.change { try $0.saveAnswers(date: date.id, [fewer, answers[1]]) }
        XCTAssertEqual(try store.read { try $0.calendarSequences(member: members[2].id) }[date.id], before.map { $0 + 1 })

        // saveDate, the publish seq that only goes forward.
        var cancelled = date
        cancelled.status = .cancelled
        XCTAssertTrue(try store.change { try $0.saveDate(cancelled) })
        XCTAssertEqual(try store.read { try $0.date(id: date.id) }?.status, .cancelled)
        XCTAssertEqual(try store.change { try $0.nextPublishSeq(date: date.id, now: 1_000) }, 1_000)
        XCTAssertEqual(try store.change { try $0.nextPublishSeq(date: date.id, now: 5) }, 1_001)
    }

    func testTheClockAdvancesForEveryInstance() throws {
        let (store, _) = try openClub()
        let other = try openStore()
        let before = try other.now()
        let advanced = try store.advanceClock(ms: 3 * 3_600_000)
        XCTAssertGreaterThanOrEqual(advanced - before, 3 * 3_600_000)
        XCTAssertGreaterThanOrEqual(try other.now(), advanced, "the offset is in the database")
        XCTAssertThrowsError(try store.advanceClock(ms: -1))
        XCTAssertEqual(try other.read { try $0.club() }?.clockOffsetMs, 3 * 3_600_000)
        // A second first start keeps what the first stored.
        let again = try other.ensureClub(ClubSettings(name: "Other", timeZone: "UTC", inviteCode: "x", linkSecret: "y",
                                                      signingKeyPEM: "z"))
        XCTAssertEqual(again.name, "Club")
        XCTAssertEqual(again.inviteCode, "invite-1")
    }

    func testTheFirstOrganiserOwnsTheClubOnceAndTheLimiterIsShared() throws {
        let (first, _) = try openClub()
        let second = try openStore()
        let owners = Results()
        let group = DispatchGroup()
        for (n, store) in [first, second, first, second].enumerated() {
            DispatchQueue.global().async(group: group) {
                do {
                    let organiser = try store.change {
                        try $0.insertOrganiser(username: "org\(n)", passwordHash: "$scrypt$x", now: 1)
                    }
                    owners.add(.success(organiser?.owner == true ? 1 : 0))
                } catch { owners.add(.failure(error)) }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(try owners.all.map { try $0.get() }.reduce(0, +), 1, "exactly one owner")
        XCTAssertNil(try first.change { try $0.insertOrganiser(username: "ORG1", passwordHash: "h", now: 2) })

        let org = try XCTUnwrap(try first.read { try $0.organiser(username: "Org2") })
        try first.change { try $0.insertToken(hash: "token-hash", organiserId: org.id, now: 5) }
        XCTAssertEqual(try second.change { try $0.organiser(tokenHash: "token-hash", now: 6) }?.id, org.id)
        XCTAssertTrue(try second.change { try $0.deleteToken(hash: "token-hash") })
        XCTAssertNil(try first.change { try $0.organiser(tokenHash: "token-hash", now: 7) })

        // Two failures through two instances lock the key for both.
        for store in [first, second] {
            let admission = try store.change { try $0.admitLogin(key: "1.2.3.4|org2", now: 100, allowed: 2, windowMs: 60_000) }
            guard case .admitted(let attempt) = admission else { return XCTFail("admitted expected, got \(admission)") }
            try store.change {
                try $0.loginFailed(key: "1.2.3.4|org2", attempt: attempt, now: 100, allowed: 2, windowMs: 60_000,
                                   lockoutMs: 300_000)
            }
        }
        XCTAssertEqual(try first.change { try $0.admitLogin(key: "1.2.3.4|org2", now: 200, allowed: 2, windowMs: 60_000) },
                       .locked(until: 300_100))
        let elsewhere = try second.change { try $0.admitLogin(key: "5.6.7.8|org2", now: 200, allowed: 2, windowMs: 60_000) }
        guard case .admitted(let attempt) = elsewhere else { return XCTFail("another key is free") }
        try second.change { try $0.loginSucceeded(attempt: attempt) }
    }
}
