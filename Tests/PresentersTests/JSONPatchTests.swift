import GatherModel
import GatherModelTestSupport
import GatherPresenters
import XCTest

/// The patches a gather.v2 client receives: exactly the small ops the app's changes call for,
/// and always turning the old state into the new one.
final class JSONPatchTests: XCTestCase {
    private let gather: JSONValue = [
        "phase": "setup",
        "bench": [1, 2, 3, 4, 5],
        "events": [["seq": 1, "kind": "created"], ["seq": 2, "kind": "assigned"]],
        "players": [["id": 1, "stats": ["goals": 0]], ["id": 2, "stats": ["goals": 0]]],
    ]

    private func assertDiff(_ old: JSONValue, _ new: JSONValue, is expected: [PatchOperation],
                            file: StaticString = #filePath, line: UInt = #line) throws {
        let operations = JSONPatch.diff(from: old, to: new)
        XCTAssertEqual(operations, expected, file: file, line: line)
        XCTAssertEqual(try JSONPatch.apply(operations, to: old), new, file: file, line: line)
    }

    private func with(_ value: JSONValue, _ key: String, _ member: JSONValue) -> JSONValue {
        guard case .object(var members) = value else { fatalError("not an object") }
        members[key] = member
        return .object(members)
    }

    // MARK: - Exact operations

    func testAChangedMemberIsOneReplace() throws {
        try assertDiff(gather, with(gather, "phase", "live"), is: [.replace(path: "/phase", value: "live")])
    }

    func testAnAppendedEventIsOneAddAtTheEnd() throws {
        let goal: JSONValue = ["seq": 3, "kind": "goal", "team": "A"]
        try assertDiff(gather, with(gather, "events", [["seq": 1, "kind": "created"], ["seq": 2, "kind": "assigned"], goal]),
                       is: [.add(path: "/events/-", value: goal)])
    }

    func testAnElementRemovedFromTheMiddleIsOneRemove() throws {
        try assertDiff(gather, with(gather, "bench", [1, 2, 4, 5]), is: [.remove(path: "/bench/2")])
    }

    func testAnElementInsertedInTheMiddleIsOneAddAtItsIndex() throws {
        try assertDiff(gather, with(gather, "bench", [1, 2, 9, 3, 4, 5]), is: [.add(path: "/bench/2", value: 9)])
    }

    func testAChangeInsideOneElementReachesDownToTheField() throws {
        let players: JSONValue = [["id": 1, "stats": ["goals": 0]], ["id": 2, "stats": ["goals": 1]]]
        try assertDiff(gather, with(gather, "players", players), is: [.replace(path: "/players/1/stats/goals", value: 1)])
    }

    func testKeysAreEscapedAndVisitedInSortedOrder() throws {
        let old: JSONValue = ["a/b": 1, "m~n": 2, "~1": 3, "gone": true]
        let new: JSONValue = ["a/b": 10, "m~n": 20, "~1": 30, "new/~": false]
        try assertDiff(old, new, is: [
            .replace(path: "/a~1b", value: 10),
            .remove(path: "/gone"),
            .replace(path: "/m~0n", value: 20),
            .add(path: "/new~1~0", value: false),
            .replace(path: "/~01", value: 30),
        ])
    }

    func testASlashGluedToACombiningMarkIsStillEscaped() throws {
        try assertDiff(["/\u{301}": 1], ["/\u{301}": 2], is: [.replace(path: "/~1\u{301}", value: 2)])
    }

    func testAShrunkMiddleIsRemovedFromTheBackAfterThePairedElements() throws {
        try assertDiff([0, 1, 2, 3, 4, 5], [0, 9, 5],
                       is: [.replace(path: "/1", value: 9), .remove(path: "/4"), .remove(path: "/3"), .remove(path: "/2")])
    }

    func testAGrownMiddleIsAddedInAscendingOrderBeforeTheSuffix() throws {
        try assertDiff([1, 2, 3], [1, 7, 8, 9, 3],
                       is: [.replace(path: "/1", value: 7), .add(path: "/2", value: 8), .add(path: "/3", value: 9)])
    }

    func testADifferentTypeIsReplacedWholeEvenAtTheRoot() throws {
        try assertDiff(["a": 1], [1], is: [.replace(path: "", value: [1])])
        try assertDiff(["n": 1], ["n": .double(1)], is: [.replace(path: "/n", value: .double(1))])
        try assertDiff(["n": ["x": 1]], ["n": nil], is: [.replace(path: "/n", value: nil)])
    }

    func testTheSameDocumentInADifferentlyBuiltDictionaryGivesTheSameOps() {
        let pairs: [(String, JSONValue)] = (0..<40).map { ("k\($0)", .int($0)) }
        var spacious = [String: JSONValue](minimumCapacity: 500)
        for (key, value) in pairs.reversed() { spacious[key] = value }
        let compact = JSONValue.object(Dictionary(uniqueKeysWithValues: pairs))
        let target = JSONValue.object(Dictionary(uniqueKeysWithValues: pairs.map { ($0.0, .int(-1)) }))
        let fromCompact = JSONPatch.diff(from: compact, to: target)
        XCTAssertEqual(fromCompact.count, 40)
        XCTAssertEqual(fromCompact, JSONPatch.diff(from: .object(spacious), to: target))
        XCTAssertEqual(fromCompact.map(\.path), pairs.map { "/" + $0.0 }.sorted())
    }

