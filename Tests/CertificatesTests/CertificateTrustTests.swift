import COpenSSL
import Foundation
@testable import GatherCertificates
import XCTest

/// The CA is what phones trust by hand, so these pin what it looks like, that it is never
/// touched once made, and exactly which names and addresses the server certificate carries.
final class CertificateTrustTests: XCTestCase {
    private var directory = ""
    private let identity = MachineIdentity(hostName: "pitch-laptop", ipAddresses: ["192.168.1.20", "fd00::20"])
    private let now = Date(timeIntervalSince1970: 1_795_000_000)

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "trust-\(UUID().uuidString)/certs"
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent)
    }

    private func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

    /// Every file in the folder with its bytes: proof that a call changed nothing.
    private func snapshot() -> [String: Data] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return Dictionary(uniqueKeysWithValues: names.map { ($0, FileManager.default.contents(atPath: path($0)) ?? Data()) })
    }

    // MARK: - What the certificates say

    func testTheCAIsAP256CAThatCanOnlySignCertificates() throws {
        _ = try CertificateAuthority.ensure(in: directory, identity: identity, now: now)
        let authority = try Certificate.load(path: path("ca.pem"))
        XCTAssertEqual(authority.commonName, "Football Gather Live local CA (pitch-laptop)")
        XCTAssertEqual(X509_check_ca(authority.pointer), 1)
        XCTAssertEqual(authority.keyUsage, UInt32(KU_KEY_CERT_SIGN | KU_CRL_SIGN))
        XCTAssertEqual(X509_get_signature_nid(authority.pointer), NID_ecdsa_with_SHA256)
        XCTAssertEqual(authority.lifetime, 3650 * 86_400, "trusted once by hand, kept for ten years")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: directory)[.posixPermissions] as? Int, 0o700)
    }

    func testTheServerCertificateNamesExactlyTheMachine() throws {
        _ = try CertificateAuthority.ensure(in: directory, identity: identity, now: now)
        let server = try Certificate.load(path: path("server.pem"))
        XCTAssertEqual(server.subjectAltNames.dns, ["localhost", "pitch-laptop", "pitch-laptop.local"])
        XCTAssertEqual(server.subjectAltNames.ips, ["127.0.0.1", "::1", "192.168.1.20", "fd00::20"])
        XCTAssertEqual(server.commonName, "pitch-laptop")
        XCTAssertTrue(server.allowsServerAuth)
        XCTAssertEqual(server.keyUsage, UInt32(KU_DIGITAL_SIGNATURE))
        XCTAssertGreaterThan(server.lifetime, 800 * 86_400, "not needlessly short: phones trust it for two years")
        XCTAssertEqual(Set(snapshot().keys), ["ca.pem", "ca-key.pem", "server.pem", "server-key.pem"], "no temporary files left")
    }

    func testAClientReachesItByEveryNameAndAddressAndByNoOther() throws {
        _ = try CertificateAuthority.ensure(in: directory, identity: identity, now: now)
        let authority = try Certificate.load(path: path("ca.pem")), server = try Certificate.load(path: path("server.pem"))
        for host in ["localhost", "pitch-laptop", "PITCH-LAPTOP.local"] {
            XCTAssertTrue(server.verifies(against: authority, at: now, host: host), host)
        }
        for ip in ["127.0.0.1", "::1", "192.168.1.20", "fd00:0::20"] {
            XCTAssertTrue(server.verifies(against: authority, at: now, ip: ip), ip)
        }
        XCTAssertFalse(server.verifies(against: authority, at: now, host: "pitch-laptop.example"))
        XCTAssertFalse(server.verifies(against: authority, at: now, ip: "192.168.1.21"))
        XCTAssertTrue(server.verifies(against: authority, at: now.addingTimeInterval(-1_800)), "a phone a little behind")
        XCTAssertFalse(server.verifies(against: authority, at: now.addingTimeInterval(826 * 86_400)))
    }

    // MARK: - The CA is never touched once made

    func testARestartLeavesEveryFileByteForByte() throws {
        _ = try CertificateAuthority.ensure(in: directory, identity: identity, now: now)
        let before = snapshot()
        let again = try CertificateAuthority.ensure(in: directory, identity: identity, now: now.addingTimeInterval(3_600))
        XCTAssertFalse(again.issuedNow)
        XCTAssertEqual(snapshot(), before)
    }

    func testAReissueKeepsTheCAFilesAndBringsAFreshServerKey() throws {
        _ = try CertificateAuthority.ensure(in: directory, identity: identity, now: now)
        let before = snapshot()
        var moved = identity
        moved.ipAddresses = ["10.0.0.7"]
        XCTAssertTrue(try CertificateAuthority.ensure(in: directory, identity: moved, now: now).issuedNow)
        let after = snapshot()
        XCTAssertEqual(after["ca.pem"], before["ca.pem"])
        XCTAssertEqual(after["ca-key.pem"], before["ca-key.pem"])
        XCTAssertNotEqual(after["server-key.pem"], before["server-key.pem"])
        XCTAssertEqual(try Certificate.load(path: path("server.pem")).subjectAltNames.ips, ["127.0.0.1", "::1", "10.0.0.7"])
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path("server-key.pem"))[.posixPermissions] as? Int, 0o600)
    }

    func testAServerCertificateFromAnotherCAIsReplaced() throws {
        let elsewhere = directory + "-other"
        _ = try CertificateAuthority.ensure(in: elsewhere, identity: identity, now: now)
        _ = try CertificateAuthority.ensure(in: directory, identity: identity, now: now)
        for name in ["server.pem", "server-key.pem"] {
            try FileManager.default.removeItem(atPath: path(name))
            try FileManager.default.copyItem(atPath: (elsewhere as NSString).appendingPathComponent(name), toPath: path(name))
        }
        XCTAssertTrue(try CertificateAuthority.ensure(in: directory, identity: identity, now: now).issuedNow)
        let authority = try Certificate.load(path: path("ca.pem")), server = try Certificate.load(path: path("server.pem"))
        XCTAssertTrue(server.verifies(against: authority, at: now, host: "localhost"))
    }

    func testACAKeyThatIsNotTheCAsIsRefusedAndLeftAlone() throws {
        let elsewhere = directory + "-other"
        _ = try CertificateAuthority.ensure(in: elsewhere, identity: identity, now: now)
        _ = try CertificateAuthority.ensure(in: directory, identity: identity, now: now)
        try FileManager.default.removeItem(atPath: path("ca-key.pem"))
        try FileManager.default.copyItem(atPath: (elsewhere as NSString).appendingPathComponent("ca-key.pem"),
                                         toPath: path("ca-key.pem"))
        let before = snapshot()
        XCTAssertThrowsError(try CertificateAuthority.ensure(in: directory, identity: identity, now: now)) { error in
            XCTAssertTrue(error is CertificateError)
            XCTAssertTrue("\(error)".contains("does not match"), "\(error)")
            XCTAssertTrue("\(error)".contains(self.directory), "names the folder: \(error)")
        }
        XCTAssertEqual(snapshot(), before, "a CA phones may trust is never overwritten")
    }

    func testAnExpiredCAIsAnErrorThatSaysWhatToDo() throws {
        _ = try CertificateAuthority.ensure(in: directory, identity: identity, now: now)
        let before = snapshot()
        XCTAssertThrowsError(try CertificateAuthority.ensure(in: directory, identity: identity,
                                                             now: now.addingTimeInterval(3651 * 86_400))) { error in
            XCTAssertTrue("\(error)".contains("expired"), "\(error)")
            XCTAssertTrue("\(error)".contains(self.path("ca.pem")), "\(error)")
        }
        XCTAssertEqual(snapshot(), before)
    }
}
