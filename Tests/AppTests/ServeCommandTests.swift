import ArgumentParser
import Foundation
@testable import GatherApp
import XCTest

/// `gather serve`'s options become one `ServerConfiguration`; every bad option is refused before
/// anything starts, with a message that names the option and what it takes.
final class ServeCommandTests: XCTestCase {
    private var publicFolder: String!

    override func setUpWithError() throws {
        publicFolder = NSTemporaryDirectory() + "app-tests-public-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: publicFolder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: publicFolder)
    }

    // MARK: - Helpers

    private func configuration(_ arguments: [String]) throws -> ServerConfiguration {
        try ServeCommand.parse(["--public", publicFolder] + arguments).serverConfiguration()
    }

    /// The message `gather serve` would print for these arguments, failing when they are accepted.
    private func refusal(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            _ = try ServeCommand.parse(["--public", publicFolder] + arguments)
            XCTFail("\(arguments) was accepted", file: file, line: line)
            return ""
        } catch {
            return ServeCommand.message(for: error)
        }
    }

    // MARK: - Accepted

    func testDefaultsMakeTheDocumentedConfiguration() throws {
        let value = try configuration([])
        XCTAssertEqual(value.host, "0.0.0.0")
        XCTAssertEqual(value.port, 8443)
        XCTAssertEqual(value.spectatorPort, 8080)
        XCTAssertEqual(value.dataDirectory, "data")
        XCTAssertEqual(value.certificates, .localCA(directory: "Certificates"))
        XCTAssertEqual(value.publicDirectory, publicFolder)
        XCTAssertEqual(value.maximumConnections, 20_000)
        XCTAssertEqual(value.maximumConnectionsPerAddress, 100)
        XCTAssertEqual(value.metricsReaders, [])
        XCTAssertEqual(value.pingIntervalSeconds, 30)
        XCTAssertEqual(value.stallTimeoutSeconds, 30)
        XCTAssertEqual(value.logLevel, .info)
    }

    func testEveryOptionReachesTheConfiguration() throws {
        let value = try configuration([
            "--host", "127.0.0.1", "--port", "0", "--spectator-port", "auto", "--data-dir", "/tmp/d",
            "--cert", "/tmp/c.pem", "--key", "/tmp/k.pem", "--invite-code", "abc-DEF_123",
            "--max-connections", "50", "--max-connections-per-address", "5", "--metrics-from", "192.168.1.0/24",
            "--ping-interval", "7", "--stall-timeout", "9", "--log-level", "DEBUG",
        ])
        XCTAssertEqual(value.host, "127.0.0.1")
        XCTAssertEqual(value.port, 0)
        XCTAssertEqual(value.spectatorPort, 0, "auto binds a free port")
        XCTAssertEqual(value.dataDirectory, "/tmp/d")
        XCTAssertEqual(value.certificates, .supplied(certificatePath: "/tmp/c.pem", privateKeyPath: "/tmp/k.pem"))
        XCTAssertEqual(value.inviteCode, "abc-DEF_123")
        XCTAssertEqual(value.maximumConnections, 50)
        XCTAssertEqual(value.maximumConnectionsPerAddress, 5)
        XCTAssertEqual(value.metricsReaders, [AddressRange(cidr: "192.168.1.0/24")!])
        XCTAssertEqual(value.pingIntervalSeconds, 7)
        XCTAssertEqual(value.stallTimeoutSeconds, 9)
        XCTAssertEqual(value.logLevel, .debug)
    }

    func testSpectatorPortZeroTurnsTheDoorOff() throws {
        XCTAssertNil(try configuration(["--spectator-port", "0"]).spectatorPort)
        XCTAssertEqual(try configuration(["--spectator-port", "9000"]).spectatorPort, 9000)
    }

    // MARK: - Refused, each with its own message

    func testBadPortsAreRefused() {
        XCTAssertTrue(refusal(["--port", "70000"]).contains("--port must be from 0 to 65535"))
        XCTAssertTrue(refusal(["--port", "-1"]).contains("--port"))
        XCTAssertTrue(refusal(["--port", "eighty"]).contains("--port"))
        XCTAssertTrue(refusal(["--spectator-port", "70000"]).contains("--spectator-port"))
        XCTAssertTrue(refusal(["--port", "9000", "--spectator-port", "9000"])
            .contains("--spectator-port must differ from --port"))
    }

    /// A file keeps the code out of `ps`; it meets the same rule, and is not given with the option.
    func testTheInviteCodeFromAFileReachesTheConfigurationUnderTheSameRule() throws {
        let file = publicFolder + "/invite"
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data("Filed-Code_9\n".utf8)))
        XCTAssertEqual(try configuration(["--invite-code-file", file]).inviteCode, "Filed-Code_9")
        XCTAssertTrue(refusal(["--invite-code", "Given-1234", "--invite-code-file", file]).contains("not both"))
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data("short\n".utf8)))
        XCTAssertTrue(refusal(["--invite-code-file", file]).contains("must be 8–64 letters, digits, '-' or '_'"))
    }

    func testInviteCodesOutsideTheRuleAreRefused() {
        let rule = "must be 8–64 letters, digits, '-' or '_'"
        XCTAssertTrue(refusal(["--invite-code", "short"]).contains(rule), "too short")
        XCTAssertTrue(refusal(["--invite-code", String(repeating: "a", count: 65)]).contains(rule), "too long")
        XCTAssertTrue(refusal(["--invite-code", "has space1"]).contains(rule), "a space")
        XCTAssertTrue(refusal(["--invite-code", "josé-núñez"]).contains(rule), "not ASCII")
        XCTAssertNoThrow(try configuration(["--invite-code", String(repeating: "a", count: 64)]))
    }

    func testCertificateAndKeyGoTogether() {
        let message = "--cert and --key go together"
        XCTAssertTrue(refusal(["--cert", "/tmp/c.pem"]).contains(message))
        XCTAssertTrue(refusal(["--key", "/tmp/k.pem"]).contains(message))
        XCTAssertTrue(refusal(["--tls-cert", "/tmp/c.pem"]).contains("--tls-cert and --tls-key go together"))
        XCTAssertTrue(refusal(["--tls-key", "/tmp/k.pem"]).contains("--tls-cert and --tls-key go together"))
    }

    /// `serve` and `relay` spell their certificate options alike; `serve`'s first names still work
    /// and stay out of the help.
    func testTheCertificateOptionsHaveOneSpellingAndTheOldStillWorks() throws {
        let supplied = ServerConfiguration.Certificates.supplied(certificatePath: "/tmp/c.pem", privateKeyPath: "/tmp/k.pem")
        XCTAssertEqual(try configuration(["--tls-cert", "/tmp/c.pem", "--tls-key", "/tmp/k.pem"]).certificates, supplied)
        XCTAssertEqual(try configuration(["--cert", "/tmp/c.pem", "--key", "/tmp/k.pem"]).certificates, supplied)
        XCTAssertTrue(refusal(["--tls-cert", "/tmp/c.pem", "--cert", "/tmp/d.pem", "--tls-key", "/tmp/k.pem"])
            .contains("old names"))
        let help = ServeCommand.helpMessage()
        XCTAssertTrue(help.contains("--tls-cert") && help.contains("--tls-key"))
        XCTAssertFalse(help.contains("--cert <") || help.contains("--key <"), help)
        XCTAssertTrue(RelayCommand.helpMessage().contains("--tls-cert"))
    }

    func testLimitsOutOfRangeAreRefused() {
        XCTAssertTrue(refusal(["--max-connections", "0"]).contains("--max-connections must be from 1 to 1000000"))
        XCTAssertTrue(refusal(["--max-connections-per-address", "0"])
            .contains("--max-connections-per-address must be from 1 to 100000"))
        XCTAssertTrue(refusal(["--ping-interval", "0"]).contains("--ping-interval must be from 1 to 3600"))
        XCTAssertTrue(refusal(["--stall-timeout", "3601"]).contains("--stall-timeout must be from 1 to 3600"))
    }

    func testNetworksAndFoldersAreChecked() {
        XCTAssertTrue(refusal(["--metrics-from", "192.168.1.0/33"]).contains("--metrics-from must be a network"))
        XCTAssertTrue(refusal(["--metrics-from", "everyone"]).contains("--metrics-from must be a network"))
        XCTAssertTrue(refusal(["--public", "/nonexistent/pages"]).contains("--public /nonexistent/pages is not a readable folder"))
        XCTAssertTrue(refusal(["--host", ""]).contains("--host must be an address"))
        XCTAssertTrue(refusal(["--log-level", "loud"]).contains("--log-level"))
    }

    // MARK: - The venue stream

    func testNATSOptionsBecomeTheStreamSettings() throws {
        XCTAssertNil(try configuration([]).stream)
        let stream = try XCTUnwrap(configuration(["--nats", "nats://127.0.0.1:4222", "--venue", "riverside"]).stream)
        XCTAssertEqual(stream.venue.rawValue, "riverside")
        XCTAssertEqual(stream.endpoint.url, "nats://127.0.0.1:4222")
        XCTAssertEqual(stream.endpoint.credentials, .none)
        XCTAssertNil(stream.passwordWarning)
    }

    func testClubOptionsBecomeTheClubSettings() throws {
        let key = "sKAkjKdwZ0EbjBrI6Tm97rGvZ0xJHf7831XXQj27F0g="
        let club = try XCTUnwrap(configuration(["--nats", "nats://127.0.0.1:4222", "--venue", "riverside",
                                                "--club", "riverside-fc", "--club-key", key]).club)
        XCTAssertEqual(club.club.streamName, "CLUB_riverside-fc")
        XCTAssertEqual(club.hubDomain, "hub")
        XCTAssertEqual(club.key.base64, key)
        XCTAssertNil(try configuration([]).club)
        let file = publicFolder + "/club.key"
        try Data((key + "\n").utf8).write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(try configuration(["--nats", "nats://127.0.0.1:4222", "--venue", "riverside", "--club", "riverside-fc",
                                          "--club-key", "@" + file, "--club-domain", "cloud"]).club?.hubDomain, "cloud")
    }

    func testBadClubOptionsAreRefusedWithWhatTheyTake() {
        let key = "sKAkjKdwZ0EbjBrI6Tm97rGvZ0xJHf7831XXQj27F0g="
        XCTAssertTrue(refusal(["--club", "riverside-fc", "--club-key", key]).contains("--club needs --nats"))
        XCTAssertTrue(refusal(["--nats", "nats://127.0.0.1:4222", "--venue", "v", "--club", "riverside-fc"])
            .contains("--club needs --club-key"))
        XCTAssertTrue(refusal(["--club-key", key]).contains("--club-key needs --club"))
        XCTAssertTrue(refusal(["--nats", "nats://127.0.0.1:4222", "--venue", "v", "--club", "Riverside FC", "--club-key", key])
            .contains("is not a club name"))
        XCTAssertTrue(refusal(["--nats", "nats://127.0.0.1:4222", "--venue", "v", "--club", "fc", "--club-key", "short"])
            .contains("--club-key is not the club's key"))
        XCTAssertTrue(refusal(["--nats", "nats://127.0.0.1:4222", "--venue", "v", "--club", "fc", "--club-key", key,
                               "--club-domain", "a.b"]).contains("--club-domain"))
    }

    func testBadNATSOptionsAreRefusedWithWhatTheyTake() {
        XCTAssertTrue(refusal(["--nats", "nats://127.0.0.1:4222", "--venue", "River.Side"]).contains("is not a venue name"))
        XCTAssertTrue(refusal(["--venue", "x y"]).contains("is not a venue name"))
        XCTAssertTrue(refusal(["--nats", "http://example.org"]).contains("--nats must be a NATS address"))
        XCTAssertTrue(refusal(["--nats-user", "venue"]).contains("needs a password")
                      || refusal(["--nats-user", "venue"]).contains("need --nats"))
    }
}
