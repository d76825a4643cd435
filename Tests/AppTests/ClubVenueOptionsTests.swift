import ArgumentParser
import Foundation
@testable import GatherApp
import XCTest

/// `gather club serve --venue NAME --venue-key KEY|@FILE [--venue-stream S]`: the venue whose
/// results the club follows, refused apart from `--nats` or its key, and the stream it reads.
final class ClubVenueOptionsTests: XCTestCase {
    private let public_ = FileManager.default.currentDirectoryPath + "/Public"
    private let key = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
    private let nats = ["--nats", "nats://127.0.0.1:4222", "--club", "riverside-fc"]

    private func parse(_ arguments: [String]) throws -> ClubServeCommand {
        try ClubServeCommand.parse(["--postgres", "postgresql://gather@127.0.0.1:5432/club", "--public", public_] + arguments)
    }

    private func refusal(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            _ = try parse(arguments)
            XCTFail("\(arguments) was accepted", file: file, line: line)
            return ""
        } catch {
            return ClubServeCommand.message(for: error)
        }
    }

    func testTheVenueItsKeyAndTheHubsMirrorByDefault() throws {
        let command = try parse(nats + ["--venue", "riverside", "--venue-key", key])
        let configuration = try XCTUnwrap(command.venueResults.configuration(endpoint: command.nats.endpoint(clientName: "x")))
        XCTAssertEqual(configuration.venue.rawValue, "riverside")
        XCTAssertEqual(configuration.streamName, "GATHER_riverside")
        XCTAssertEqual(configuration.venueKey.base64, key)
        let elsewhere = try parse(nats + ["--venue", "riverside", "--venue-key", key, "--venue-stream", "VENUE_MIRROR"])
        XCTAssertEqual(try elsewhere.venueResults.configuration(endpoint: elsewhere.nats.endpoint(clientName: "x"))?.streamName,
                       "VENUE_MIRROR")
        XCTAssertNil(try parse(nats).venueResults.configuration(endpoint: nil), "no --venue: no follower")
    }

    func testTheVenueOptionsAreRefusedApartMisnamedOrWithoutAKey() {
        XCTAssertTrue(refusal(["--venue", "riverside", "--venue-key", key]).contains("--venue needs --nats"))
        XCTAssertTrue(refusal(nats + ["--venue", "riverside"]).contains("--venue needs --venue-key"))
        XCTAssertTrue(refusal(nats + ["--venue-key", key]).contains("go with --venue NAME"))
        XCTAssertTrue(refusal(nats + ["--venue", "Riverside FC", "--venue-key", key]).contains("is not a venue name"))
        XCTAssertTrue(refusal(nats + ["--venue", "riverside", "--venue-key", "QUJD"]).contains("is not the venue's key"))
        XCTAssertTrue(refusal(nats + ["--venue", "riverside", "--venue-key", key, "--venue-stream", "a.b"])
            .contains("--venue-stream must be a JetStream stream name"))
    }
}
