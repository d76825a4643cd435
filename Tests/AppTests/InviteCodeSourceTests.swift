import ArgumentParser
import Foundation
@testable import GatherApp
import XCTest

/// The invite code from `--invite-code`, `--invite-code-file` or `GATHER_INVITE_CODE`: each
/// source in its turn, and every bad file refused with a sentence naming it.
final class InviteCodeSourceTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "gather-invite-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func file(_ text: String) -> String {
        let path = folder + "/" + UUID().uuidString
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    private func refusal(_ file: String) -> String {
        do {
            _ = try InviteCodeSource.resolve(option: nil, file: file, environment: [:])
            return "accepted"
        } catch {
            return (error as? ValidationError)?.message ?? "\(error)"
        }
    }

    func testTheOptionThenTheFileThenTheEnvironment() throws {
        let environment = ["GATHER_INVITE_CODE": "FromTheEnv1"]
        XCTAssertEqual(try InviteCodeSource.resolve(option: "Given-1234", file: nil, environment: environment), "Given-1234")
        XCTAssertEqual(try InviteCodeSource.resolve(option: nil, file: file("  Filed_1234 \r\n"), environment: environment),
                       "Filed_1234")
        XCTAssertEqual(try InviteCodeSource.resolve(option: nil, file: nil, environment: environment), "FromTheEnv1")
        XCTAssertNil(try InviteCodeSource.resolve(option: nil, file: nil, environment: ["GATHER_INVITE_CODE": ""]))
        XCTAssertThrowsError(try InviteCodeSource.resolve(option: "Given-1234", file: file("Filed_1234"), environment: [:]))
    }

    func testABadFileIsRefusedByName() {
        let missing = folder + "/missing"
        XCTAssertEqual(refusal(missing), "--invite-code-file \(missing) cannot be read: No such file or directory.")
        XCTAssertEqual(refusal(folder), "--invite-code-file \(folder) is not a regular file.")
        let big = file(String(repeating: "A", count: InviteCodeSource.fileLimit + 1))
        XCTAssertEqual(refusal(big), "--invite-code-file \(big) is larger than 4096 bytes; it must hold only the code.")
        let blank = file(" \n\t\n")
        XCTAssertEqual(refusal(blank), "--invite-code-file \(blank) is empty; write the code in it.")
        let binary = folder + "/binary"
        _ = FileManager.default.createFile(atPath: binary, contents: Data([0xff, 0xfe, 0x41]))
        XCTAssertEqual(refusal(binary), "--invite-code-file \(binary) is not text (UTF-8).")
    }
}
