import COpenSSL
@testable import GatherCertificates
import XCTest

final class CertificateAuthorityTests: XCTestCase {
    private var directory: String!
    private let identity = MachineIdentity(hostName: "Pitch-Laptop", ipAddresses: ["192.168.1.20", "fd00::20"])
    private let now = Date(timeIntervalSince1970: 1_795_000_000)

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "certs-\(UUID().uuidString)/nested"
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent)
    }

    private func load(_ name: String) throws -> Certificate {
        try XCTUnwrap(Certificate.load(pem: try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))))
    }

    // MARK: - First start

    func testFirstStartMakesACAAndAServerCertificateThatVerifiesAgainstIt() throws {
        let bundle = try CertificateAuthority.ensure(in: directory, identity: identity, now: now)
        XCTAssertTrue(bundle.issuedNow)
        XCTAssertEqual(bundle.caCertificatePath, directory + "/ca.pem")
        XCTAssertEqual(bundle.certificatePath, directory + "/server.pem")

        let authority = try load("ca.pem"), server = try load("server.pem")
        let store = X509_STORE_new()!, context = X509_STORE_CTX_new()!
        defer { X509_STORE_CTX_free(context); X509_STORE_free(store) }
        XCTAssertEqual(X509_STORE_add_cert(store, authority.pointer), 1)
        XCTAssertEqual(X509_STORE_CTX_init(context, store, server.pointer, nil), 1)
        let checkTime = time_t(now.timeIntervalSince1970)
        X509_STORE_CTX_set_time(context, 0, checkTime)
        XCTAssertEqual(X509_verify_cert(context), 1, "the server certificate chains to our CA")
        XCTAssertEqual(X509_check_ca(authority.pointer), 1)
        XCTAssertEqual(X509_check_purpose(server.pointer, X509_PURPOSE_SSL_SERVER, 0), 1, "serverAuth")
        XCTAssertEqual(X509_check_ca(server.pointer), 0, "the server certificate cannot sign others")
        XCTAssertEqual(bundle.fingerprintSHA256, authority.sha256Fingerprint)
        XCTAssertEqual(bundle.fingerprintSHA256.split(separator: ":").count, 32)
    }

    func testTheServerCertificateMeetsApplesRules() throws {
        _ = try CertificateAuthority.ensure(in: directory, identity: identity, now: now)
        let server = try load("server.pem")
        for name in ["localhost", "pitch-laptop", "pitch-laptop.local"] {
            XCTAssertTrue(server.covers(dnsName: name), name)
        }
        for address in ["127.0.0.1", "::1", "192.168.1.20", "fd00::20"] {
            XCTAssertTrue(server.covers(ipAddress: address), address)
        }
        XCTAssertFalse(server.covers(dnsName: "evil.example"))
        XCTAssertFalse(server.covers(ipAddress: "192.168.1.21"))

        var days: Int32 = 0, seconds: Int32 = 0
        XCTAssertEqual(ASN1_TIME_diff(&days, &seconds, X509_get0_notBefore(server.pointer), X509_get0_notAfter(server.pointer)), 1)
        XCTAssertLessThanOrEqual(Int(days) * 86_400 + Int(seconds), 825 * 86_400)
        XCTAssertEqual(X509_get_signature_nid(server.pointer), NID_ecdsa_with_SHA256)
        let key = X509_get0_pubkey(server.pointer)!
        XCTAssertEqual(EVP_PKEY_get_base_id(key), EVP_PKEY_EC)
        XCTAssertEqual(EVP_PKEY_get_bits(key), 256)
        XCTAssertTrue(server.isValid(at: now))
    }

    func testPrivateKeysAreReadableByTheOwnerOnly() throws {
        _ = try CertificateAuthority.ensure(in: directory, identity: identity, now: now)
        for name in ["ca-key.pem", "server-key.pem"] {
            let mode = try FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.posixPermissions] as? Int
            XCTAssertEqual(mode, 0o600, name)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory + "/server-key.pem.partial"))
    }

    // MARK: - Later starts

    func testARestartReusesBothUnchanged() throws {
        let first = try CertificateAuthority.ensure(in: directory, identity: identity, now: now)
        let before = try Data(contentsOf: URL(fileURLWithPath: directory + "/server.pem"))
        let second = try CertificateAuthority.ensure(in: directory, identity: identity, now: now.addingTimeInterval(86_400))
        XCTAssertFalse(second.issuedNow)
        XCTAssertEqual(second.fingerprintSHA256, first.fingerprintSHA256)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: directory + "/server.pem")), before)
    }

    func testANewAddressReissuesTheServerCertificateButKeepsTheCA() throws {
        let first = try CertificateAuthority.ensure(in: directory, identity: identity, now: now)
        var moved = identity
        moved.ipAddresses.append("10.0.0.7")
        let second = try CertificateAuthority.ensure(in: directory, identity: moved, now: now)
        XCTAssertTrue(second.issuedNow)
        XCTAssertEqual(second.fingerprintSHA256, first.fingerprintSHA256, "phones keep trusting the same CA")
        XCTAssertTrue(try load("server.pem").covers(ipAddress: "10.0.0.7"))
    }

    func testACertificateNearItsEndIsRenewed() throws {
        _ = try CertificateAuthority.ensure(in: directory, identity: identity, now: now)
        let later = try CertificateAuthority.ensure(in: directory, identity: identity,
                                                    now: now.addingTimeInterval(810 * 86_400))
        XCTAssertTrue(later.issuedNow)
    }

    func testADamagedCAIsAnErrorNotASilentReplacement() throws {
        _ = try CertificateAuthority.ensure(in: directory, identity: identity, now: now)
        let caPath = directory + "/ca.pem"
        try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: caPath))
        XCTAssertThrowsError(try CertificateAuthority.ensure(in: directory, identity: identity, now: now)) { error in
            XCTAssertTrue("\(error)".contains("cannot be parsed"), "\(error)")
        }
        XCTAssertEqual(try String(contentsOfFile: caPath, encoding: .utf8), "not a certificate", "left for the user")

        try FileManager.default.removeItem(atPath: caPath)
        XCTAssertThrowsError(try CertificateAuthority.ensure(in: directory, identity: identity, now: now)) { error in
            XCTAssertTrue("\(error)".contains("incomplete"), "\(error)")
        }
    }

    func testAFolderThatCannotBeCreatedIsAClearError() {
        XCTAssertThrowsError(try CertificateAuthority.ensure(in: "/proc/certs", identity: identity, now: now)) { error in
            XCTAssertTrue("\(error)".contains("/proc/certs"), "\(error)")
        }
    }

    // MARK: - The user's own certificate

    func testUserSuppliedPairIsAcceptedAndAMismatchIsNot() throws {
        _ = try CertificateAuthority.ensure(in: directory, identity: identity, now: now)
        let own = try CertificateAuthority.userSupplied(certificatePath: directory + "/server.pem",
                                                        privateKeyPath: directory + "/server-key.pem")
        XCTAssertNil(own.caCertificatePath)
        XCTAssertEqual(own.fingerprintSHA256, try load("server.pem").sha256Fingerprint)

        XCTAssertThrowsError(try CertificateAuthority.userSupplied(certificatePath: directory + "/server.pem",
                                                                   privateKeyPath: directory + "/ca-key.pem")) { error in
            XCTAssertTrue("\(error)".contains("does not match"), "\(error)")
        }
        XCTAssertThrowsError(try CertificateAuthority.userSupplied(certificatePath: directory + "/missing.pem",
                                                                   privateKeyPath: directory + "/ca-key.pem")) { error in
            XCTAssertTrue("\(error)".contains("missing.pem"), "\(error)")
        }
        XCTAssertThrowsError(try CertificateAuthority.userSupplied(certificatePath: directory + "/server-key.pem",
                                                                   privateKeyPath: directory + "/server-key.pem")) { error in
            XCTAssertTrue("\(error)".contains("not a PEM certificate"), "\(error)")
        }
    }

    // MARK: - Names

    func testMachineNamesAreCleanAndDeduplicated() {
        XCTAssertEqual(MachineIdentity(hostName: "Pitch.Example.org", ipAddresses: []).dnsNames,
                       ["localhost", "pitch.example.org", "pitch.local"])
        XCTAssertEqual(MachineIdentity(hostName: "bad name!", ipAddresses: []).dnsNames, ["localhost"])
        XCTAssertEqual(MachineIdentity(hostName: "localhost", ipAddresses: ["127.0.0.1", "10.1.1.1"]).allIPAddresses,
                       ["127.0.0.1", "::1", "10.1.1.1"])
        let current = MachineIdentity.current()
        XCTAssertFalse(current.hostName.isEmpty)
        XCTAssertFalse(current.ipAddresses.contains("127.0.0.1"))
        XCTAssertFalse(current.ipAddresses.contains { $0.hasPrefix("fe80") })
    }
}
