import COpenSSL
import Foundation
@testable import GatherCertificates
import XCTest

/// Issue 16: phones trust the local CA for everything unless the CA itself says otherwise, so
/// a leaked CA key must not be able to vouch for a bank. These sign such certificates with the
/// real CA key and ask the real `openssl verify` (and OpenSSL's API) whether a phone would accept them.
final class NameConstraintsTests: XCTestCase {
    private var directory = ""
    private let identity = MachineIdentity(hostName: "Pitch-Laptop", ipAddresses: ["192.168.1.20", "fd00::20"])
    private let now = Date(timeIntervalSince1970: 1_795_000_000)

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "constraints-\(UUID().uuidString)/certs"
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent)
    }

    private func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

    private func authorityKey() throws -> PrivateKey {
        try XCTUnwrap(PrivateKey.load(pem: try XCTUnwrap(FileManager.default.contents(atPath: path("ca-key.pem")))))
    }

    /// A certificate for `dns`/`ips` signed with the CA's own key: what a thief of that key would make.
    private func forge(dns: [String], ips: [String], named file: String) throws -> Certificate {
        let authority = try Certificate.load(path: path("ca.pem"))
        let forged = try CertificateIssuer.makeServer(key: try PrivateKey.generateP256(), commonName: dns.first ?? "x",
                                                      dnsNames: dns, ipAddresses: ips, authority: authority,
                                                      authorityKey: try authorityKey(), now: now)
        try forged.pem().write(to: URL(fileURLWithPath: path(file)))
        return forged
    }

    /// `openssl verify` as a person would run it, at the tests' clock; nil when no CLI is installed.
    private func opensslVerify(_ file: String, caFile: String = "ca.pem") throws -> (ok: Bool, output: String)? {
        let tool = "/usr/bin/openssl"
        guard FileManager.default.isExecutableFile(atPath: tool) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["verify", "-CAfile", path(caFile), "-purpose", "sslserver",
                             "-attime", String(Int(now.timeIntervalSince1970)), path(file)]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus == 0, output)
    }

    // MARK: - The extension

    func testTheCAsNameConstraintsAreCriticalAndNameOnlyLocalPlaces() throws {
        _ = try CertificateAuthority.ensure(in: directory, identity: identity, now: now)
        let authority = try Certificate.load(path: path("ca.pem"))
        XCTAssertTrue(authority.hasNameConstraints)
        XCTAssertTrue(authority.nameConstraintsAreCritical, "a phone that cannot read them must refuse the CA")
        for name in ["DNS:localhost", "DNS:pitch-laptop", "DNS:pitch-laptop.local", "DNS:other-laptop.local",
                     "IP:127.0.0.1", "IP:10.1.2.3", "IP:172.31.255.1", "IP:192.168.1.20", "IP:169.254.3.4",
                     "IP:::1", "IP:fe80::1", "IP:fd00::20"] {
            XCTAssertTrue(authority.permits(subjectAltName: name), name)
        }
        for name in ["DNS:www.example-bank.com", "DNS:google.com", "DNS:localhost.example.com", "DNS:pitch-laptop.com",
                     "IP:8.8.8.8", "IP:172.32.0.1", "IP:11.0.0.1", "IP:2001:db8::1", "IP:::ffff:8.8.8.8"] {
            XCTAssertFalse(authority.permits(subjectAltName: name), name)
        }
    }

    func testOpenSSLVerifyRefusesABankAndAPublicAddressSignedWithTheCAKeyButAcceptsTheServer() throws {
        _ = try CertificateAuthority.ensure(in: directory, identity: identity, now: now)
        let authority = try Certificate.load(path: path("ca.pem"))
        let bank = try forge(dns: ["www.example-bank.com"], ips: [], named: "bank.pem")
        let publicAddress = try forge(dns: [], ips: ["93.184.216.34"], named: "public.pem")
        let server = try Certificate.load(path: path("server.pem"))

        XCTAssertTrue(bank.isSigned(by: try authorityKey()), "the forgery really carries the CA's signature")
        XCTAssertFalse(bank.verifies(against: authority, at: now, host: "www.example-bank.com"))
        XCTAssertFalse(publicAddress.verifies(against: authority, at: now, ip: "93.184.216.34"))
        XCTAssertTrue(server.verifies(against: authority, at: now, host: "pitch-laptop.local"))
        XCTAssertTrue(server.verifies(against: authority, at: now, ip: "192.168.1.20"))

        guard let serverVerdict = try opensslVerify("server.pem"), let bankVerdict = try opensslVerify("bank.pem"),
              let publicVerdict = try opensslVerify("public.pem")
        else { throw XCTSkip("no openssl command on this machine; the API checks above ran") }
        XCTAssertTrue(serverVerdict.ok, serverVerdict.output)
        XCTAssertFalse(bankVerdict.ok, bankVerdict.output)
        XCTAssertTrue(bankVerdict.output.contains("permitted subtree violation"), bankVerdict.output)
        XCTAssertFalse(publicVerdict.ok, publicVerdict.output)
        XCTAssertTrue(publicVerdict.output.contains("permitted subtree violation"), publicVerdict.output)
    }

    func testAPublicAddressOfTheMachineIsPermittedExactlyAndNoNeighbour() throws {
        let exposed = MachineIdentity(hostName: "pitch-laptop", ipAddresses: ["203.0.113.7", "192.168.1.20", "2001:db8::7"])
        _ = try CertificateAuthority.ensure(in: directory, identity: exposed, now: now)
        let authority = try Certificate.load(path: path("ca.pem")), server = try Certificate.load(path: path("server.pem"))
        XCTAssertTrue(server.verifies(against: authority, at: now, ip: "203.0.113.7"))
        XCTAssertTrue(server.verifies(against: authority, at: now, ip: "2001:db8::7"))
        XCTAssertFalse(authority.permits(subjectAltName: "IP:203.0.113.8"))
        XCTAssertFalse(authority.permits(subjectAltName: "IP:2001:db8::8"))
    }

    func testANameTheCACannotCoverIsLeftOutOfTheServerCertificateAndNamedInAWarning() throws {
        _ = try CertificateAuthority.ensure(in: directory, identity: identity, now: now)
        let renamed = MachineIdentity(hostName: "clubhouse", ipAddresses: ["192.168.1.20", "198.51.100.9"])
        let bundle = try CertificateAuthority.ensure(in: directory, identity: renamed, now: now)
        XCTAssertTrue(bundle.issuedNow)
        let authority = try Certificate.load(path: path("ca.pem")), server = try Certificate.load(path: path("server.pem"))
        XCTAssertEqual(server.subjectAltNames.dns, ["localhost", "clubhouse.local"])
        XCTAssertEqual(server.subjectAltNames.ips, ["127.0.0.1", "::1", "192.168.1.20"])
        XCTAssertEqual(server.commonName, "localhost", "no name the CA cannot vouch for, even in the subject")
        XCTAssertTrue(server.verifies(against: authority, at: now, host: "clubhouse.local"), "the rest still works")
        XCTAssertEqual(bundle.warnings.count, 1, "\(bundle.warnings)")
        let warning = try XCTUnwrap(bundle.warnings.first)
        XCTAssertTrue(warning.contains("clubhouse, 198.51.100.9"), warning)
        XCTAssertTrue(warning.contains("gather ca renew --cert-dir \(directory)"), warning)
        XCTAssertFalse(try CertificateAuthority.ensure(in: directory, identity: renamed, now: now).issuedNow,
                       "the narrower certificate is good enough on the next start")
    }

    // MARK: - A CA from before, and `gather ca renew`

    /// A CA as releases before issue 16 made it, with its server certificate.
    private func makeOldCA() throws {
        let files = CertificateFiles(directory: directory)
        try files.createDirectory()
        let key = try PrivateKey.generateP256()
        let authority = try CertificateIssuer.makeAuthority(key: key, hostName: "pitch-laptop", scope: nil, now: now)
        try files.writeSecret(key.pem(), to: "ca-key.pem")
        try files.writePublic(authority.pem(), to: "ca.pem")
    }

    func testAnOldCAWithoutConstraintsIsKeptAndWarnedAboutNamingTheCommand() throws {
        try makeOldCA()
        let before = try Data(contentsOf: URL(fileURLWithPath: path("ca.pem")))
        XCTAssertFalse(try Certificate.load(path: path("ca.pem")).hasNameConstraints)
        let bundle = try CertificateAuthority.ensure(in: directory, identity: identity, now: now)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path("ca.pem"))), before, "never replaced silently")
        XCTAssertEqual(bundle.warnings.count, 1, "\(bundle.warnings)")
        let warning = try XCTUnwrap(bundle.warnings.first)
        XCTAssertTrue(warning.contains("without name constraints"), warning)
        XCTAssertTrue(warning.contains("`gather ca renew --cert-dir \(directory)`"), warning)
        let server = try Certificate.load(path: path("server.pem"))
        XCTAssertTrue(server.verifies(against: try Certificate.load(path: path("ca.pem")), at: now, host: "localhost"),
                      "the old CA keeps working until it is renewed")
    }

    func testRenewMakesAConstrainedCAAndKeepsTheOldFilesPrivately() throws {
        try makeOldCA()
        _ = try CertificateAuthority.ensure(in: directory, identity: identity, now: now)
        let old = ["ca.pem", "ca-key.pem", "server.pem", "server-key.pem"].reduce(into: [String: Data]()) { kept, name in
            kept[name] = FileManager.default.contents(atPath: path(name))
        }
        let oldAuthority = try Certificate.load(path: path("ca.pem"))

        let renewal = try CertificateAuthority.renew(in: directory, identity: identity, now: now)
        XCTAssertEqual(renewal.keptFiles, ["ca.pem", "ca-key.pem", "server.pem", "server-key.pem"].map { path($0 + ".old") })
        for (name, bytes) in old {
            XCTAssertEqual(FileManager.default.contents(atPath: path(name + ".old")), bytes, name)
            XCTAssertNotEqual(FileManager.default.contents(atPath: path(name)), bytes, "\(name) is new")
        }
        for key in ["ca-key.pem.old", "server-key.pem.old", "ca-key.pem", "server-key.pem"] {
            XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path(key))[.posixPermissions] as? Int, 0o600, key)
        }
        let authority = try Certificate.load(path: path("ca.pem")), server = try Certificate.load(path: path("server.pem"))
        XCTAssertTrue(authority.hasNameConstraints)
        XCTAssertEqual(renewal.bundle.fingerprintSHA256, authority.sha256Fingerprint)
        XCTAssertNotEqual(renewal.bundle.fingerprintSHA256, oldAuthority.sha256Fingerprint, "phones see a new CA")
        XCTAssertEqual(renewal.bundle.warnings, [])
        XCTAssertTrue(server.verifies(against: authority, at: now, host: "pitch-laptop"))
        XCTAssertFalse(server.verifies(against: oldAuthority, at: now, host: "pitch-laptop"))
        if let verdict = try opensslVerify("server.pem") { XCTAssertTrue(verdict.ok, verdict.output) }

        let next = try CertificateAuthority.ensure(in: directory, identity: identity, now: now)
        XCTAssertFalse(next.issuedNow, "the next start uses what renew made")
        XCTAssertEqual(next.warnings, [])
    }

    func testRenewOnAnEmptyFolderSimplyMakesOne() throws {
        let renewal = try CertificateAuthority.renew(in: directory, identity: identity, now: now)
        XCTAssertEqual(renewal.keptFiles, [])
        XCTAssertTrue(try Certificate.load(path: path("ca.pem")).hasNameConstraints)
    }

    // MARK: - Networks

    func testNetworksMatchByPrefixAndPrintAsOpenSSLReadsThem() throws {
        let network = try XCTUnwrap(IPNetwork(cidr: "172.16.0.0/12"))
        XCTAssertEqual(network.maskText, "255.240.0.0")
        XCTAssertTrue(network.contains(try XCTUnwrap(IPNetwork(host: "172.31.1.1"))))
        XCTAssertFalse(network.contains(try XCTUnwrap(IPNetwork(host: "172.32.0.1"))))
        XCTAssertEqual(IPNetwork(cidr: "fc00::/7")?.maskText, "fe00::")
        XCTAssertEqual(IPNetwork(cidr: "10.9.9.9/8")?.addressText, "10.0.0.0")
        XCTAssertNil(IPNetwork(cidr: "10.0.0.0/33"))
        XCTAssertNil(IPNetwork(cidr: "nonsense/8"))
        let scope = AuthorityScope(identity: MachineIdentity(hostName: "Box.local", ipAddresses: ["8.8.4.4", "10.0.0.2"]))
        XCTAssertEqual(scope.dnsNames, ["localhost", "local"], "box.local is under local already")
        XCTAssertEqual(scope.networks.last, IPNetwork(host: "8.8.4.4"), "a public address, exactly")
        XCTAssertEqual(scope.networks.count, AuthorityScope.privateNetworks.count + 1)
    }
}
