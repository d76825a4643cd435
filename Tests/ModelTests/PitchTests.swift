import GatherModel
import GatherModelTestSupport
import XCTest

/// docs/PROTOCOL.md "Several pitches": a venue of up to 16 pitches, each with its own gather, a
/// player in one gather at a time, and arbitration subjects that never cross from one pitch to
/// another.
final class PitchTests: XCTestCase {
    private let start = GatherTestStore.start

    /// Ann (1), Bob (2), Cid (3), Dan (4), and a second pitch "Cage" (2) next to pitch 1.
    private func twoPitches() -> GatherTestStore {
        let store = GatherTestStore(.roster("Ann", "Bob", "Cid", "Dan"))
        store.send(json: ["kind": "addPitch", "name": "Cage"]) { state in
            state.pitches.append(Pitch(id: 2, name: "Cage"))
            state.nextPitchID = 3
        }
        return store
    }

    // MARK: - Adding, renaming, removing

    func testAFreshVenueHasPitchOneAndAddedPitchesGetIdsThatAreNeverReused() {
        let store = GatherTestStore()
        XCTAssertEqual(store.state.pitches, [Pitch(id: 1, name: "Pitch 1")])
        store.send(json: ["kind": "addPitch", "name": "  Back pitch  "]) { state in
            state.pitches.append(Pitch(id: 2, name: "Back pitch"))
            state.nextPitchID = 3
        }
        store.send(json: ["kind": "addPitch", "name": "Cage"]) { state in
            state.pitches.append(Pitch(id: 3, name: "Cage"))
            state.nextPitchID = 4
        }
        store.send(json: ["kind": "removePitch", "pitch": 3]) { state in
            state.pitches.removeLast()
        }
        // 3 was removed, yet the next pitch is 4: an old link to ?pitch=3 never shows another match.
        store.send(json: ["kind": "addPitch", "name": "Cage"]) { state in
            state.pitches.append(Pitch(id: 4, name: "Cage"))
            state.nextPitchID = 5
        }
    }

    func testRenamingAPitch() {
        let store = twoPitches()
        store.send(json: ["kind": "renamePitch", "pitch": 1, "name": " Main "]) { state in
            state.pitches[0].name = "Main"
        }
        // Changing only the case of its own name is no clash with itself.
        store.send(json: ["kind": "renamePitch", "pitch": 2, "name": "CAGE"]) { state in
            state.pitches[1].name = "CAGE"
        }
        store.reject(json: ["kind": "renamePitch", "pitch": 7, "name": "Side"], code: .notFound, messageContains: "no pitch 7")
        store.reject(json: ["kind": "renamePitch", "name": "Side"], code: .invalid, messageContains: "which pitch")
        store.reject(json: ["kind": "renamePitch", "pitch": "2", "name": "Side"], code: .invalid)
        store.reject(json: ["kind": "renamePitch", "pitch": 2], code: .invalid)
    }

    func testPitchNamesAreUniqueWhateverTheirCaseAndOneToThirtyCharacters() {
        let store = twoPitches()
        store.reject(json: ["kind": "addPitch", "name": "pitch 1"], code: .invalid, messageContains: "already a pitch")
        store.reject(json: ["kind": "addPitch", "name": " cAgE "], code: .invalid, messageContains: "already a pitch")
        store.reject(json: ["kind": "renamePitch", "pitch": 1, "name": "cage"], code: .invalid,
                     messageContains: "already a pitch")
        store.reject(json: ["kind": "addPitch", "name": "   "], code: .invalid, messageContains: "1–30")
        store.reject(json: ["kind": "addPitch", "name": .string(String(repeating: "p", count: 31))], code: .invalid)
        store.reject(json: ["kind": "addPitch"], code: .invalid)
        let longest = String(repeating: "p", count: 30)
        store.send(json: ["kind": "addPitch", "name": .string(longest)]) { state in
            state.pitches.append(Pitch(id: 3, name: longest))
            state.nextPitchID = 4
        }
    }

