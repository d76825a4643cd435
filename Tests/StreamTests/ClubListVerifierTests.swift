import GatherModel
import GatherSecurity
import XCTest

@testable import GatherStream

/// What the venue believes of the club's stream (docs/PROTOCOL.md §21, settled 2 and 9): only a
/// list signed by the club's key over NAME + "\n" + body, for this club, whose subject names its
/// date and whose `seq` is higher than the one held.
final class ClubListVerifierTests: XCTestCase {
    private let key = try! Ed25519PrivateKey.generate()
    private lazy var publicKey = Ed25519PublicKey(rawBytes: try! key.publicKeyBytes())!
    private let club = ClubName("riverside-fc")!

    private func list(date: String = "41", club: String = "riverside-fc", seq: Int64 = 10) -> ClubDateList {
        ClubDateList(club: club, date: date, startsAt: 1_800_000_000_000, durationMinutes: 60, title: "Sunday",
                     place: "Riverside", status: "scheduled", seq: seq,
                     confirmed: [.init(memberId: "m1", name: "Ann", guests: 1)],
                     offered: [.init(memberId: "m2", name: "Bob", guests: 0, offerExpiresAt: 1_799_999_000_000)])
    }

    private func judge(_ envelope: StreamEnvelope, held: Int64? = nil, subject: String? = nil) -> ClubListVerdict {
        ClubListVerifier.judge(subject: subject ?? envelope.subject, body: envelope.body,
                               signature: envelope.header(StreamSignature.header), club: club, key: publicKey,
                               heldSeq: { _ in held })
    }

    func testTheClubsEnvelopeIsARollupSignedOverTheNameAndTheBody() throws {
        let envelope = try ClubListEnvelope.make(list(), club: club, key: key)
        XCTAssertEqual(envelope.subject, "club.riverside-fc.dates.41")
        XCTAssertEqual(envelope.header("Nats-Rollup"), "sub")
        XCTAssertTrue(envelope.stored)
        let signature = try XCTUnwrap(Base64.decoded(try XCTUnwrap(envelope.header(StreamSignature.header))))
        XCTAssertTrue(publicKey.verify(signature, of: Array("riverside-fc\n".utf8) + envelope.body))
        XCTAssertEqual(judge(envelope), .accept(list()))
        XCTAssertEqual(ClubDateList.decode(envelope.body), list(), "what is published reads back whole")
    }

    func testOnlyAHigherSeqIsActedOn() throws {
        let envelope = try ClubListEnvelope.make(list(seq: 10), club: club, key: key)
        XCTAssertEqual(judge(envelope, held: 9), .accept(list(seq: 10)))
        XCTAssertEqual(judge(envelope, held: 10), .older)
        XCTAssertEqual(judge(envelope, held: 11), .older)
    }

    func testForgedWrongAndUnreadableListsAreDropped() throws {
        let other = try Ed25519PrivateKey.generate()
        XCTAssertEqual(judge(try ClubListEnvelope.make(list(), club: club, key: other)), .drop(.badSignature))

        var tampered = try ClubListEnvelope.make(list(), club: club, key: key)
        tampered.body[tampered.body.count / 2] ^= 0x01
        XCTAssertEqual(judge(tampered), .drop(.badSignature))

        var unsigned = try ClubListEnvelope.make(list(), club: club, key: key)
        unsigned.headers.removeAll { $0.name == StreamSignature.header }
        XCTAssertEqual(judge(unsigned), .drop(.badSignature))

        // Signed for another club's name: the signature binds the name, so it does not verify here.
        let elsewhere = try ClubListEnvelope.make(list(), club: ClubName("hillside")!, key: key)
        XCTAssertEqual(judge(elsewhere, subject: "club.riverside-fc.dates.41"), .drop(.badSignature))

        // Signed by the club but naming another club in the body, or another date than the subject's.
        XCTAssertEqual(judge(try ClubListEnvelope.make(list(club: "hillside"), club: club, key: key)), .drop(.otherClub))
        XCTAssertEqual(judge(try ClubListEnvelope.make(list(date: "42"), club: club, key: key),
                             subject: "club.riverside-fc.dates.41"), .drop(.wrongSubject))
        XCTAssertEqual(judge(try ClubListEnvelope.make(list(), club: club, key: key), subject: "club.riverside-fc.other"),
                       .drop(.wrongSubject))

        var bad = list()
        bad.confirmed[0].guests = 4
        XCTAssertEqual(judge(try ClubListEnvelope.make(bad, club: club, key: key)), .drop(.unreadable))
        bad = list()
        bad.confirmed[0].name = String(repeating: "n", count: 41)
        XCTAssertEqual(judge(try ClubListEnvelope.make(bad, club: club, key: key)), .drop(.unreadable))
        bad = list()
        bad.offered.append(bad.confirmed[0])
        XCTAssertEqual(judge(try ClubListEnvelope.make(bad, club: club, key: key)), .drop(.unreadable), "a member twice")
    }

    func testTheWindowIsTheNextSevenDaysUntilTheMatchEnds() {
        let date = list()
        XCTAssertFalse(date.isInWindow(now: date.startsAt - 7 * 86_400_000))
        XCTAssertTrue(date.isInWindow(now: date.startsAt - 7 * 86_400_000 + 1))
        XCTAssertTrue(date.isInWindow(now: date.endsAt - 1))
        XCTAssertFalse(date.isInWindow(now: date.endsAt))
    }
}
