import GatherModel
import XCTest

/// What a referee may do (docs/PROTOCOL.md §20), and the organisers' link commands' fields: pure
/// rules, every refusal `forbidden` `referee_pitch_only` and the action given back unchanged otherwise.
final class RefereeRulesTests: XCTestCase {
    /// Three pitches and a cup of eight teams on all three.
    private func venue() -> GatherState {
        var state = GatherState(pitches: [Pitch(id: 1, name: "Pitch 1"), Pitch(id: 2, name: "Back pitch"),
                                          Pitch(id: 3, name: "Pitch 3")])
        state.tournament = Tournament(id: "t", name: "Cup",
                                      teamNames: ["Reds", "Blues", "Greens", "Whites", "Blacks", "Golds", "Pinks", "Greys"],
                                      groupCount: 2, settings: TournamentSettings(matchMinutes: 10, breakMinutes: 5,
                                                                                  startsAt: 1_790_000_000_000,
                                                                                  pitches: [1, 2, 3], advance: 2,
                                                                                  thirdPlace: true))
        return state
    }

    private func refused(_ action: Action, pitchGiven: Bool = true, on pitch: Pitch.ID = 2, line: UInt = #line) {
        switch RefereePermission.judge(action, pitchGiven: pitchGiven, refereePitch: pitch, state: venue()) {
        case .success(let meant): XCTFail("\(action) was allowed as \(meant)", line: line)
        case .failure(let rejection):
            XCTAssertEqual(rejection.code, .forbidden, line: line)
            XCTAssertEqual(rejection.reason.key, .refereePitchOnly, line: line)
            XCTAssertEqual(rejection.reason.params["pitch"], .text("Back pitch"), line: line)
        }
    }

    private func allowed(_ action: Action, pitchGiven: Bool = true, as meant: Action? = nil, line: UInt = #line) {
        switch RefereePermission.judge(action, pitchGiven: pitchGiven, refereePitch: 2, state: venue()) {
        case .success(let result): XCTAssertEqual(result, meant ?? action, line: line)
        case .failure(let rejection): XCTFail("\(action) was refused: \(rejection.message)", line: line)
        }
    }

    func testTheScoringActionsOnItsOwnPitchAreAllowed() {
        for action: GatherAction in [.startTimer, .pauseTimer, .resetTimer, .setTimer(minutes: 12, seconds: 0),
                                     .score(.A, delta: 1), .score(.B, delta: -1), .score(.A, delta: 1, scorer: 3),
                                     .restoreGoal(seq: 2), .endGather] {
            allowed(.onPitch(2, action))
        }
    }

    func testAGatherActionWithoutAPitchIsOnItsOwnPitch() {
        // The decoder reads a missing `pitch` as pitch 1; for a referee it means its own.
        allowed(.onPitch(1, .score(.A, delta: 1)), pitchGiven: false, as: .onPitch(2, .score(.A, delta: 1)))
        allowed(.onPitch(1, .endGather), pitchGiven: false, as: .onPitch(2, .endGather))
    }

    func testAnotherPitchIsRefusedEvenForTheActionsItMayDo() {
        refused(.onPitch(1, .score(.A, delta: 1)))
        refused(.onPitch(3, .startTimer))
    }

    func testEverythingElseIsRefused() {
        for action: GatherAction in [.createGather(playerIDs: [1, 2]), .assign(1, to: .A), .renameTeam(.A, name: "X"),
                                     .startGather, .setScorer(seq: 1, scorer: nil, assist: nil), .cancelGoal(seq: 1),
                                     .setTeamColour(.A, .red), .balanceTeams, .cancelGather] {
            refused(.onPitch(2, action))
        }
        refused(.addPlayer(PlayerChanges(name: "Ann")))
        refused(.removePlayer(1))
        refused(.addPitch(name: "New"))
        refused(.renamePitch(2, name: "Renamed"))
        refused(.removePitch(2))
        refused(.tournament(.cancel))
        refused(.tournament(.correctResult(1, score: HomeAway(home: 1, away: 0), penalties: nil)))
        refused(.tournament(.moveMatches(from: 2, to: 1)))
        refused(.tournament(.create(["kind": "createTournament"])))
    }