    func testPitchOneStaysAndAPitchWithAGatherCannotBeRemoved() {
        let store = twoPitches()
        store.reject(json: ["kind": "removePitch", "pitch": 1], code: .invalid, messageContains: "Pitch 1")
        store.reject(json: ["kind": "removePitch", "pitch": 9], code: .notFound)
        store.reject(json: ["kind": "removePitch"], code: .invalid)
        store.send(json: ["kind": "createGather", "playerIds": [3, 4], "pitch": 2]) { state in
            state.pitches[1].gather = ActiveGather(id: "gather-1", bench: [3, 4])
        }
        store.reject(json: ["kind": "removePitch", "pitch": 2], code: .inUse, messageContains: "Cage has a gather")
        store.send(json: ["kind": "cancelGather", "pitch": 2]) { state in
            state.pitches[1].gather = nil
        }
        store.send(json: ["kind": "removePitch", "pitch": 2]) { state in
            state.pitches = [Pitch(id: 1, name: "Pitch 1")]
        }
        store.reject(json: ["kind": "removePitch", "pitch": 2], code: .notFound, messageContains: "no pitch 2")
    }

    func testAVenueHasAtMostSixteenPitches() {
        let store = GatherTestStore()
        for id in 2...16 {
            store.send(json: ["kind": "addPitch", "name": .string("Pitch \(id)")]) { state in
                state.pitches.append(Pitch(id: id, name: "Pitch \(id)"))
                state.nextPitchID = id + 1
            }
        }
        XCTAssertEqual(store.state.pitches.count, Pitch.maximumCount)
        store.reject(json: ["kind": "addPitch", "name": "Seventeen"], code: .outOfRange, messageContains: "16")
        store.send(json: ["kind": "removePitch", "pitch": 9]) { state in
            state.pitches.remove(at: 8)
        }
        store.send(json: ["kind": "addPitch", "name": "Seventeen"]) { state in
            state.pitches.append(Pitch(id: 17, name: "Seventeen"))
            state.nextPitchID = 18
        }
    }

    // MARK: - A gather on each pitch

    func testGatherActionsNamingPitchTwoChangeOnlyPitchTwo() {
        let store = twoPitches()
        store.send(json: ["kind": "createGather", "playerIds": [3, 4], "pitch": 2]) { state in
            state.pitches[1].gather = ActiveGather(id: "gather-1", bench: [3, 4])
        }
        store.send(json: ["kind": "assign", "playerId": 3, "to": "A", "pitch": 2]) { state in
            state.pitches[1].gather!.bench = [4]
            state.pitches[1].gather!.teamA.players = [3]
        }
        store.send(json: ["kind": "assign", "playerId": 4, "to": "B", "pitch": 2]) { state in
            state.pitches[1].gather!.bench = []
            state.pitches[1].gather!.teamB.players = [4]
        }
        store.send(json: ["kind": "renameTeam", "team": "B", "name": "Blues", "pitch": 2]) { state in
            state.pitches[1].gather!.teamB.name = "Blues"
        }
        store.send(json: ["kind": "startGather", "pitch": 2]) { state in
            state.pitches[1].gather!.phase = .live
            state.pitches[1].gather!.events = [GatherEvent(seq: 1, kind: .kickoff, at: self.start, by: "ann")]
        }
        store.send(json: ["kind": "score", "team": "B", "delta": 1, "pitch": 2]) { state in
            state.pitches[1].gather!.score.B = 1
            state.pitches[1].gather!.events.append(.goal(seq: 2, team: .B, at: self.start, matchMs: 0, by: "ann"))
        }
        XCTAssertNil(store.state.gather, "gather.v1's top-level gather is pitch 1's, which has none")
        // No `pitch` means pitch 1, which has no gather yet.
        store.reject(json: ["kind": "startGather"], code: .wrongPhase, messageContains: "Pitch 1")
        store.send(json: ["kind": "createGather", "playerIds": [2, 1]]) { state in
            state.pitches[0].gather = ActiveGather(id: "gather-2", bench: [2, 1])
        }
        XCTAssertEqual(store.state.gather, store.state.pitches[0].gather)
    }

    func testAnUnknownPitchIsNotFoundAndAPitchIsANumber() {
        let store = twoPitches()
        store.reject(json: ["kind": "createGather", "playerIds": [1, 2], "pitch": 3], code: .notFound,
                     messageContains: "no pitch 3")
        store.reject(json: ["kind": "setTimer", "minutes": 1, "seconds": 0, "pitch": 0], code: .notFound)
        store.reject(json: ["kind": "startGather", "pitch": "2"], code: .invalid, messageContains: "pitch")
        store.reject(json: ["kind": "startGather", "pitch": .double(2.0)], code: .invalid)
        store.reject(json: ["kind": "startGather", "pitch": nil], code: .invalid)
    }

