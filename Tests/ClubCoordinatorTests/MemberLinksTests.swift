@testable import ClubCoordinator
import ClubModel
import XCTest

/// A member's link is rebuilt from its seed and the club's secret (so a mail can carry it) and is
/// 128 bits of unpadded base64url; a new seed is a different link, another club's secret too.
final class MemberLinksTests: XCTestCase {
    func testATokenIsTwentyTwoCharactersOfBase64URLAndTheSameForTheSameSeed() {
        let secret = MemberLinks.newSecret()
        let seed = MemberLinks.newSeed()
        let token = MemberLinks.token(seed: seed, secret: secret)
        XCTAssertEqual(token.count, 22)
        XCTAssertNotNil(ClubRoute.token(Substring(token)))
        XCTAssertEqual(MemberLinks.token(seed: seed, secret: secret), token)
        XCTAssertNotEqual(MemberLinks.token(seed: MemberLinks.newSeed(), secret: secret), token)
        XCTAssertNotEqual(MemberLinks.token(seed: seed, secret: MemberLinks.newSecret()), token)
    }

    func testOnlyTheTokensHashIsWhatTheDatabaseSees() {
        let token = MemberLinks.token(seed: MemberLinks.newSeed(), secret: MemberLinks.newSecret())
        let hash = MemberLinks.hash(token: token)
        XCTAssertEqual(hash.count, 64)
        XCTAssertFalse(hash.contains(token))
        XCTAssertEqual(MemberLinks.hash(token: token), hash)
    }

    func testAThousandSeedsGiveAThousandTokens() {
        let secret = MemberLinks.newSecret()
        XCTAssertEqual(Set((0..<1_000).map { _ in MemberLinks.token(seed: MemberLinks.newSeed(), secret: secret) }).count, 1_000)
    }

    func testTheCalendarSaysTheStateInTheReadersLanguage() {
        let waiting = Answer(memberId: "1", answer: .in, state: .waiting, answeredAt: 0)
        XCTAssertEqual(CalendarWords.state(waiting, position: 2, language: .en), "Waiting (2nd)")
        XCTAssertEqual(CalendarWords.state(waiting, position: 11, language: .en), "Waiting (11th)")
        XCTAssertEqual(CalendarWords.state(waiting, position: 1, language: .fr), "En attente (1er)")
        XCTAssertEqual(CalendarWords.state(nil, position: nil, language: .es), "Sin responder")
        XCTAssertEqual(CalendarWords.state(Answer(memberId: "1", answer: .out, state: .out, answeredAt: 0), position: nil,
                                           language: .de), "Abgesagt")
    }

    func testAFollowNamesAMemberOrAnOrganiserAndNothingElse() {
        XCTAssertEqual(ClubLive.follow(#"{"type":"follow","member":"abc"}"#), .member("abc"))
        XCTAssertEqual(ClubLive.follow(#"{"type":"follow","organiser":"xyz"}"#), .organiser("xyz"))
        XCTAssertNil(ClubLive.follow(#"{"type":"follow"}"#))
        XCTAssertNil(ClubLive.follow(#"{"type":"subscribe","member":"abc"}"#))
        XCTAssertNil(ClubLive.follow("not json"))
        XCTAssertNil(ClubLive.follow(#"{"type":"follow","member":"\#(String(repeating: "a", count: 65))"}"#))
    }
}
