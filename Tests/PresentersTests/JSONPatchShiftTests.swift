import GatherModel
import GatherPresenters
import XCTest

/// A capped list that drops its oldest entry as a new one arrives (`history` once it holds 20):
/// one removal and one addition, not every entry replaced (a tournament day's full time was
/// ≈ 20 KB per spectator before).
final class JSONPatchShiftTests: XCTestCase {
    private func entries(_ range: ClosedRange<Int>) -> [JSONValue] {
        range.map { ["id": .string("h\($0)"), "score": ["A": .int($0 % 4), "B": .int($0 % 3)]] }
    }

    private func assertDiff(_ old: [JSONValue], _ new: [JSONValue], is expected: [PatchOperation],
                            file: StaticString = #filePath, line: UInt = #line) throws {
        let before: JSONValue = ["history": .array(old)]
        let after: JSONValue = ["history": .array(new)]
        let operations = JSONPatch.diff(from: before, to: after)
        XCTAssertEqual(operations, expected, file: file, line: line)
        XCTAssertEqual(try JSONPatch.apply(operations, to: before), after, file: file, line: line)
    }

    func testOldestFirstDropsTheFirstAndAppendsTheNewcomer() throws {
        try assertDiff(entries(1...20), entries(2...21), is: [.remove(path: "/history/0"), .add(path: "/history/-", value: entries(21...21)[0])])
    }

    func testNewestFirstDropsTheLastAndInsertsTheNewcomerAtTheFront() throws {
        try assertDiff(Array(entries(1...20).reversed()), Array(entries(2...21).reversed()),
                       is: [.remove(path: "/history/19"), .add(path: "/history/0", value: entries(21...21)[0])])
    }

    func testTwoAtOnceAndTheirOrderKept() throws {
        try assertDiff(entries(1...20), entries(3...22), is: [
            .remove(path: "/history/1"), .remove(path: "/history/0"),
            .add(path: "/history/-", value: entries(21...21)[0]), .add(path: "/history/-", value: entries(22...22)[0]),
        ])
    }

    func testAShiftBeyondTheLimitOrAChangedEntryFallsBackToPairing() throws {
        let farBefore: JSONValue = ["history": .array(entries(1...20))]
        let farAfter: JSONValue = ["history": .array(entries(7...26))]
        let far = JSONPatch.diff(from: farBefore, to: farAfter)
        XCTAssertTrue(far.allSatisfy { if case .replace = $0 { true } else { false } },
                      "six places is not looked for: every entry changed in place")
        XCTAssertEqual(try JSONPatch.apply(far, to: farBefore), farAfter)
        var changed = entries(2...21)
        changed[5] = ["id": "edited"]
        let before: JSONValue = ["history": .array(entries(1...20))]
        let after: JSONValue = ["history": .array(changed)]
        XCTAssertEqual(try JSONPatch.apply(JSONPatch.diff(from: before, to: after), to: before), after)
    }
}
