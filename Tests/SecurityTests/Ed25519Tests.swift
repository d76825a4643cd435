import Foundation
import XCTest

@testable import GatherSecurity

final class Ed25519Tests: XCTestCase {
    func testASignatureVerifiesOnlyForItsMessageAndKey() throws {
        let key = try Ed25519PrivateKey.generate()
        let publicKey = try XCTUnwrap(Ed25519PublicKey(rawBytes: try key.publicKeyBytes()))
        let message = Array("epoch\n{\"type\":\"patch\"}".utf8)
        let signature = try key.sign(message)
        XCTAssertEqual(signature.count, 64)
        XCTAssertTrue(publicKey.verify(signature, of: message))
        XCTAssertFalse(publicKey.verify(signature, of: message + [0x20]))
        var flipped = signature
        flipped[10] ^= 0x01
        XCTAssertFalse(publicKey.verify(flipped, of: message))
        XCTAssertFalse(publicKey.verify(Array(signature.prefix(63)), of: message))
        let other = try XCTUnwrap(Ed25519PublicKey(rawBytes: try Ed25519PrivateKey.generate().publicKeyBytes()))
        XCTAssertFalse(other.verify(signature, of: message))
        XCTAssertTrue(publicKey.verify(try key.sign([]), of: []))
    }

    /// RFC 8032's first test vector, through a PKCS#8 PEM: the bytes OpenSSL signs are exactly Ed25519's.
    func testRFC8032VectorOne() throws {
        let seed = hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
        let pkcs8 = hex("302e020100300506032b657004220420") + seed
        let pem = "-----BEGIN PRIVATE KEY-----\n\(Base64.encoded(pkcs8))\n-----END PRIVATE KEY-----\n"
        let key = try XCTUnwrap(Ed25519PrivateKey.load(pem: Data(pem.utf8)))
        XCTAssertEqual(try key.publicKeyBytes(), hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"))
        XCTAssertEqual(try key.sign([]), hex("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
                                             + "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"))
    }

    func testOnlyThirtyTwoBytesMakeAPublicKey() {
        XCTAssertNil(Ed25519PublicKey(rawBytes: []))
        XCTAssertNil(Ed25519PublicKey(rawBytes: [UInt8](repeating: 1, count: 31)))
        XCTAssertNil(Ed25519PublicKey(rawBytes: [UInt8](repeating: 1, count: 33)))
    }

    func testTheVenueKeyIsMadeOnceWithMode0600AndKept() throws {
        let folder = NSTemporaryDirectory() + "venue-key-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try VenueKeyFile.ensure(in: folder)
        let path = folder + "/venue-key.pem"
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("-----BEGIN PRIVATE KEY-----"), text)
        XCTAssertEqual(try VenueKeyFile.ensure(in: folder).publicKeyBytes(), try first.publicKeyBytes())

        try Data("not a key".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try VenueKeyFile.ensure(in: folder)) { error in
            XCTAssertTrue("\(error)".contains("is not an Ed25519 private key"), "\(error)")
        }
    }

    private func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }
}
