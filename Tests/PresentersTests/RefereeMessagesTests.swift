import GatherModel
import GatherPresenters
import XCTest

/// The referee messages in the exact shape docs/PROTOCOL.md §20 gives: a link never shows its
/// code's hash nor who made it.
final class RefereeMessagesTests: XCTestCase {
    private let link = RefereeLink(id: 3, pitch: 2, label: "Back pitch referee", expiresAt: 1_790_043_200_000,
                                   createdAt: 1_790_000_000_000, createdBy: "ann")

    private func parsed(_ message: ServerMessage) throws -> JSONValue {
        try JSONValue.parse(MessagePresenter.bytes(message)).get()
    }

    func testTheAckOfALinkCarriesItsResult() throws {
        XCTAssertEqual(try parsed(.ackWithResult(id: "c1", version: 7, result: ["id": 3, "url": "/organiser.html#referee=C"])),
                       ["type": "ack", "id": "c1", "version": 7, "result": ["id": 3, "url": "/organiser.html#referee=C"]])
    }

    func testTheRefereesSessionNamesItsPitchAndLink() throws {
        XCTAssertEqual(try parsed(.refereeSession(RefereeGrant(link: link, token: "t0k"))),
                       ["type": "session", "role": "referee", "pitch": 2, "label": "Back pitch referee", "link": 3,
                        "expiresAt": 1_790_043_200_000, "token": "t0k"])
        XCTAssertEqual(try parsed(.sessionEnded(reason: .revoked)), ["type": "session", "role": "spectator", "reason": "revoked"])
        XCTAssertEqual(try parsed(.sessionEnded(reason: .expired)), ["type": "session", "role": "spectator", "reason": "expired"])
    }

    func testOrganisersListOfLinks() throws {
        XCTAssertEqual(try parsed(.referees(links: [link], connected: [3])),
                       ["type": "referees", "connected": [3],
                        "referees": [["id": 3, "pitch": 2, "label": "Back pitch referee", "expiresAt": 1_790_043_200_000]]])
    }

    func testTheNewSessionReasonsAreSentenceKeys() {
        for reason in [SessionEndReason.revoked, .expired] {
            XCTAssertNotNil(SentenceKey(rawValue: reason.rawValue), reason.rawValue)
        }
    }
}
