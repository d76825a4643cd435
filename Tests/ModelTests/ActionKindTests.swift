import Foundation
import GatherModel
import XCTest

/// One list of action kinds: the decoder, `Action.kind` and docs/PROTOCOL.md's tables all hold
/// every `ActionKind`; a kind added to the enum and forgotten in one of them fails here.
final class ActionKindTests: XCTestCase {
    /// A valid `command.action` of every kind an organiser can send.
    private static let samples: [ActionKind: JSONValue] = [
        .addPlayer: ["kind": "addPlayer", "name": "Ann"],
        .editPlayer: ["kind": "editPlayer", "playerId": 1, "age": 30],
        .removePlayer: ["kind": "removePlayer", "playerId": 1],
        .addPitch: ["kind": "addPitch", "name": "Pitch 2"],
        .renamePitch: ["kind": "renamePitch", "pitch": 2, "name": "Back pitch"],
        .removePitch: ["kind": "removePitch", "pitch": 2],
        .createGather: ["kind": "createGather", "playerIds": [1, 2]],
        .selectFromClubDate: ["kind": "selectFromClubDate", "date": "41", "pitch": 1],
        .assign: ["kind": "assign", "playerId": 1, "to": "A"],
        .renameTeam: ["kind": "renameTeam", "team": "A", "name": "Bibs"],
        .startGather: ["kind": "startGather"],
        .score: ["kind": "score", "team": "B", "delta": 1],
        .setScorer: ["kind": "setScorer", "seq": 3, "playerId": 1],
        .cancelGoal: ["kind": "cancelGoal", "seq": 3],
        .restoreGoal: ["kind": "restoreGoal", "seq": 3],
        .setTeamColour: ["kind": "setTeamColour", "team": "A", "colour": "yellow"],
        .balanceTeams: ["kind": "balanceTeams"],
        .setTimer: ["kind": "setTimer", "minutes": 10, "seconds": 0],
        .startTimer: ["kind": "startTimer"],
        .pauseTimer: ["kind": "pauseTimer"],
        .resetTimer: ["kind": "resetTimer"],
        .endGather: ["kind": "endGather"],
        .cancelGather: ["kind": "cancelGather"],
        .createTournament: ["kind": "createTournament", "name": "Cup", "teams": ["Reds", "Blues", "Greens"],
                            "groups": 1, "advance": 2],
        .setTournamentTeam: ["kind": "setTournamentTeam", "team": 1, "colour": "red"],
        .startMatch: ["kind": "startMatch", "match": 1],
        .correctResult: ["kind": "correctResult", "match": 1, "score": ["home": 2, "away": 1]],
        .cancelTournament: ["kind": "cancelTournament"],
        .moveMatches: ["kind": "moveMatches", "from": 3, "to": 1],
    ]

    func testTheDecoderReadsEveryCommandKindAndActionKindNamesItBack() {
        XCTAssertEqual(Set(Self.samples.keys), Set(ActionKind.commands), "a sample for every command kind")
        for kind in ActionKind.commands {
            guard let sample = Self.samples[kind] else { continue }
            XCTAssertEqual(sample["kind"]?.stringValue, kind.rawValue)
            switch ActionDecoder.decode(sample) {
            case .success(let action): XCTAssertEqual(action.kind, kind)
            case .failure(let rejection): XCTFail("\(kind): \(rejection.message)")
            }
        }
    }

    func testNobodyCanSendTheServersOwnChange() {
        guard case .failure(let rejection) = ActionDecoder.decode(["kind": "timerExpired"]) else {
            return XCTFail("timerExpired was accepted from the wire")
        }
        XCTAssertEqual(rejection.code, .invalid)
        XCTAssertEqual(ActionKind.commands.count, ActionKind.allCases.count - 1)
    }

    /// §6's tables (headed `kind` or `action`) and headings name every command kind, and every row of a
    /// kind table is a kind the server knows.
    func testDocsProtocolListsEveryCommandKindAndNoOther() throws {
        let doc = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/PROTOCOL.md")
        let text = try String(contentsOf: doc, encoding: .utf8)
        guard let start = text.range(of: "\n## 6 "), let end = text.range(of: "\n## 7 ") else {
            return XCTFail("docs/PROTOCOL.md has no §6 Commands and actions")
        }
        let section = text[start.upperBound..<end.lowerBound].split(separator: "\n")
        var documented = Set<String>()
        var inKindTable = false
        for line in section {
            if line.hasPrefix("| `kind` |") || line.hasPrefix("| action |") { inKindTable = true; continue }
            if !line.hasPrefix("|") { inKindTable = false }
            if line.hasPrefix("###"), let name = Self.code(in: line) { documented.insert(name) }
            guard inKindTable, line.hasPrefix("| `"), let name = Self.code(in: line) else { continue }
            XCTAssertNotNil(ActionKind(rawValue: name), "docs/PROTOCOL.md §6 lists \"\(name)\", which the server does not know")
            documented.insert(name)
        }
        for kind in ActionKind.commands {
            XCTAssertTrue(documented.contains(kind.rawValue), "docs/PROTOCOL.md §6 does not document \(kind.rawValue)")
        }
    }

    /// The first `code` span of a line.
    private static func code(in line: Substring) -> String? {
        let parts = line.split(separator: "`", omittingEmptySubsequences: false)
        return parts.count >= 3 ? String(parts[1]) : nil
    }
}
