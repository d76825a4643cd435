import ClubModel
import Foundation
import XCTest
@testable import ClubStore

/// The mail's rows against a real PostgreSQL: a key is claimed once, a row is taken by one
/// sender at a time, a sender's late answer never overwrites another's, and a stale claim is
/// taken again; reminder times are settled once.
final class ClubStoreMailTests: ClubStoreTestCase {
    func clubWithDate() throws -> (ClubStore, ClubDate, [Member]) {
        let (store, fixture) = try openClub()
        let date = try store.change { try $0.insertMissingDates([sampleDate(fixture: fixture)]) }[0]
        let members = try store.change { transaction in
            try (1...3).map {
                try transaction.insertMember(Member(id: "", name: "M\($0)", email: "m\($0)@example.org"),
                                             linkSeed: "s\($0)", linkTokenHash: "h\($0)", now: 1)
            }
        }
        return (store, date, members)
    }

    func testAKeyIsClaimedOnceAndTakenByOneSenderAtATime() throws {
        let (store, date, members) = try clubWithDate()
        let keys = members.map { MailKey(memberId: $0.id, dateId: date.id, kind: .reminder, slot: 48) }
        XCTAssertEqual(try store.change { try $0.claimMail(keys, dueAt: 100, unsent: false) }, 3)
        XCTAssertEqual(try store.change { try $0.claimMail(keys, dueAt: 200, unsent: false) }, 0, "claimed before")

        // Two senders at once: the first holds its rows (uncommitted), the second skips them.
        let other = try openStore()
        let first = try store.change { transaction -> [TakenMail] in
            let taken = try transaction.takeMailToSend(now: 100, limit: 2)
            XCTAssertEqual(try other.change { try $0.takeMailToSend(now: 100, limit: 10) }.count, 1,
                           "the row the first sender holds is skipped, not waited for")
            return taken
        }
        XCTAssertEqual(first.count, 2)
        XCTAssertEqual(first.map(\.record.state), [.sending, .sending])
        XCTAssertEqual(first.map(\.record.tries), [1, 1])
        XCTAssertEqual(try store.change { try $0.takeMailToSend(now: 100, limit: 10) }, [], "all taken")

        // Sent, and a failure retried at its time.
        XCTAssertTrue(try store.change { try $0.finishMail(first[0], sent: true, retryAt: nil, error: nil, now: 150) })
        XCTAssertTrue(try store.change { try $0.finishMail(first[1], sent: false, retryAt: 60_100, error: "451", now: 150) })
        let records = Dictionary(uniqueKeysWithValues: try store.read { try $0.mail(date: date.id) }.map { ($0.key, $0) })
        XCTAssertEqual(records[first[0].record.key]?.state, .sent)
        XCTAssertEqual(records[first[0].record.key]?.at, 150)
        XCTAssertEqual(records[first[1].record.key]?.state, .pending)
        XCTAssertEqual(records[first[1].record.key]?.at, 60_100)
        XCTAssertEqual(try store.change { try $0.takeMailToSend(now: 60_099, limit: 10) }.map(\.record.key),
                       [], "not before its next try")
        let retried = try store.change { try $0.takeMailToSend(now: 60_100, limit: 10) }
        XCTAssertEqual(retried.map(\.record.tries), [2])
        XCTAssertEqual(retried.first?.firstTryAt, 100, "the backoff counts from the first try")
    }

    func testAStaleClaimIsTakenAgainAndTheStoppedSendersAnswerChangesNothing() throws {
        let (store, date, members) = try clubWithDate()
        let key = MailKey(memberId: members[0].id, dateId: date.id, kind: .offer, slot: 1)
        try store.change { try $0.claimMail([key], dueAt: 0, unsent: false) }
        let stalled = try store.change { try $0.takeMailToSend(now: 0, limit: 1) }[0]
        XCTAssertEqual(try store.change { try $0.takeMailToSend(now: MailRules.staleClaimMillis - 1, limit: 1) }, [])
        let again = try store.change { try $0.takeMailToSend(now: MailRules.staleClaimMillis, limit: 1) }
        XCTAssertEqual(again.map(\.record.tries), [2])
        XCTAssertFalse(try store.change { try $0.finishMail(stalled, sent: false, retryAt: nil, error: "late", now: 1) },
                       "the first sender's claim was taken over")
        XCTAssertTrue(try store.change { try $0.finishMail(again[0], sent: true, retryAt: nil, error: nil, now: 2) })
        XCTAssertEqual(try store.read { try $0.mail(date: date.id) }.map(\.state), [.sent])
    }

    func testUnsentClaimsAreNeverTakenAndReminderTimesAreSettledOnce() throws {
        let (store, date, members) = try clubWithDate()
        try store.change { try $0.claimMail([MailKey(memberId: members[1].id, dateId: date.id, kind: .reminder, slot: 4)],
                                            dueAt: 5, unsent: true) }
        XCTAssertEqual(try store.change { try $0.takeMailToSend(now: .max / 2, limit: 10) }, [])
        XCTAssertEqual(try store.read { try $0.mail(date: date.id) }.map(\.state), [.unsent])
        XCTAssertEqual(try store.read { try $0.mail(date: date.id) }.map(\.at), [5])

        let due = date.startsAt - 48 * 3_600_000
        XCTAssertEqual(try store.read { try $0.dateIdsWithRemindersDue(at: due - 1) }, [])
        XCTAssertEqual(try store.read { try $0.dateIdsWithRemindersDue(at: due) }, [date.id])
        try store.change { try $0.settleReminderHours(date: date.id, [48], now: due) }
        try store.change { try $0.settleReminderHours(date: date.id, [48], now: due + 1) }
        XCTAssertEqual(try store.read { try $0.settledReminderHours(date: date.id) }, [48])
        XCTAssertEqual(try store.read { try $0.dateIdsWithRemindersDue(at: due + 1) }, [])
    }

    /// A club's database of schema version 1 (before mail) comes through version 2 with its rows.
    func testAVersionOneDatabaseMigratesWithItsRowsKept() throws {
        let pool = PostgresPool(url: url, size: 1, logger: logger)
        defer { pool.close() }
        try pool.transaction { session in
            try session.execute("""
                CREATE TABLE club_schema_version (singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
                                                  version integer NOT NULL)
                """)
            for statement in ClubSchema.version1 { try session.execute(statement) }
            try session.execute("INSERT INTO club_schema_version (singleton, version) VALUES (true, 1)")
            try session.execute("""
                INSERT INTO club (singleton, name, time_zone, invite_code, link_secret, signing_key_pem, created_at)
                VALUES (true, 'Old club', 'Europe/Madrid', 'invite-1', 'secret', 'pem', 1)
                """)
            try session.execute("""
                INSERT INTO club_members (id, name, email, link_seed, link_token_hash, created_at)
                VALUES ('m1', 'Ana', 'ana@example.org', 'seed', 'hash', 1)
                """)
        }
        XCTAssertEqual(try ClubSchema.migrate(pool, logger: logger), 1)
        let store = try openStore()
        XCTAssertEqual(try store.read { try $0.club() }?.name, "Old club")
        XCTAssertEqual(try store.read { try $0.members() }, [Member(id: "m1", name: "Ana", email: "ana@example.org")])
        XCTAssertEqual(try store.read { try $0.mail(date: "none") }, [], "the mail table is there, empty")
    }
}
