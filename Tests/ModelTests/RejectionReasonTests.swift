import GatherModel
import GatherModelTestSupport
import XCTest

/// Every rejection of the rules carries its sentence as a key and the names and numbers in it,
/// so a page can say it in its reader's language (docs/PROTOCOL.md "Sentences as keys").
final class RejectionReasonTests: XCTestCase {
    private func rejection(_ action: Action, in state: GatherState, by organiser: String = "ann",
                           now: Int64 = GatherTestStore.start) -> Rejection? {
        var next = state
        let context = ActionContext(now: now, by: organiser, newGatherID: "g1", confirmed: false)
        if case .failure(let rejection) = GatherRules.apply(action, to: &next, context: context) { return rejection }
        return nil
    }

    func testTheDuplicateQuestionNamesWhoWhichTeamAndHowManySecondsAgo() {
        var state = GatherTestStore.liveGather().state
        state.gather!.teamA.name = "Whites"
        var next = state
        let start = GatherTestStore.start
        _ = GatherRules.apply(.score(.A, delta: 1), to: &next,
                              context: ActionContext(now: start, by: "maria", newGatherID: "", confirmed: false))
        let asked = rejection(.score(.A, delta: 1), in: next, now: start + 3400)
        XCTAssertEqual(asked?.code, .possibleDuplicate)
        XCTAssertEqual(asked?.reason, Sentence(.duplicateGoal, ["organiser": .text("maria"), "team": .text("Whites"),
                                                                "seconds": .number(3)]))
        XCTAssertEqual(asked?.message, "maria added a goal for Whites 3 s ago. Add another?")
    }

    func testARuleOfTheRosterNamesItsLimitAndAnUnkeyedRejectionSaysItsCode() {
        let state = GatherTestStore.liveGather().state
        XCTAssertEqual(rejection(.removePitch(Pitch.firstID), in: state)?.reason, Sentence(.firstPitchKept))
        XCTAssertEqual(rejection(.removePlayer(999), in: state)?.reason, Sentence(.noSuchPlayer, ["id": .number(999)]))
        XCTAssertEqual(Rejection(.inUse, "Taken.").reason, Sentence(.inUse))
    }

    func testANameBreakingTheTextRuleSaysItsLengths() {
        guard case .failure(let rejection) = ActionDecoder.decode(["kind": "addPlayer", "name": "   "]) else {
            return XCTFail("a blank name was read")
        }
        XCTAssertEqual(rejection.reason.key, .textLength)
        XCTAssertEqual(rejection.reason.params["min"], .number(1))
    }

    func testEveryRejectionCodeIsAKeyOfItsOwn() {
        for code in [RejectionCode.invalid, .notFound, .wrongPhase, .outOfRange, .inUse, .conflict, .forbidden,
                     .rateLimited, .possibleDuplicate] {
            XCTAssertEqual(SentenceKey(code).rawValue, code.rawValue)
        }
        XCTAssertEqual(Set(SentenceKey.allCases.map(\.rawValue)).count, SentenceKey.allCases.count)
    }
}
