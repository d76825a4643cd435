@testable import GatherSecurity
import XCTest

final class SecureRandomTests: XCTestCase {
    func testTokensAre256BitsOfBase64URLAndNeverRepeat() {
        var seen = Set<String>()
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        for _ in 0..<1_000 {
            let token = SecureRandom.token()
            XCTAssertEqual(token.count, 43)
            XCTAssertTrue(token.allSatisfy(allowed.contains), token)
            seen.insert(token)
        }
        XCTAssertEqual(seen.count, 1_000)
    }

    func testUUIDsAreVersion4() {
        let pattern = try! NSRegularExpression(pattern: "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
        var seen = Set<String>()
        for _ in 0..<200 {
            let uuid = SecureRandom.uuidString()
            XCTAssertEqual(pattern.numberOfMatches(in: uuid, range: NSRange(location: 0, length: uuid.utf16.count)), 1, uuid)
            seen.insert(uuid)
        }
        XCTAssertEqual(seen.count, 200)
    }

    func testInviteCodesAvoidLookAlikeCharacters() {
        var letters = Set<Character>()
        for _ in 0..<500 {
            let code = SecureRandom.inviteCode()
            XCTAssertEqual(code.count, 8)
            XCTAssertFalse(code.contains { "0O1IL".contains($0) }, code)
            letters.formUnion(code)
        }
        XCTAssertEqual(letters, Set(SecureRandom.inviteAlphabet), "every letter of the alphabet shows up in 4,000 draws")
    }

    func testBytesHaveTheAskedLength() {
        XCTAssertEqual(SecureRandom.bytes(0), [])
        XCTAssertEqual(SecureRandom.bytes(17).count, 17)
        XCTAssertNotEqual(SecureRandom.bytes(32), SecureRandom.bytes(32))
    }
}

final class DigestTests: XCTestCase {
    func testSHA256KnownVectors() {
        XCTAssertEqual(Digest.sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(Digest.sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    func testColonHexIsHowPhonesShowFingerprints() {
        XCTAssertEqual(Digest.colonHex([0xAB, 0x01, 0xFF]), "AB:01:FF")
        XCTAssertEqual(Digest.colonHex(Digest.sha256([])).count, 32 * 3 - 1)
    }

    func testBase64RoundTripsAndRejectsGarbage() {
        for length in 0..<40 {
            let bytes = SecureRandom.bytes(length)
            XCTAssertEqual(Base64.decoded(Base64.encoded(bytes)), bytes)
        }
        XCTAssertEqual(Base64.encoded(Array("foobar".utf8)), "Zm9vYmFy")
        XCTAssertEqual(Base64.encoded(Array("fo".utf8)), "Zm8=")
        for bad in ["Zm9", "Zm9v!mFy", "Z===", "Zm=v", "=Zm9"] { XCTAssertNil(Base64.decoded(bad), bad) }
    }
}