    func testOnlyThePitchsFirstUnplayedMatchMayBeStarted() throws {
        let state = venue()
        let onTwo = try XCTUnwrap(state.tournament?.unplayedMatches(on: 2))
        XCTAssertGreaterThan(onTwo.count, 1)
        allowed(.tournament(.startMatch(onTwo[0])))
        allowed(.tournament(.startMatch(onTwo[0], startEarly: true)))
        refused(.tournament(.startMatch(onTwo[1])))
        let onOne = try XCTUnwrap(state.tournament?.unplayedMatches(on: 1).first)
        refused(.tournament(.startMatch(onOne)))
    }

    func testWithoutATournamentThereIsNoMatchToStart() {
        switch RefereePermission.judge(.tournament(.startMatch(1)), pitchGiven: false, refereePitch: 1, state: GatherState()) {
        case .success: XCTFail("started a match of no tournament")
        case .failure(let rejection): XCTAssertEqual(rejection.reason.key, .refereePitchOnly)
        }
    }

    // MARK: - The link commands' fields

    func testCreateReadsPitchLabelAndHoursWithTheirDefaults() {
        XCTAssertEqual(try RefereeLinkRequest.decode(["kind": "createRefereeLink", "pitch": 2]).get(),
                       .create(pitch: 2, label: nil, hours: 12))
        XCTAssertEqual(try RefereeLinkRequest.decode(["kind": "createRefereeLink", "pitch": 2, "label": "  Ref Ana ",
                                                      "hours": 24]).get(),
                       .create(pitch: 2, label: "Ref Ana", hours: 24))
        XCTAssertEqual(try RefereeLinkRequest.decode(["kind": "revokeRefereeLink", "id": 7]).get(), .revoke(7))
    }

    func testBadFieldsAreInvalid() {
        let bad: [JSONValue] = [
            ["kind": "createRefereeLink"],
            ["kind": "createRefereeLink", "pitch": "2"],
            ["kind": "createRefereeLink", "pitch": 2, "hours": 0],
            ["kind": "createRefereeLink", "pitch": 2, "hours": 25],
            ["kind": "createRefereeLink", "pitch": 2, "hours": "1"],
            ["kind": "createRefereeLink", "pitch": 2, "label": ""],
            ["kind": "createRefereeLink", "pitch": 2, "label": .string(String(repeating: "x", count: 41))],
            ["kind": "createRefereeLink", "pitch": 2, "label": "Ref\u{0007}"],
            ["kind": "createRefereeLink", "pitch": 2, "label": 5],
            ["kind": "revokeRefereeLink"],
            ["kind": "revokeRefereeLink", "id": "1"],
        ]
        for json in bad {
            guard case .failure(let rejection) = RefereeLinkRequest.decode(json) else {
                XCTFail("accepted \(json)")
                continue
            }
            XCTAssertEqual(rejection.code, .invalid, "\(json)")
        }
        guard case .failure(let hours) = RefereeLinkRequest.decode(["kind": "createRefereeLink", "pitch": 2, "hours": 30])
        else { return XCTFail("30 hours accepted") }
        XCTAssertEqual(hours.reason.key, .refereeHoursRule)
    }

    func testTheDefaultLabelAndTheCodesShape() {
        XCTAssertEqual(RefereeLink.defaultLabel(pitchName: "Back pitch"), "Back pitch referee")
        let long = String(repeating: "P", count: 36)
        XCTAssertEqual(RefereeLink.defaultLabel(pitchName: long).count, 40)
        XCTAssertTrue(RefereeLink.looksLikeCode("abcdefghijklmnopqrstu-"))
        XCTAssertFalse(RefereeLink.looksLikeCode("abcdefghijklmnopqrstu"), "21 characters")
        XCTAssertFalse(RefereeLink.looksLikeCode("abcdefghijklmnopqrstu="), "not base64url")
        XCTAssertEqual(RefereeLink.path(code: "C"), "/organiser.html#referee=C")
    }
}
