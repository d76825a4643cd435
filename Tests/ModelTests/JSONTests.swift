import GatherModel
import GatherModelTestSupport
import XCTest

/// How client messages are read (Foundation's parser at the edge, turned into a `JSONValue`) and
/// how every message is written.
final class JSONTests: XCTestCase {
    private func parses(_ text: String, to expected: JSONValue, file: StaticString = #filePath, line: UInt = #line) {
        switch JSONValue.parse(text) {
        case .success(let value): XCTAssertEqual(value, expected, text, file: file, line: line)
        case .failure(let failure): XCTFail("\(text): \(failure.reason)", file: file, line: line)
        }
    }

    @discardableResult
    private func fails(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> JSONValue.ReadFailure? {
        fails(Array(text.utf8), label: text, file: file, line: line)
    }

    @discardableResult
    private func fails(_ bytes: [UInt8], label: String, file: StaticString = #filePath, line: UInt = #line)
        -> JSONValue.ReadFailure?
    {
        switch JSONValue.parse(bytes) {
        case .success(let value):
            XCTFail("accepted \(label) as \(value)", file: file, line: line)
            return nil
        case .failure(let failure):
            XCTAssertFalse(failure.reason.isEmpty, file: file, line: line)
            return failure
        }
    }

    // MARK: - Reading: what is accepted

    func testAMessageParsesIntoItsValue() {
        parses(#" { "type" : "command", "id":"c1", "base": 3, "action": {"kind": "score", "team": "A", "delta": -1},"#
               + "\n\t\r" + #" "flags": [true, false, null], "empty": {}, "none": [] } "#,
               to: ["type": "command", "id": "c1", "base": 3, "action": ["kind": "score", "team": "A", "delta": -1],
                    "flags": [true, false, nil], "empty": [:], "none": []])
    }

    func testScalarsAtTheTopLevel() {
        parses("42", to: 42)
        parses(#""hi""#, to: "hi")
        parses("null", to: nil)
        parses(" true ", to: true)
    }

    func testBooleansAreNotNumbersAndNumbersAreNotBooleans() {
        parses("[true, false, 1, 0]", to: [true, false, 1, 0])
        XCTAssertNil(JSONValue.bool(true).intValue, "true is not a count or an id")
    }

    func testIntegersStayIntegersAndEverythingElseIsADouble() {
        parses("0", to: .int(0))
        parses("-0", to: .int(0))
        parses("-17", to: .int(-17))
        parses("9223372036854775807", to: .int(Int.max))
        parses("9223372036854775808", to: .double(9_223_372_036_854_775_808))
        parses("18446744073709551615", to: .double(18_446_744_073_709_551_615))
        parses("1.5", to: .double(1.5))
        parses("1.0", to: .double(1.0))
        parses("1e3", to: .double(1000))
        parses("2E-2", to: .double(0.02))
        parses("-1.25e+2", to: .double(-125))
        XCTAssertNil(JSONValue.double(1.0).intValue, "1.0 is not an id on this wire")
    }

    func testEscapesDecode() {
        parses(#""\" \\ \/ \b \f \n \r \t""#, to: .string("\" \\ / \u{08} \u{0C} \n \r \t"))
        parses(#""caf\u00e9 \u00C9""#, to: "café É")
        parses(#""\ud83c\udfc6 goal""#, to: "🏆 goal")
        parses("\"raw é and 🏆\"", to: "raw é and 🏆")
        parses(#""\u0000""#, to: .string("\u{0}"))
    }

    func testALaterDuplicateKeyWinsAsInTheBrowsersJSONParse() {
        parses(#"{"kind": "score", "kind": "endGather"}"#, to: ["kind": "endGather"])
    }

    // MARK: - Reading: what is refused

    func testMissingSeparatorsAndUnclosedDocumentsAreRefused() {
        for text in ["[1 2]", #"{"a" 1}"#, #"{"a":1 "b":2}"#, "[,1]", #"{,"a":1}"#, "[", "{", #"{"a":"#, "]", "}"] {
            fails(text)
        }
    }

    func testOnlyJSONNotJavaScriptIsAccepted() {
        for text in ["{a:1}", "{'a':1}", "['a']", "// note\n1", "/* c */ 1", "undefined", "NaN", "Infinity", "-Infinity",
                     "True", "nul", "truex", "1 2", "{} {}", "", "   "] {
            fails(text)
        }
    }

    func testMalformedNumbersAreRefused() {
        for text in ["01", "-01", "+1", ".5", "1.", "1e", "1e+", "-", "--1", "0x10", "1_000", "1e400", "-1e400"] {
            fails(text)
        }
    }

    func testMalformedStringsAreRefused() {
        for text in [#""open"#, #""\x""#, #""\u12""#, #""\u12G4""#, #""\ud83c""#, #""\udfc6""#,
                     "\"tab\there\"", "\"line\nbreak\"", #""\"#] {
            fails(text)
        }
    }

    func testInvalidUTF8IsRefused() {
        fails(Array(#"{"name":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8), label: "C3 28")
        fails([0x22, 0xFF, 0x22], label: "FF")
    }

    func testNestingIsCappedAtSixtyFourLevels() {
        XCTAssertEqual(JSONValue.maximumDepth, 64)
        parses(String(repeating: "[", count: 64) + String(repeating: "]", count: 64),
               to: (1..<64).reduce(JSONValue.array([])) { inner, _ in .array([inner]) })
        let tooDeep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        XCTAssertTrue(fails(tooDeep)?.reason.contains("deeper than 64") == true)
        func objects(_ levels: Int) -> String {
            String(repeating: #"{"a":"#, count: levels - 1) + "{}" + String(repeating: "}", count: levels - 1)
        }
        guard case .success = JSONValue.parse(objects(64)) else { return XCTFail("64 levels of objects refused") }
        fails(objects(65))
    }

    func testAHugeNestingFailsCleanlyInsteadOfExhaustingTheStack() {
        fails(String(repeating: "[", count: 100_000))
        fails(String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000))
    }

    // MARK: - Writing

    func testObjectKeysAreWrittenSortedAndCompact() {
        let value: JSONValue = ["type": "snapshot", "version": 7,
                                "state": ["players": [], "gather": nil, "history": [["winner": "draw", "id": "g"]]]]
        XCTAssertEqual(JSONWriter.string(value),
                       #"{"state":{"gather":null,"history":[{"id":"g","winner":"draw"}],"players":[]},"#
                           + #""type":"snapshot","version":7}"#)
    }

    func testTheSameValueAlwaysGivesTheSameBytes() {
        var forwards: [String: JSONValue] = [:]
        var backwards: [String: JSONValue] = [:]
        let keys = (0..<40).map { "key\($0)" }
        for key in keys { forwards[key] = .string(key) }
        for key in keys.reversed() { backwards[key] = .string(key) }
        XCTAssertEqual(JSONWriter.bytes(.object(forwards)), JSONWriter.bytes(.object(backwards)))
    }

    func testStringsAreEscapedSoTheyCannotBreakOutOfTheirQuotes() {
        XCTAssertEqual(JSONWriter.string(.string("say \"hi\" \\ now")), #""say \"hi\" \\ now""#)
        XCTAssertEqual(JSONWriter.string(.string("a\nb\rc\td")), #""a\nb\rc\td""#)
        XCTAssertEqual(JSONWriter.string(.string("\u{0}\u{1}\u{08}\u{0C}\u{1F}")), #""\u0000\u0001\u0008\u000c\u001f""#)
        XCTAssertEqual(JSONWriter.string(.string("é 🏆 </script>")), "\"é 🏆 </script>\"")
        XCTAssertEqual(JSONWriter.string(["k\"ey": 1]), #"{"k\"ey":1}"#)
    }

    func testScalarsAreWrittenAsJSON() {
        XCTAssertEqual(JSONWriter.string([nil, true, false, 0, -12, .int(Int.min), .double(1.5), .double(-0.25)]),
                       "[null,true,false,0,-12,-9223372036854775808,1.5,-0.25]")
    }

    /// (Foundation reads 19-digit negative integers back as doubles; no field of the protocol goes near them.)
    func testWhatIsWrittenParsesBackToTheSameValue() {
        let value: JSONValue = [
            "players": [["id": 1, "name": "Zoë \"Z\" O'Neil", "age": nil, "favouriteTeam": "Wolves\\Spurs"]],
            "controls": .string((0..<32).map { String(UnicodeScalar(UInt8($0))) }.joined()),
            "emoji": "🏆⚽️", "numbers": [.int(Int.max), .int(-1_000_000_000_000), .double(0.1), .double(1e300), .double(2.0)],
            "nested": .array([.array([.object(["": .null])])]),
        ]
        XCTAssertEqual(JSONValue.parse(JSONWriter.bytes(value)), .success(value))
    }

    func testCompactSortedTextSurvivesARoundTripByteForByte() {
        let text = #"{"a":[1,-2,{"b":"\u0001\n"}],"c":null,"d":"\"é\""}"#
        guard case .success(let value) = JSONValue.parse(text) else { return XCTFail("did not parse") }
        XCTAssertEqual(JSONWriter.string(value), text)
    }
}