    func testOperationsAsTheyTravel() {
        XCTAssertEqual(PatchOperation.add(path: "/a/0", value: ["x": 1]).json, ["op": "add", "path": "/a/0", "value": ["x": 1]])
        XCTAssertEqual(PatchOperation.remove(path: "/a/0").json, ["op": "remove", "path": "/a/0"])
        XCTAssertEqual(PatchOperation.replace(path: "", value: nil).json, ["op": "replace", "path": "", "value": nil])
    }

    // MARK: - Applying what a client may receive

    func testApplyFollowsRFC6902ForEachOperation() throws {
        let document: JSONValue = ["list": [1, 2], "x": ["a~b": 1, "c/d": 2]]
        XCTAssertEqual(try JSONPatch.apply([.add(path: "/list/-", value: 3), .add(path: "/list/0", value: 0)], to: document),
                       ["list": [0, 1, 2, 3], "x": ["a~b": 1, "c/d": 2]])
        XCTAssertEqual(try JSONPatch.apply([.remove(path: "/x/a~0b"), .replace(path: "/x/c~1d", value: "v")], to: document),
                       ["list": [1, 2], "x": ["c/d": "v"]])
        XCTAssertEqual(try JSONPatch.apply([.add(path: "/x/a~0b", value: 9)], to: document),
                       ["list": [1, 2], "x": ["a~b": 9, "c/d": 2]], "add on an existing member replaces it")
        XCTAssertEqual(try JSONPatch.apply([.add(path: "", value: 5)], to: document), 5)
    }

    func testApplyRejectsPathsThatDoNotExist() {
        let document: JSONValue = ["list": [1, 2], "s": "text"]
        let cases: [(PatchOperation, PatchError)] = [
            (.replace(path: "list", value: 1), .malformedPath("list")),
            (.replace(path: "/a~2", value: 1), .malformedPath("/a~2")),
            (.replace(path: "/list/01", value: 1), .malformedPath("/list/01")),
            (.replace(path: "/list/-1", value: 1), .malformedPath("/list/-1")),
            (.add(path: "/nope/x", value: 1), .missingTarget("/nope/x")),
            (.remove(path: "/nope"), .missingTarget("/nope")),
            (.replace(path: "/nope", value: 1), .missingTarget("/nope")),
            (.replace(path: "/list/2", value: 1), .indexOutOfRange("/list/2")),
            (.remove(path: "/list/-"), .indexOutOfRange("/list/-")),
            (.add(path: "/list/3", value: 1), .indexOutOfRange("/list/3")),
            (.add(path: "/list/9/x", value: 1), .indexOutOfRange("/list/9/x")),
            (.add(path: "/s/x", value: 1), .notAContainer("/s/x")),
            (.remove(path: ""), .removingTheRoot),
        ]
        for (operation, expected) in cases {
            XCTAssertThrowsError(try JSONPatch.apply([operation], to: document), "\(operation)") { error in
                XCTAssertEqual(error as? PatchError, expected)
            }
        }
        XCTAssertEqual(try JSONPatch.apply([.add(path: "/list/2", value: 3)], to: document), ["list": [1, 2, 3], "s": "text"],
                       "adding at the index just past the end appends")
    }

    func testAnOpMadeInvalidByAnEarlierOneThrows() {
        XCTAssertThrowsError(try JSONPatch.apply([.remove(path: "/0"), .remove(path: "/1")], to: [1, 2])) { error in
            XCTAssertEqual(error as? PatchError, .indexOutOfRange("/1"))
        }
    }

    // MARK: - Property: diff then apply gives the target

    func testApplyingTheDiffGivesTheTargetOnSeededRandomPairs() throws {
        var generator = RandomJSON(random: SplitMix64(seed: 0x6761_7468_6572_7632))
        var operationsSeen = 0
        for pair in 0..<2_500 {
            let old = generator.value()
            var new = old
            for _ in 0..<(1 + generator.random.below(3)) { new = generator.mutated(new) }
            let operations = JSONPatch.diff(from: old, to: new)
            operationsSeen += operations.count
            XCTAssertEqual(try JSONPatch.apply(operations, to: old), new, "pair \(pair): \(operations)")
            XCTAssertEqual(JSONPatch.diff(from: old, to: old), [], "pair \(pair)")
            XCTAssertEqual(JSONPatch.diff(from: new, to: new), [], "pair \(pair)")
            XCTAssertEqual(old == new, operations.isEmpty, "pair \(pair)")
        }
        XCTAssertGreaterThan(operationsSeen, 2_500, "the generator must produce real differences")
    }
}
