import Foundation
import GatherModel
@testable import GatherPresenters
import XCTest

/// The pages say the server's sentences from their keys: every key the server can send has a
/// translation in every page catalogue (`Public/i18n/*.json`, `server.<key>`), and the wire carries
/// the key and params beside the English message.
final class SentenceCatalogueTests: XCTestCase {
    static let languages = ["en", "es", "pt", "fr", "de", "it"]

    private func catalogue(_ language: String) throws -> [String: Any] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Public/i18n/\(language).json")
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        return try XCTUnwrap(object as? [String: Any], "\(language).json is not an object")
    }

    func testEveryKeyTheServerCanSendIsTranslatedInEveryCatalogue() throws {
        for language in Self.languages {
            let entries = try catalogue(language)
            let missing = SentenceKey.allCases.filter { entries["server.\($0.rawValue)"] == nil }.map(\.rawValue)
            XCTAssertEqual(missing, [], "\(language).json lacks these server sentences")
        }
    }

    func testSessionReasonsAndErrorCodesAreKeys() {
        for reason in [SessionEndReason.removed, .passwordChanged, .loggedOut] {
            XCTAssertNotNil(SentenceKey(rawValue: reason.rawValue), reason.rawValue)
        }
        for code in [ErrorCode.badJSON, .badMessage, .unknownType, .internalError, .badInvite, .invalid, .usernameTaken,
                     .rateLimited, .unauthorized, .tlsRequired, .forbidden, .notFound] {
            XCTAssertNotNil(SentenceKey(rawValue: code.rawValue), code.rawValue)
        }
    }

    func testARejectionCarriesItsKeyAndParamsBesideTheEnglish() throws {
        let rejection = Rejection(.possibleDuplicate, .duplicateGoal,
                                  ["organiser": .text("maria"), "team": .text("Whites"), "seconds": .number(3)],
                                  "maria added a goal for Whites 3 s ago. Add another?")
        let json = MessagePresenter.json(.rejected(id: "c1", rejection: rejection, version: 4))
        XCTAssertEqual(json["reason"], "duplicate_goal")
        XCTAssertEqual(json["params"], ["organiser": "maria", "team": "Whites", "seconds": 3])
        XCTAssertEqual(json["message"], "maria added a goal for Whites 3 s ago. Add another?")
    }

    func testAnActivitySentenceIsWordedInEnglishFromItsKey() {
        XCTAssertEqual(ActivitySentence.english(Sentence(.addedGoal, ["team": .text("Whites"), "scorer": .text("Ann")])),
                       "Added a goal for Whites (Ann)")
        XCTAssertEqual(ActivitySentence.english(Sentence(.setTimer, ["minutes": .number(7), "seconds": .number(5)])),
                       "Set the timer to 7:05")
        XCTAssertEqual(ActivitySentence.english(ActivitySentence.earlier(kind: "startGather")), "Kicked off")
    }
}
