"""A tournament day over the wire (PROTOCOL.md "A tournament day", docs §6.7): every tournament
action and every error of the contract against the real binary, each refusal changing nothing."""
import json

from gatherlib import GatherServer, Live, pitch_gather, run, signed_in
from tournament_support import acked, create_action, kick_off, match, play, rejected, tournament

TEAMS = ["Reds", "Blues", "Greens", "Golds"]


async def venue(server):
    ann = await signed_in(server, "ann")
    bob = await signed_in(server, "bob")
    await acked(ann, {"kind": "addPitch", "name": "Back pitch"})
    for name in ("Ann", "Ben", "Cat", "Dan"):
        await acked(ann, {"kind": "addPlayer", "name": name})
    await bob.wait_snapshot(ann.version)
    return ann, bob


def test_without_a_tournament_its_actions_are_not_found_and_a_broken_rule_is_named():
    with GatherServer() as server:
        async def scenario():
            ann, bob = await venue(server)
            assert tournament(ann) is None
            for action in ({"kind": "setTournamentTeam", "team": 1, "name": "X"},
                           {"kind": "startMatch", "match": 1},
                           {"kind": "correctResult", "match": 1, "score": {"home": 1, "away": 0}},
                           {"kind": "cancelTournament"}):
                await rejected(ann, action, "not_found", "There is no tournament", reason="no_tournament")
            await rejected(ann, create_action(TEAMS, groups=3, advance=1), "invalid", "groups", reason="group_count")
            await rejected(ann, create_action(TEAMS, groups=2, advance=1, pitches=[1, 9]), "invalid", "9",
                           reason="no_such_pitch", params={"id": 9})
            await rejected(ann, create_action(["Reds", "REDS", "Blues"], groups=1, advance=2), "invalid",
                           reason="team_names_same", params={"first": 1, "second": 2, "name": "REDS"})
            # Several rules broken: every one in the English message, their number in the key's params.
            await rejected(ann, create_action(TEAMS, groups=3, advance=0), "invalid", "go through",
                           reason="tournament_rules_broken", params={"count": 2})
            await rejected(ann, create_action(TEAMS, groups=1, advance=3), "invalid",
                           reason="bracket_size", params={"groups": 1, "advance": 3, "places": 3})
            await rejected(ann, create_action(TEAMS, groups=2, advance=1, name=""), "invalid")
            assert tournament(ann) is None
            await acked(ann, create_action(TEAMS, groups=2, advance=1))
            cup = tournament(ann)
            assert cup["phase"] == "groups"
            assert [t["name"] for t in cup["teams"]] == TEAMS
            assert [g["teams"] for g in cup["groups"]] == [[1, 3], [2, 4]]
            assert [m["stage"] for m in cup["matches"]] == ["group", "group", "final"]
            assert cup["matches"][2]["homeFrom"] == "A1" and cup["matches"][2]["awayFrom"] == "B1"
            await bob.wait_snapshot(ann.version)
            await rejected(bob, create_action(TEAMS, groups=2, advance=1), "in_use", "still being played",
                           reason="tournament_under_way", params={"tournament": "Riverside Cup"})
            # The spectator door's twin, the TLS spectator (not signed in), is refused.
            viewer = await Live.connect(server)
            await viewer.next()
            reply = await viewer.command({"kind": "cancelTournament"})
            assert reply["type"] == "rejected" and reply["code"] == "forbidden", reply
            await viewer.close()
            for client in (ann, bob):
                await client.close()
        run(scenario())


