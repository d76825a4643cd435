import ArgumentParser
import Foundation
@testable import GatherApp
import XCTest

/// `gather relay`'s options: what it follows and serves, and every bad option refused before
/// anything starts, with a message that names it.
final class RelayCommandTests: XCTestCase {
    private var publicFolder: String!

    override func setUpWithError() throws {
        publicFolder = NSTemporaryDirectory() + "relay-tests-public-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: publicFolder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: publicFolder)
    }

    private func refusal(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            _ = try RelayCommand.parse(["--public", publicFolder] + arguments)
            XCTFail("\(arguments) was accepted", file: file, line: line)
            return ""
        } catch {
            return RelayCommand.message(for: error)
        }
    }

    func testDefaultsFollowTheVenuesOwnStreamOnPort8080() throws {
        let relay = try RelayCommand.parse(["--public", publicFolder, "--nats", "nats://127.0.0.1:4222", "--venue", "riverside",
                                            "--venue-key", Self.key])
        XCTAssertEqual(relay.venueKey.base64, Self.key)
        XCTAssertEqual(relay.streamName, "GATHER_riverside")
        XCTAssertEqual(relay.port, 8080)
        XCTAssertNil(relay.certificatePath)
        XCTAssertTrue(relay.relayID.hasSuffix("-\(ProcessInfo.processInfo.processIdentifier)"))
        let mirror = try RelayCommand.parse(["--public", publicFolder, "--nats", "nats://hub:4222", "--venue", "riverside",
                                             "--stream", "MIRROR_riverside", "--relay-id", "cloud-1", "--venue-key", Self.key])
        XCTAssertEqual(mirror.streamName, "MIRROR_riverside")
        XCTAssertEqual(mirror.relayID, "cloud-1")
    }

    func testBadOptionsAreRefusedWithWhatTheyTake() {
        XCTAssertTrue(refusal(["--venue", "riverside"]).contains("needs --nats URL"))
        XCTAssertTrue(refusal(["--nats", "nats://127.0.0.1:4222", "--venue", "River Side"]).contains("is not a venue name"))
        XCTAssertTrue(refusal(["--nats", "nats://127.0.0.1:4222", "--venue", "riverside", "--stream", "a.>"])
            .contains("--stream must be"))
        XCTAssertTrue(refusal(["--nats", "nats://127.0.0.1:4222", "--venue", "riverside", "--tls-cert", "c.pem"])
            .contains("--tls-cert and --tls-key go together"))
        XCTAssertTrue(refusal(["--nats", "nats://127.0.0.1:4222", "--venue", "riverside", "--relay-id", "A B"])
            .contains("--relay-id must be"))
        XCTAssertTrue(refusal(["--nats", "nats://127.0.0.1:4222", "--venue", "riverside", "--port", "70000"])
            .contains("--port must be"))
    }

    /// RFC 8032's first public key: any 32 bytes OpenSSL takes as an Ed25519 point.
    static let key = "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="

    func testTheVenuesKeyIsRequiredAndMustBeThirtyTwoBytesOfBase64OrAFileHoldingThem() throws {
        let base = ["--nats", "nats://127.0.0.1:4222", "--venue", "riverside"]
        XCTAssertTrue(refusal(base).contains("gather relay needs --venue-key KEY"))
        XCTAssertTrue(refusal(base + ["--venue-key", "abc"]).contains("--venue-key is not the venue's key"))
        XCTAssertTrue(refusal(base + ["--venue-key", String(Self.key.dropLast(4)) + "AA=="])
            .contains("--venue-key is not the venue's key"))
        XCTAssertTrue(refusal(base + ["--venue-key", "@/nonexistent/key"]).contains("not a readable file"))
        let file = NSTemporaryDirectory() + "venue-key-\(UUID().uuidString).txt"
        try Data((Self.key + "\n").utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let relay = try RelayCommand.parse(["--public", publicFolder] + base + ["--venue-key", "@\(file)"])
        XCTAssertEqual(relay.venueKey.base64, Self.key)
    }
}
