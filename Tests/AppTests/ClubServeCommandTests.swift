import ArgumentParser
import Foundation
@testable import GatherApp
import XCTest

/// `gather club serve --nats URL --club NAME`: the two go together and the name is a stream name.
final class ClubServeCommandTests: XCTestCase {
    private let public_ = FileManager.default.currentDirectoryPath + "/Public"

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

    func testNATSAndAClubNameMakeTheStreamsName() throws {
        let command = try parse(["--nats", "nats://127.0.0.1:4222", "--club", "riverside-fc"])
        XCTAssertEqual(command.clubName?.streamName, "CLUB_riverside-fc")
        XCTAssertEqual(command.nats.endpoint(clientName: "x")?.url, "nats://127.0.0.1:4222")
        XCTAssertNil(try parse([]).clubName)
    }

    func testTheClubOptionsAreRefusedApartOrMisnamed() {
        XCTAssertTrue(refusal(["--club", "riverside-fc"]).contains("--nats and --club go together"))
        XCTAssertTrue(refusal(["--nats", "nats://127.0.0.1:4222"]).contains("--nats and --club go together"))
        XCTAssertTrue(refusal(["--nats", "nats://127.0.0.1:4222", "--club", "Riverside FC"]).contains("is not a club name"))
        XCTAssertTrue(refusal(["--nats", "http://example.org", "--club", "fc"]).contains("--nats must be a NATS address"))
    }
}