def test_teams_matches_results_corrections_and_cancelling():
    with GatherServer() as server:
        async def scenario():
            ann, bob = await venue(server)
            await acked(ann, create_action(TEAMS, groups=2, advance=1))
            ids = {p["name"]: p["id"] for p in ann.snapshot["players"]}

            # setTournamentTeam: a player on one team only; unknown team or player not_found.
            await acked(ann, {"kind": "setTournamentTeam", "team": 1, "colour": "red", "players": [ids["Ann"]]})
            await acked(ann, {"kind": "setTournamentTeam", "team": 3, "name": "Green Army", "players": [ids["Ben"]]})
            await rejected(ann, {"kind": "setTournamentTeam", "team": 2, "players": [ids["Ann"]]}, "in_use", "Reds",
                           reason="player_on_other_team", params={"player": ids["Ann"], "team": "Reds"})
            await rejected(ann, {"kind": "setTournamentTeam", "team": 9, "name": "Nobody"}, "not_found",
                           reason="no_such_team", params={"team": 9})
            await rejected(ann, {"kind": "setTournamentTeam", "team": 2, "name": "green army"}, "invalid",
                           reason="team_name_taken", params={"team": 3, "name": "Green Army"})
            await rejected(ann, {"kind": "setTournamentTeam", "team": 2, "players": [999]}, "not_found")
            await rejected(ann, {"kind": "setTournamentTeam", "team": 2, "colour": "mauve"}, "invalid")

            # startMatch: the pitch's gather starts live, Team A at home.
            pitch = await kick_off(ann, 1)
            gather = pitch_gather(ann.snapshot, pitch)
            assert gather["phase"] == "live"
            assert gather["teams"]["A"]["name"] == "Reds" and gather["teams"]["A"]["colour"] == "red"
            assert gather["teams"]["A"]["players"] == [ids["Ann"]]
            assert gather["teams"]["B"]["name"] == "Green Army" and gather["teams"]["B"]["players"] == [ids["Ben"]]
            assert gather["timer"]["status"] == "stopped" and gather["timer"]["durationSeconds"] == 600
            assert gather["match"] == {"tournament": tournament(ann)["id"], "match": 1}
            assert match(ann, 1)["status"] == "live"
            await rejected(ann, {"kind": "startMatch", "match": 1}, "wrong_phase", reason="match_under_way", params={"match": 1})
            await rejected(ann, {"kind": "startMatch", "match": 3}, "wrong_phase", "not known yet",
                           reason="match_teams_unknown", params={"match": 3, "home": "A1", "away": "B1"})
            await rejected(ann, {"kind": "startMatch", "match": 42}, "not_found", reason="no_such_match", params={"match": 42})
            # A roster player of match 2's team playing on pitch 1: in_use; a busy pitch: in_use.
            await acked(ann, {"kind": "setTournamentTeam", "team": 2, "players": [ids["Cat"]]})
            await acked(ann, {"kind": "assign", "pitch": 1, "playerId": ids["Cat"], "to": "B"})
            await rejected(ann, {"kind": "startMatch", "match": 2}, "in_use", "Cat is playing")
            await acked(ann, {"kind": "assign", "pitch": 1, "playerId": ids["Cat"], "to": "out"})
            await acked(ann, {"kind": "createGather", "pitch": 2, "playerIds": [ids["Dan"], ids["Cat"]]})
            await rejected(ann, {"kind": "startMatch", "match": 2}, "in_use", "Back pitch",
                           reason="pitch_in_use", params={"pitch": "Back pitch"})
            await acked(ann, {"kind": "cancelGather", "pitch": 2})

            # cancelGather puts the match back; penalties on a group match are invalid.
            await acked(ann, {"kind": "cancelGather", "pitch": pitch})
            assert match(ann, 1)["status"] == "scheduled" and pitch_gather(ann.snapshot, pitch) is None
            pitch = await kick_off(ann, 1)
            await acked(ann, {"kind": "score", "team": "A", "delta": 1, "pitch": pitch})
            before = ann.version
            await rejected(ann, {"kind": "endGather", "pitch": pitch, "penalties": {"A": 4, "B": 3}}, "invalid",
                           "group match", reason="penalties_group_match", params={"match": 1})
            await rejected(ann, {"kind": "endGather", "pitch": pitch, "penalties": {"A": "x"}}, "invalid")
            reply = await acked(ann, {"kind": "endGather", "pitch": pitch})
            assert reply["version"] == before + 1, "the result and the history entry are one change"
            finished = match(ann, 1)
            assert finished["score"] == {"home": 1, "away": 0} and finished["winner"] == 1
            entry = ann.snapshot["history"][0]
            assert finished["historyId"] == entry["id"]
            assert entry["match"] == {"tournament": tournament(ann)["id"], "match": 1}
            assert tournament(ann)["groups"][0]["table"][0]["team"] == 1

            # correctResult: only a finished match; penalties only for a level knockout score.
            await rejected(ann, {"kind": "correctResult", "match": 2, "score": {"home": 1, "away": 0}}, "wrong_phase",
                           reason="match_not_finished", params={"match": 2})
            await rejected(ann, {"kind": "correctResult", "match": 1, "score": {"home": 1, "away": 1},
                                 "penalties": {"home": 3, "away": 2}}, "invalid")
            await bob.wait_snapshot(ann.version)
            await acked(bob, {"kind": "correctResult", "match": 1, "score": {"home": 0, "away": 2}})
            assert match(bob, 1)["winner"] == 3
            assert [row["team"] for row in tournament(bob)["groups"][0]["table"]] == [3, 1]
            corrected = bob.snapshot["history"][0]
            assert (corrected["score"], corrected["winner"]) == ({"A": 0, "B": 2}, "B"), "history follows the correction"
            assert corrected["correctedBy"] == "bob" and corrected["correctedAt"] > 0, corrected

            # The group stage over, the final knows its teams; a correction that would change who
            # plays a match already started is in_use.
            await play(ann, 2, 2, 0)
            assert match(ann, 3)["home"] == 3 and match(ann, 3)["away"] == 2
            await kick_off(ann, 3)
            await rejected(ann, {"kind": "correctResult", "match": 1, "score": {"home": 3, "away": 0}}, "in_use",
                           "already started", reason="result_moves_live_match", params={"match": 3})

            # Arbitration: bob's change from an old base to the team ann changed since conflicts.
            await bob.wait_snapshot(ann.version)
            stale = bob.version
            await acked(ann, {"kind": "setTournamentTeam", "team": 4, "colour": "yellow"})
            await rejected(bob, {"kind": "setTournamentTeam", "team": 4, "colour": "black"}, "conflict", "ann changed",
                           base=stale)
            await acked(bob, {"kind": "setTournamentTeam", "team": 2, "colour": "blue"}, base=stale)

            # cancelTournament: null in the state, kept as cancelled; the live gather stays.
            cup_id = tournament(ann)["id"]
            final_pitch = match(ann, 3)["pitch"]
            assert pitch_gather(ann.snapshot, final_pitch)["match"]["match"] == 3
            await acked(ann, {"kind": "cancelTournament"})
            assert tournament(ann) is None
            assert pitch_gather(ann.snapshot, final_pitch)["phase"] == "live"
            assert "match" not in pitch_gather(ann.snapshot, final_pitch)
            await rejected(ann, {"kind": "cancelTournament"}, "not_found", reason="no_tournament")
            status, _, body = server.get("/api/tournaments.json")
            listed = json.loads(body)["tournaments"]
            assert status == 200 and [(t["id"], t["cancelled"]) for t in listed] == [(cup_id, True)]
            status, _, body = server.get("/api/tournament.json")
            assert json.loads(body) is None
            for client in (ann, bob):
                await client.close()
        run(scenario())
