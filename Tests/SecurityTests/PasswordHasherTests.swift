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
            "$scrypt$ln=10,r=8$\(salt)$\(hash)",
            "$scrypt$ln=10,r=8,p=1,p=2$\(salt)$\(hash)",
            "$scrypt$ln=10,r=8,p=1$!!!!$\(hash)",
            "$scrypt$ln=10,r=8,p=1$\(salt)$AAAA",
            "$scrypt$ln=ten,r=8,p=1$\(salt)$\(hash)",
            good + "$extra",
        ]
        for encoded in cases { XCTAssertFalse(hasher.verify("password123", against: encoded), encoded) }
    }

    func testProductDefaultsAreScryptN32768() {
        let product = PasswordHasher()
        let encoded = product.hash("correct horse battery")
        XCTAssertTrue(encoded.hasPrefix("$scrypt$ln=15,r=8,p=3$"))
        XCTAssertTrue(product.verify("correct horse battery", against: encoded))
    }
}
