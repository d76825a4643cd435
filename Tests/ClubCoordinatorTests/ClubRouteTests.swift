import ClubCoordinator
import XCTest

/// The API's paths and methods, as the contract lists them: every endpoint found, every other
/// method refused with the ones it takes, anything that cannot be a token answered as unknown.
final class ClubRouteTests: XCTestCase {
    let token = "AbCdEfGhIjKlMnOpQrStUv"

    func testEveryEndpointOfTheContract() {
        let expected: [(String, String, ClubRoute)] = [
            ("POST", "/club/api/register", .register), ("POST", "/club/api/login", .login),
            ("POST", "/club/api/logout", .logout), ("GET", "/club/api/club", .club), ("PATCH", "/club/api/club", .changeClub),
            ("POST", "/club/api/members", .addMember), ("PATCH", "/club/api/members/7", .changeMember("7")),
            ("DELETE", "/club/api/members/7", .removeMember("7")), ("POST", "/club/api/members/7/link", .newLink("7")),
            ("POST", "/club/api/fixtures", .addFixture), ("PATCH", "/club/api/fixtures/3", .changeFixture("3")),
            ("GET", "/club/api/dates/9", .date("9")), ("PATCH", "/club/api/dates/9", .changeDate("9")),
            ("POST", "/club/api/dates/9/answer", .answerFor("9")), ("POST", "/club/api/dates/9/cancel", .cancelDate("9")),
            ("GET", "/club/api/m/\(token)", .memberView(token: token)),
            ("POST", "/club/api/m/\(token)/answer", .memberAnswer(token: token)),
            ("POST", "/club/api/m/\(token)/claim", .memberClaim(token: token)),
            ("POST", "/club/api/m/\(token)/pass", .memberPass(token: token)),
            ("GET", "/club/m/\(token)/calendar.ics", .memberCalendar(token: token)),
            ("POST", "/club/api/test/clock", .advanceTestClock),
        ]
        for (method, path, route) in expected {
            XCTAssertEqual(try ClubRoute.match(method: method, path: path).get(), route, "\(method) \(path)")
        }
    }

    func testAnotherMethodIsRefusedWithTheOnesThePathTakes() {
        XCTAssertEqual(ClubRoute.match(method: "DELETE", path: "/club/api/club"),
                       .failure(.methodNotAllowed(allowed: ["GET", "PATCH"])))
        XCTAssertEqual(ClubRoute.match(method: "GET", path: "/club/api/register"), .failure(.methodNotAllowed(allowed: ["POST"])))
        XCTAssertEqual(ClubRoute.match(method: "POST", path: "/club/m/\(token)/calendar.ics"),
                       .failure(.methodNotAllowed(allowed: ["GET"])))
    }

    func testWhatCannotBeATokenOrAnEndpointIsNotFound() {
        for path in ["/club/api/m/short", "/club/api/m/\(token)x", "/club/api/m/AbCdEfGhIjKlMnOpQrSt.v",
                     "/club/api/m/\(token)/delete", "/club/api/nothing", "/club/api/", "/club/api//club",
                     "/club/api/dates/9/answer/again", "/club/api/members/\(String(repeating: "9", count: 65))",
                     "/club/m/\(token)/other.ics", "/club/m/\(token)", "/elsewhere"] {
            XCTAssertEqual(ClubRoute.match(method: "GET", path: path).map { _ in true }, .failure(.notFound), path)
        }
    }

    func testOnlyReadsCarryNoId() {
        XCTAssertFalse(ClubRoute.club.isChange)
        XCTAssertFalse(ClubRoute.memberView(token: token).isChange)
        XCTAssertFalse(ClubRoute.memberCalendar(token: token).isChange)
        XCTAssertTrue(ClubRoute.memberAnswer(token: token).isChange)
        XCTAssertTrue(ClubRoute.advanceTestClock.isChange)
    }
}
