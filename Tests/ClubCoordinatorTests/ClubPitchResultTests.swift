import ClubModel
import ClubStore
import Foundation
import Logging
import XCTest
@testable import ClubCoordinator

/// Back from the pitch, judged by the club's scope on a real PostgreSQL: a result is applied once
/// (again, from another instance, or after a restart: `alreadyApplied`, nothing changes), the date
/// is played, each answer records who played, confirmed members who did not are no-shows, and
/// members can no longer answer.
final class ClubPitchResultTests: XCTestCase {
    nonisolated(unsafe) static var cluster: PostgresCluster?
    nonisolated(unsafe) static var clusterFailure: Error?
    private var stores: [ClubStore] = []

    override class func setUp() {
        super.setUp()
        do { cluster = try PostgresCluster() } catch { clusterFailure = error }
    }

    override class func tearDown() {
        cluster?.stop()
        cluster = nil
        super.tearDown()
    }

    override func tearDown() {
        stores.forEach { $0.close() }
        super.tearDown()
    }

    private var logger: Logger {
        var logger = Logger(label: "club.results.tests")
        logger.logLevel = .warning
        return logger
    }

    private func service(url: String) throws -> ClubService {
        let store = try ClubStore(url: url, poolSize: 2, logger: logger)
        stores.append(store)
        return ClubService(store: store, configuration: .init(publicURL: "https://club.example.org", testClock: true),
                           logger: logger)
    }

    /// A club with a date that started an hour ago (the club's clock) and four members: Ana and
    /// Bo confirmed, Cy waiting, Di out; each member's link token by name.
    private func club(_ service: ClubService) throws -> (date: ClubDate, members: [String: String], tokens: [String: String]) {
        let store = service.store
        _ = try store.ensureClub(ClubSettings(name: "Club", timeZone: "Europe/Madrid", inviteCode: "invite-1",
                                              linkSecret: "secret", signingKeyPEM: "-----BEGIN PRIVATE KEY-----"))
        let now = try store.now()
        return try store.change { transaction in
            let fixture = try transaction.insertFixture(Fixture(id: "", title: "Sunday", weekday: 7,
                                                                time: LocalTime(hour: 10, minute: 0), durationMinutes: 90,
                                                                place: "Riverside", capacity: 2), now: now)
            let startsAt = now - 3_600_000
            let date = try XCTUnwrap(transaction.insertMissingDates([
                ClubDate(id: "", fixtureId: fixture.id, occurrence: "2026-12-06", startsAt: startsAt,
                         opensAt: startsAt - 144 * 3_600_000, closesAt: now + 3_600_000, durationMinutes: 90, capacity: 2),
            ]).first)
            var members: [String: String] = [:]
            var tokens: [String: String] = [:]
            for name in ["Ana", "Bo", "Cy", "Di"] {
                let token = MemberLinks.token(seed: "seed-\(name)", secret: "secret")
                members[name] = try transaction.insertMember(Member(id: "", name: name), linkSeed: "seed-\(name)",
                                                             linkTokenHash: MemberLinks.hash(token: token), now: now).id
                tokens[name] = token
            }
            try transaction.saveAnswers(date: date.id, [
                Answer(memberId: members["Ana"]!, answer: .in, state: .confirmed, answeredAt: 1),
                Answer(memberId: members["Bo"]!, answer: .in, state: .confirmed, answeredAt: 2),
                Answer(memberId: members["Cy"]!, answer: .in, state: .waiting, answeredAt: 3),
                Answer(memberId: members["Di"]!, answer: .out, state: .out, answeredAt: 4),
            ])
            return (date, members, tokens)
        }
    }

    func testAResultIsAppliedOnceAcrossInstancesAndLeavesAttendanceAndOneNoShow() throws {
        if let failure = Self.clusterFailure { throw failure }
        let url = try XCTUnwrap(Self.cluster).freshDatabaseURL()
        let first = try service(url: url)
        let (date, members, tokens) = try club(first)
        // Ana and Cy played (Cy from the waitlist); Bo, confirmed, did not come.
        let result = ClubService.PitchResult(id: "gather-1", venue: "riverside", dateId: date.id, endedAt: 1,
                                             played: [members["Ana"]!, members["Cy"]!])

        XCTAssertEqual(try first.applyPitchResult(result), .applied(noShows: [members["Bo"]!]))
        let played = try first.store.read { try $0.date(id: date.id) }
        XCTAssertEqual(played?.status, .played)
        let attended = try first.store.read { try $0.answers(date: date.id) }
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: attended.map { ($0.memberId, $0.attended) }),
                       [members["Ana"]!: true, members["Bo"]!: false, members["Cy"]!: true, members["Di"]!: false])
        let now = try first.store.now()
        XCTAssertEqual(try first.store.read { try first.noShows($0, now: now) }, [members["Bo"]!: 1])

        // The same result again, from this instance and from another (a replay, a restart).
        let second = try service(url: url)
        XCTAssertEqual(try first.applyPitchResult(result), .alreadyApplied)
        XCTAssertEqual(try second.applyPitchResult(result), .alreadyApplied)
        // Another gather's result for the same date changes nothing: the date was played once.
        var other = result
        other.id = "gather-2"
        other.played = [members["Bo"]!]
        XCTAssertEqual(try second.applyPitchResult(other), .ignored(reason: "the date is played"))
        XCTAssertEqual(try second.applyPitchResult(other), .alreadyApplied)
        XCTAssertEqual(try first.store.read { try $0.answers(date: date.id) }, attended, "nothing changed")
        XCTAssertEqual(try first.store.read { try first.noShows($0, now: now) }, [members["Bo"]!: 1])

        // A date the club does not have: recorded as ignored, once.
        var stray = result
        stray.id = "gather-3"
        stray.dateId = "no-such-date"
        XCTAssertEqual(try first.applyPitchResult(stray), .ignored(reason: "not a date of this club"))
        XCTAssertEqual(try second.applyPitchResult(stray), .alreadyApplied)

        // After played, a member's answer is closed, and nothing changes.
        let answer = first.respond(to: ClubRequest(
            method: "POST", path: "/club/api/m/\(tokens["Di"]!)/answer",
            body: Array(#"{"id":"answer-1","date":"\#(date.id)","answer":"in"}"#.utf8)))
        let refusal = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
        XCTAssertEqual((refusal["error"] as? [String: Any])?["code"] as? String, "closed", "\(refusal)")
        XCTAssertEqual(try first.store.read { try $0.answers(date: date.id) }, attended)
    }

    func testNoShowsCountOnlyTheLastFiftySixDaysOfTheClubsClock() throws {
        if let failure = Self.clusterFailure { throw failure }
        let url = try XCTUnwrap(Self.cluster).freshDatabaseURL()
        let service = try service(url: url)
        let (date, members, _) = try club(service)
        _ = try service.applyPitchResult(.init(id: "gather-1", venue: "riverside", dateId: date.id, endedAt: 1,
                                               played: [members["Ana"]!]))
        let bo = members["Bo"]!
        let count = { try service.store.read { try service.noShows($0, now: try $0.now()) }[bo] }
        XCTAssertEqual(try count(), 1)
        // 56 days after the start it still counts; a day later it does not.
        try service.store.advanceClock(ms: ClubService.noShowWindowMs - 3_600_000 - 60_000)
        XCTAssertEqual(try count(), 1)
        try service.store.advanceClock(ms: 86_400_000)
        XCTAssertNil(try count())
    }
}
