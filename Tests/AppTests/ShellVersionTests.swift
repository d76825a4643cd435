import Foundation
@testable import GatherApp
import XCTest

/// The pages' version a phone's service worker compares before fetching the shell again: the
/// same for the same folder, new for any file written, added, renamed or removed.
final class ShellVersionTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("shell-version-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("js"), withIntermediateDirectories: true)
        try write("index.html", "<title>Spectators</title>")
        try write("js/page.js", "export const CLOCK_MS = 250;")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func write(_ path: String, _ text: String) throws {
        try Data(text.utf8).write(to: folder.appendingPathComponent(path))
    }

    private var version: String? { ShellVersion(root: folder.path).current() }

    func testTheSameFolderHasTheSameVersionAndItIsSixtyFourHex() throws {
        let first = try XCTUnwrap(version)
        XCTAssertEqual(first.count, 64)
        XCTAssertTrue(first.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        XCTAssertEqual(version, first)
    }

    func testAFileWrittenAddedRenamedOrRemovedChangesTheVersion() throws {
        var seen = [try XCTUnwrap(version)]
        func expectNew(_ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
            let now = try XCTUnwrap(version, file: file, line: line)
            XCTAssertFalse(seen.contains(now), what, file: file, line: line)
            seen.append(now)
        }
        try write("js/page.js", "export const CLOCK_MS = 500;") // same size, written again
        try expectNew("a file written again")
        try write("js/new.js", "")
        try expectNew("a file added")
        try FileManager.default.moveItem(at: folder.appendingPathComponent("js/new.js"),
                                         to: folder.appendingPathComponent("js/renamed.js"))
        try expectNew("a file renamed")
        try FileManager.default.removeItem(at: folder.appendingPathComponent("index.html"))
        try expectNew("a file removed")
    }

    func testTheRouteAnswersJSONAndAMissingFolderNothing() throws {
        let response = try XCTUnwrap(ShellVersion(root: folder.path).response())
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "{\"version\":\"\(try XCTUnwrap(version))\"}")
        XCTAssertNil(ShellVersion(root: folder.path + "-missing").response())
    }
}
