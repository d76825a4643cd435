@testable import GatherSecurity
import XCTest

final class PasswordHasherTests: XCTestCase {
    /// Cheap parameters so the suite stays quick; one test below uses the product's defaults.
    private let hasher = PasswordHasher(logN: 10, r: 8, p: 1)

    func testTheRightPasswordVerifiesAndAWrongOneDoesNot() {
        let encoded = hasher.hash("correct horse battery")
        XCTAssertTrue(hasher.verify("correct horse battery", against: encoded))
        XCTAssertFalse(hasher.verify("correct horse batterY", against: encoded))
        XCTAssertFalse(hasher.verify("", against: encoded))
    }

    func testTheEncodingNamesTheParametersAndNeverContainsThePassword() {
        let encoded = hasher.hash("hunter22hunter22")
        XCTAssertTrue(encoded.hasPrefix("$scrypt$ln=10,r=8,p=1$"), encoded)
        XCTAssertFalse(encoded.contains("hunter22"))
        let parsed = PasswordHasher.parse(encoded)
        XCTAssertEqual(parsed?.salt.count, 16)
        XCTAssertEqual(parsed?.hash.count, 32)
    }

    /// An unknown username's login is checked against the decoy: as much scrypt as a real
    /// account's (the same parameters, salt and hash sizes, so `verify` computes it whole), and
    /// no password gets in, the empty one included.
    func testTheDecoyCostsWhatARealHashCostsAndLetsNoPasswordIn() {
        let decoy = hasher.decoy()
        let real = hasher.hash("a real password")
        XCTAssertEqual(decoy.split(separator: "$")[1], real.split(separator: "$")[1])
        let parsed = PasswordHasher.parse(decoy), parsedReal = PasswordHasher.parse(real)
        XCTAssertEqual(parsed?.logN, parsedReal?.logN)
        XCTAssertEqual(parsed?.r, parsedReal?.r)
        XCTAssertEqual(parsed?.p, parsedReal?.p)
        XCTAssertEqual(parsed?.salt.count, parsedReal?.salt.count)
        XCTAssertEqual(parsed?.hash.count, parsedReal?.hash.count)
        for password in ["", "a real password", "password123", String(repeating: "x", count: 128)] {
            XCTAssertFalse(hasher.verify(password, against: decoy), password)
        }
        XCTAssertNotEqual(hasher.decoy(), decoy, "each server start makes its own")
    }

    func testTheSameBytesHashDifferentlyEachTime() {
        XCTAssertNotEqual(hasher.hash("same password"), hasher.hash("same password"))
    }

    func testAHashMadeWithOtherParametersStillVerifies() {
        let stronger = PasswordHasher(logN: 11, r: 4, p: 2).hash("a long enough password")
        XCTAssertTrue(hasher.verify("a long enough password", against: stronger))
    }

    func testMalformedOrAbusiveEncodingsAreFalseNotACrash() {
        let good = hasher.hash("password123")
        let salt = good.split(separator: "$")[2]
        let hash = good.split(separator: "$")[3]
        let cases = [
            "", "$", "plain", "$scrypt$", "$bcrypt$ln=10,r=8,p=1$\(salt)$\(hash)",
            "$scrypt$ln=30,r=8,p=1$\(salt)$\(hash)",       // a billion rounds: refused, not computed
            "$scrypt$ln=10,r=99,p=1$\(salt)$\(hash)",
            "$scrypt$ln=20,r=16,p=1$\(salt)$\(hash)",    // in range, but 2 GiB: refused up front
            "$scrypt$ln=10,r=8$\(salt)$\(hash)",
            "$scrypt$ln=10,r=8,p=1,p=2$\(salt)$\(hash)",
            "$scrypt$ln=10,r=8,p=1$!!!!$\(hash)",
            "$scrypt$ln=10,r=8,p=1$\(salt)$AAAA",
            "$scrypt$ln=ten,r=8,p=1$\(salt)$\(hash)",
            good + "$extra",
        ]
        for encoded in cases { XCTAssertFalse(hasher.verify("password123", against: encoded), encoded) }
    }

    /// Whatever `acceptable` lets through, OpenSSL must really compute, or `hash` would trap.
    func testEveryAcceptedCheapParameterSetReallyHashes() {
        for logN in 10...12 {
            for r in [1, 2, 8, 16] {
                for p in [1, 16] where PasswordHasher.acceptable(logN: logN, r: r, p: p) {
                    XCTAssertNotNil(PasswordHasher.scrypt("pw", salt: [1, 2, 3, 4, 5, 6, 7, 8], logN: logN, r: r, p: p),
                                    "ln=\(logN) r=\(r) p=\(p)")
                }
            }
        }
        XCTAssertFalse(PasswordHasher.acceptable(logN: 16, r: 1, p: 1), "N must stay below 2^(16·r)")
        XCTAssertFalse(PasswordHasher.acceptable(logN: 18, r: 8, p: 1), "256 MiB and more is refused")
        XCTAssertTrue(PasswordHasher.acceptable(logN: 17, r: 8, p: 1))
    }

    func testProductDefaultsAreScryptN32768() {
        let product = PasswordHasher()
        let encoded = product.hash("correct horse battery")
        XCTAssertTrue(encoded.hasPrefix("$scrypt$ln=15,r=8,p=3$"))
        XCTAssertTrue(product.verify("correct horse battery", against: encoded))
    }
}