    func testEachPitchHoldsOneActiveGather() {
        let store = twoPitches()
        store.send(json: ["kind": "createGather", "playerIds": [3, 4], "pitch": 2]) { state in
            state.pitches[1].gather = ActiveGather(id: "gather-1", bench: [3, 4])
        }
        store.reject(json: ["kind": "createGather", "playerIds": [1, 2], "pitch": 2], code: .wrongPhase,
                     messageContains: "already under way on Cage")
        store.send(json: ["kind": "createGather", "playerIds": [1, 2], "pitch": 1]) { state in
            state.pitches[0].gather = ActiveGather(id: "gather-2", bench: [1, 2])
        }
    }

    func testAPlayerPlaysInAtMostOneActiveGather() {
        let store = twoPitches()
        store.send(.createGather(playerIDs: [1, 2])) { state in
            state.pitches[0].gather = ActiveGather(id: "gather-1", bench: [1, 2])
        }
        store.reject(json: ["kind": "createGather", "playerIds": [3, 2], "pitch": 2], code: .inUse,
                     messageContains: "Bob is playing on Pitch 1")
        store.send(json: ["kind": "createGather", "playerIds": [3, 4], "pitch": 2]) { state in
            state.pitches[1].gather = ActiveGather(id: "gather-2", bench: [3, 4])
        }
        for placement: JSONValue in ["A", "B", "bench"] {
            store.reject(json: ["kind": "assign", "playerId": 1, "to": placement, "pitch": 2], code: .inUse,
                         messageContains: "Ann is playing on Pitch 1")
        }
        store.reject(json: ["kind": "assign", "playerId": 1, "to": "out", "pitch": 2], code: .notFound)
        // Moving within the gather one already plays in is no clash with oneself.
        store.send(json: ["kind": "assign", "playerId": 3, "to": "A", "pitch": 2]) { state in
            state.pitches[1].gather!.bench = [4]
            state.pitches[1].gather!.teamA.players = [3]
        }
        store.send(json: ["kind": "assign", "playerId": 1, "to": "out"]) { state in
            state.pitches[0].gather!.bench = [2]
        }
        store.send(json: ["kind": "assign", "playerId": 1, "to": "B", "pitch": 2]) { state in
            state.pitches[1].gather!.teamB.players = [1]
        }
    }

    func testAPlayerInAGatherOnAnyPitchCannotBeRemoved() {
        let store = twoPitches()
        store.send(json: ["kind": "createGather", "playerIds": [3, 4], "pitch": 2]) { state in
            state.pitches[1].gather = ActiveGather(id: "gather-1", bench: [3, 4])
        }
        store.reject(json: ["kind": "removePlayer", "playerId": 3], code: .inUse, messageContains: "on Cage")
        store.send(json: ["kind": "removePlayer", "playerId": 1]) { state in
            state.players.removeFirst()
        }
    }

    func testHistoryKeepsThePitchAsItWasNamedWhenTheGatherEnded() {
        let store = twoPitches()
        var gather = ActiveGather(id: "g-cage", phase: .live, bench: [])
        gather.teamA.players = [3]
        gather.teamB.players = [4]
        var state = store.state
        state.pitches[1].gather = gather
        let cage = GatherTestStore(state)
        cage.send(json: ["kind": "endGather", "pitch": 2]) { state in
            state.pitches[1].gather = nil
            state.history = [HistoryEntry(id: "g-cage", endedAt: self.start, pitch: PitchReference(id: 2, name: "Cage"),
                                          teamA: .init(name: "Team A", players: [.init(id: 3, name: "Cid")]),
                                          teamB: .init(name: "Team B", players: [.init(id: 4, name: "Dan")]),
                                          score: Score())]
            // A 0–0 draw between two players at 1200: E = ½, S = ½, no rating moves.
            state.players[2].stats = PlayerStats(games: 1, draws: 1)
            state.players[3].stats = PlayerStats(games: 1, draws: 1)
            state.pitches[1].lastResult = state.history[0]
        }
        cage.send(json: ["kind": "renamePitch", "pitch": 2, "name": "Astro"]) { state in
            state.pitches[1].name = "Astro"
        }
        cage.send(json: ["kind": "removePitch", "pitch": 2]) { state in
            state.pitches.removeLast()
        }
        XCTAssertEqual(cage.state.history[0].pitch, PitchReference(id: 2, name: "Cage"))
    }

    // MARK: - Arbitration subjects

