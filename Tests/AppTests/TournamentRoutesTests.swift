import Foundation
@testable import GatherApp
@testable import GatherCoordinator
import GatherCertificates
import GatherModel
import GatherPresenters
import GatherTransport
import XCTest

/// `/api/tournament.json`, `/api/tournaments.json`, `/api/tournament.csv` and
/// `/api/tournament.ics[?team=ID]` as the exports follow the state: a tournament created, changed
/// and cancelled, and another one after it.
final class TournamentRoutesTests: XCTestCase {
    /// The exports' state is one queue's (the Coordinator's); the test plays that queue.
    private let queue = DispatchQueue(label: "test.exports")
    private lazy var exports = ExportDocuments(queue: queue)

    private var routes: HTTPRoutes {
        HTTPRoutes(metrics: CoordinatorMetrics(), exports: exports, connections: { 0 },
                   fanOut: { FanOutMetrics.Reading() }, caCertificate: nil,
                   links: ServerLinks(identity: MachineIdentity(hostName: "laptop", ipAddresses: []), host: "127.0.0.1"),
                   metricsReaders: [])
    }

    private func get(_ path: String, _ query: String? = nil) throws -> HTTPResponse {
        try XCTUnwrap(routes.respond(to: HTTPRequest(method: "GET", path: path, query: query)))
    }

    private func text(_ path: String, _ query: String? = nil) throws -> String {
        String(decoding: try get(path, query).body, as: UTF8.self)
    }

    private static func cup(id: String, name: String = "Riverside Cup") -> Tournament {
        let draft = try! TournamentSetup.draft(
            from: ["name": .string(name), "teams": ["Reds", "Blues", "Greens"], "groups": 1, "advance": 2],
            pitches: [1], now: 1_790_000_000_000).get()
        return Tournament(id: id, draft: draft)
    }

    private func follow(_ tournament: Tournament?) {
        follow(GatherState(tournament: tournament))
    }

    private func follow(_ state: GatherState) {
        queue.sync { exports.follow(state) }
    }

    func testWithNoTournamentTheDocumentsAreEmptyAndATeamsFeedIsNotFound() throws {
        XCTAssertEqual(try text("/api/tournament.json"), "null")
        XCTAssertEqual(try text("/api/tournaments.json"), "{\"tournaments\":[]}")
        let csv = try get("/api/tournament.csv")
        XCTAssertEqual(Array(csv.body.prefix(3)), [0xEF, 0xBB, 0xBF])
        XCTAssertEqual(csv.contentType, "text/csv; charset=utf-8")
        XCTAssertEqual(String(decoding: csv.body.dropFirst(3), as: UTF8.self), TournamentExport.csv(nil, pitchNames: [:]))
        let calendar = try get("/api/tournament.ics")
        XCTAssertEqual(calendar.status, 200)
        XCTAssertEqual(calendar.contentType, "text/calendar; charset=utf-8")
        XCTAssertFalse(String(decoding: calendar.body, as: UTF8.self).contains("BEGIN:VEVENT"))
        XCTAssertEqual(try get("/api/tournament.ics", "team=1").status, 404)
    }

    func testTheDocumentsFollowATournamentUntilItIsCancelledAndTheNextOne() throws {
        var cup = Self.cup(id: "cup-1")
        follow(cup)
        XCTAssertEqual(try get("/api/tournament.json").body, TournamentPresenter.document(cup))
        try cup.startMatch(1, at: 1_790_000_060_000)
        follow(cup)
        XCTAssertEqual(try get("/api/tournament.json").body, TournamentPresenter.document(cup), "a change is followed")
        XCTAssertEqual(try get("/api/tournaments.json").body, TournamentPresenter.list([(cup, false)]))
        XCTAssertTrue(try text("/api/tournament.csv").contains("\r\n1,group,A,Pitch 1,"))

        let feed = try text("/api/tournament.ics", "team=1")
        XCTAssertEqual(feed.components(separatedBy: "BEGIN:VEVENT").count - 1, cup.matches.filter { $0.involves(1) }.count)
        for query in ["team=4", "team=abc", "team=1&team=2", "team="] {
            XCTAssertEqual(try get("/api/tournament.ics", query).status, 404, query)
        }
        XCTAssertEqual(try get("/api/tournament.ics", "other=1").status, 200, "other parameters are ignored")

        follow(nil)
        XCTAssertEqual(try text("/api/tournament.json"), "null")
        XCTAssertEqual(try get("/api/tournaments.json").body, TournamentPresenter.list([(cup, true)]))

        let next = Self.cup(id: "cup-2", name: "Winter Cup")
        follow(next)
        XCTAssertEqual(try get("/api/tournaments.json").body, TournamentPresenter.list([(next, false), (cup, true)]))
    }

    func testAFeedIsRenderedOnceUntilTheTournamentChanges() throws {
        var cup = Self.cup(id: "cup-1")
        follow(cup)
        let first = try XCTUnwrap(exports.calendar(team: 2, now: 1_790_000_000_000))
        XCTAssertEqual(exports.calendar(team: 2, now: 1_790_000_999_000), first, "kept: the same bytes, its DTSTAMP too")
        XCTAssertTrue(String(decoding: first, as: UTF8.self).contains("DTSTAMP:20260921T"))
        XCTAssertNotEqual(exports.calendar(team: nil, now: 1_790_000_999_000), first, "each team its own feed")
        try cup.startMatch(1, at: 1_790_000_060_000)
        follow(cup)
        let after = try XCTUnwrap(exports.calendar(team: 2, now: 1_790_000_999_000))
        XCTAssertNotEqual(after, first)
        XCTAssertEqual(after, Array(TournamentCalendar.ics(cup, team: 2, pitchNames: [1: "Pitch 1"], now: 1_790_000_999_000).utf8))
    }

    func testAPitchRenamedMovesTheCSVAndTheFeed() throws {
        let cup = Self.cup(id: "cup-1")
        follow(GatherState(tournament: cup))
        follow(GatherState(pitches: [Pitch(id: 1, name: "Riverside")], tournament: cup))
        XCTAssertTrue(try text("/api/tournament.csv").contains(",Riverside,"))
        XCTAssertTrue(try text("/api/tournament.ics").contains("LOCATION:Riverside\r\n"))
    }
}
