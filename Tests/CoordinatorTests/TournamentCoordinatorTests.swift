import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherPresenters
import GatherStore
import XCTest

/// The tournament scope through the whole core: creating a tournament, its teams and starting its
/// matches, with every error of the contract.
final class TournamentCoordinatorTests: TournamentCoordinatorTestCase {
    // MARK: - createTournament

    func testWithoutATournamentEveryOtherActionIsNotFound() {
        for (id, action) in [("team", ["kind": "setTournamentTeam", "team": 1, "name": "Reds"] as JSONValue),
                             ("start", ["kind": "startMatch", "match": 1]),
                             ("correct", ["kind": "correctResult", "match": 1, "score": ["home": 1, "away": 0]]),
                             ("cancel", ["kind": "cancelTournament"])] {
            harness.rejected(ann, id: id, action, code: .notFound, messageContains: "There is no tournament")
        }
    }

    func testCreateTournamentMakesEveryMatchAtOnceAndASecondOneIsInUse() throws {
        harness.prepare(ann, id: "pitch-2", ["kind": "addPitch", "name": "Back pitch"])
        let now = harness.clock.now
        commandDrawingID(ann, id: "cup", Self.cup()) { state, id in
            let draft = try! TournamentSetup.draft(from: Self.cup(), pitches: [1, 2], now: now).get()
            state.tournament = Tournament(id: id, draft: draft)
        }
        let tournament = try XCTUnwrap(harness.state.tournament)
        XCTAssertEqual(tournament.teams.map(\.name), ["Reds", "Blues", "Greens", "Golds"])
        XCTAssertEqual(tournament.matches.map(\.stage), [.group, .group, .final])
        XCTAssertEqual(tournament.matches.map(\.pitch), [1, 2, 1])
        XCTAssertEqual(tournament.phase, .groups)
        harness.rejected(bob, id: "again", Self.cup(), code: .inUse, messageContains: "Riverside Cup is still being played")
        let journal = try harness.store.journal(after: 0)
        XCTAssertEqual(journal.last?.kind, .createTournament)
        XCTAssertEqual(journal.last?.subjects, [.tournamentSettings])
        XCTAssertEqual(journal.last?.summary, "Created the tournament Riverside Cup")
    }

    func testABrokenRuleIsInvalidWithASentenceAndChangesNothing() {
        harness.rejected(ann, id: "three", Self.cup(pitches: [1], groups: 3), code: .invalid, messageContains: "groups")
        let action = Self.cup(pitches: [7])
        harness.rejected(ann, id: "pitch 7", action, code: .invalid, messageContains: "7")
        XCTAssertNil(harness.state.tournament)
    }

    // MARK: - setTournamentTeam

    func testSetTournamentTeamChangesTheTeamAndKeepsAPlayerOnOneTeam() {
        harness.addThreePlayers(by: ann)
        createCup()
        harness.command(ann, id: "reds", ["kind": "setTournamentTeam", "team": 1, "colour": "red", "players": [1, 2]]) { state in
            state.tournament!.teams[0].colour = .red
            state.tournament!.teams[0].players = [1, 2]
        }
        harness.rejected(ann, id: "bob twice", ["kind": "setTournamentTeam", "team": 2, "players": [2]], code: .inUse,
                         messageContains: "already on Reds")
        harness.rejected(ann, id: "no team", ["kind": "setTournamentTeam", "team": 9, "name": "X"], code: .notFound)
        harness.rejected(ann, id: "no player", ["kind": "setTournamentTeam", "team": 2, "players": [42]], code: .notFound)
        harness.rejected(ann, id: "same name", ["kind": "setTournamentTeam", "team": 2, "name": "REDS"], code: .invalid)
        harness.rejected(ann, id: "nothing", ["kind": "setTournamentTeam", "team": 2], code: .invalid)
    }

    // MARK: - startMatch

    func testStartMatchPutsTheMatchLiveOnItsPitchWithBothTeams() throws {
        harness.addThreePlayers(by: ann)
        createCup()
        harness.prepare(ann, id: "reds", ["kind": "setTournamentTeam", "team": 1, "colour": "red", "players": [1]])
        harness.prepare(ann, id: "greens", ["kind": "setTournamentTeam", "team": 3, "players": [2, 3]])
        harness.clock.advance(byMs: 7 * 60_000)
        let now = harness.clock.now
        commandDrawingID(bob, id: "start 1", ["kind": "startMatch", "match": 1]) { state, gatherID in
            let gather = state.tournament!.gather(for: 1, id: gatherID, at: now, by: "bob")!
            XCTAssertEqual(gather.phase, .live)
            XCTAssertEqual(gather.teamA, Team(name: "Reds", players: [1], colour: .red))
            XCTAssertEqual(gather.teamB, Team(name: "Greens", players: [2, 3]))
            XCTAssertEqual(gather.timer, MatchTimer(status: .stopped, durationSeconds: 600))
            XCTAssertEqual(gather.match, TournamentMatchLink(tournament: state.tournament!.id, match: 1))
            XCTAssertEqual(gather.events.map(\.kind), [.kickoff])
            state.pitches[0].gather = gather
            try! state.tournament!.startMatch(1, at: now)
        }
        let match = try XCTUnwrap(harness.state.tournament?.match(1))
        XCTAssertEqual(match.status, .live)
        XCTAssertEqual(match.expectedAt, now, "a live match's expectedAt is its kickoff")
        // The final on the same pitch moves with it: 7 minutes late.
        XCTAssertEqual(harness.state.tournament?.match(3)?.expectedAt, now + 10 * 60_000 + 5 * 60_000)
        XCTAssertEqual(harness.state.tournament?.match(3)?.revision, 1)

        harness.rejected(ann, id: "again", ["kind": "startMatch", "match": 1], code: .wrongPhase, messageContains: "already being played")
        harness.rejected(ann, id: "final", ["kind": "startMatch", "match": 3], code: .wrongPhase, messageContains: "not known yet")
        harness.rejected(ann, id: "none", ["kind": "startMatch", "match": 99], code: .notFound)
    }

    func testStartMatchIsInUseWhileItsPitchHasAGatherOrARosterPlayerPlaysElsewhere() {
        harness.addThreePlayers(by: ann)
        createCup()
        harness.prepare(ann, id: "g1", ["kind": "createGather", "playerIds": [1, 2]])
        harness.rejected(ann, id: "busy", ["kind": "startMatch", "match": 1], code: .inUse, messageContains: "gather under way")
        harness.prepare(ann, id: "blues", ["kind": "setTournamentTeam", "team": 2, "players": [1]])
        harness.rejected(ann, id: "ann busy", ["kind": "startMatch", "match": 2], code: .inUse, messageContains: "Ann is playing on Pitch 1")
        harness.prepare(ann, id: "cancel", ["kind": "cancelGather"])
        harness.prepare(ann, id: "start 2", ["kind": "startMatch", "match": 2])
        XCTAssertEqual(harness.state.pitch(2)?.gather?.teamA.players, [1])
    }
}