    func testTheSameChangeOnTwoPitchesTouchesNothingInCommon() {
        let store = twoPitches()
        var state = store.state
        var live = ActiveGather(id: "g", phase: .live, bench: [])
        live.teamA.players = [1]
        live.teamB.players = [2]
        live.events = [GatherEvent(seq: 1, kind: .kickoff, at: start), .goal(seq: 2, team: .A, at: start, matchMs: 0, by: "ann")]
        state.pitches[0].gather = live
        live.teamA.players = [3]
        live.teamB.players = [4]
        state.pitches[1].gather = live
        let gatherActions: [GatherAction] = [
            .score(.A, delta: 1), .score(.A, delta: -1), .renameTeam(.A, name: "X"), .startTimer, .setScorer(seq: 2, scorer: nil, assist: nil),
            .cancelGoal(seq: 2), .endGather, .cancelGather, .startGather, .createGather(playerIDs: [1, 2]),
        ]
        for action in gatherActions {
            let one = GatherRules.subjects(of: .onPitch(1, action), in: state)
            let two = GatherRules.subjects(of: .onPitch(2, action), in: state)
            XCTAssertFalse(one.isEmpty, action.kind.rawValue)
            XCTAssertEqual(one.intersection(two).filter { if case .player = $0 { false } else { true } }, [],
                           "\(action.kind) on pitch 1 and on pitch 2")
        }
        XCTAssertEqual(GatherRules.subjects(of: .onPitch(2, .score(.A, delta: 1)), in: state), [.score(2, .A)])
        // −1 takes back goal #2, so it also meets a setScorer on that goal.
        XCTAssertEqual(GatherRules.subjects(of: .onPitch(2, .score(.A, delta: -1)), in: state),
                       [.score(2, .A), .goal(2, seq: 2)])
        XCTAssertEqual(GatherRules.subjects(of: .onPitch(2, .setScorer(seq: 2, scorer: 3, assist: nil)), in: state),
                       [.goal(2, seq: 2)])
        XCTAssertEqual(GatherRules.subjects(of: .onPitch(2, .cancelGoal(seq: 2)), in: state),
                       [.goal(2, seq: 2), .score(2, .A)])
        XCTAssertEqual(GatherRules.subjects(of: .onPitch(2, .endGather), in: state),
                       [.gather(2), .timer(2), .score(2, .A), .score(2, .B), .teamName(2, .A), .teamName(2, .B),
                        .player(3), .player(4), .goal(2, seq: 2)])
        XCTAssertEqual(GatherRules.subjects(of: .onPitch(2, .balanceTeams), in: state), [.player(3), .player(4)])
        XCTAssertEqual(GatherRules.subjects(of: .addPitch(name: "Side"), in: state), [.pitch(3)])
        XCTAssertEqual(GatherRules.subjects(of: .renamePitch(2, name: "Side"), in: state), [.pitch(2)])
        XCTAssertEqual(GatherRules.subjects(of: .removePitch(2), in: state), [.pitch(2), .gather(2)])
    }

    func testSubjectsSurviveTheirTextFormOnEveryPitch() {
        let subjects: [Subject] = [
            .player(12), .pitch(2), .score(1, .A), .score(2, .A), .teamName(1, .B), .teamName(16, .B), .timer(1),
            .timer(3), .gather(1), .gather(2), .goal(1, seq: 7), .goal(2, seq: 7),
        ]
        XCTAssertEqual(subjects.map(\.description), [
            "player:12", "pitch:2", "score:A", "score:A@2", "teamName:B", "teamName:B@16", "timer", "timer@3",
            "gather", "gather@2", "goal:7", "goal:7@2",
        ])
        XCTAssertEqual(subjects.map(\.description).compactMap(Subject.init(description:)), subjects)
        XCTAssertEqual(Set(subjects.map(\.description)).count, subjects.count, "no two subjects share a text")
    }

    func testJournalTextFromTheFirstReleaseReadsAsPitchOnesSubjects() {
        let firstRelease = ["score:A", "score:B", "timer", "gather", "teamName:A", "teamName:B", "player:6"]
        XCTAssertEqual(firstRelease.compactMap(Subject.init(description:)),
                       [.score(1, .A), .score(1, .B), .timer(1), .gather(1), .teamName(1, .A), .teamName(1, .B),
                        .player(6)])
        for bad in ["score:A@0", "score:A@x", "timer@", "timer@-2", "goal:x", "goal", "pitch:two", "score:C@2"] {
            XCTAssertNil(Subject(description: bad), bad)
        }
    }
}
