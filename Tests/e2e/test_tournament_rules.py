"""The tournament's rules a venue runs again (PROTOCOL.md "Release 5: amendments … / The tournament,
as a venue runs it again"), over the wire against the real binary: the crossed knockout seeding,
"through" only when certain, a pitch with unplayed matches (`in_use`, `moveMatches`) and times
that follow the day."""
from gatherlib import GatherServer, run, signed_in
from tournament_support import acked, create_action, match, play, rejected, tournament

TEAMS16 = [f"Team {n:02d}" for n in range(1, 17)]


async def organiser(server, pitches=2):
    ann = await signed_in(server, "ann")
    for number in range(2, pitches + 1):
        await acked(ann, {"kind": "addPitch", "name": f"Pitch {number}"})
    return ann


def test_four_groups_two_through_cross_winners_and_runners_up_and_keep_a_group_apart():
    with GatherServer() as server:
        async def scenario():
            ann = await organiser(server)
            await acked(ann, create_action(TEAMS16, groups=4, advance=2))
            cup = tournament(ann)
            quarters = [m for m in cup["matches"] if m["stage"] == "quarterFinal"]
            assert [(m["homeFrom"], m["awayFrom"]) for m in quarters] == [
                ("A1", "B2"), ("C1", "D2"), ("B1", "A2"), ("D1", "C2")], quarters
            # Every group in seeding order (the higher seed wins 1–0): the places fill as listed.
            for m in [m for m in cup["matches"] if m["stage"] == "group"]:
                await play(ann, m["id"], 1, 0)
            cup = tournament(ann)
            table = {g["name"]: [row["team"] for row in g["table"]] for g in cup["groups"]}
            quarters = [match(ann, m["id"]) for m in quarters]
            assert [(m["home"], m["away"]) for m in quarters] == [
                (table["A"][0], table["B"][1]), (table["C"][0], table["D"][1]),
                (table["B"][0], table["A"][1]), (table["D"][0], table["C"][1])]
            group_of = {team: name for name, teams in table.items() for team in teams}
            semis = [m for m in cup["matches"] if m["stage"] == "semiFinal"]
            for m in quarters:
                await play(ann, m["id"], 2, 1)
            for m in semis:
                semi = match(ann, m["id"])
                assert group_of[semi["home"]] != group_of[semi["away"]], semi
            await ann.close()
        run(scenario())


def test_a_pitch_with_unplayed_matches_is_kept_until_they_move():
    with GatherServer() as server:
        async def scenario():
            ann = await organiser(server, pitches=3)
            await acked(ann, create_action(TEAMS16[:8], groups=2, advance=2, pitches=[1, 2, 3]))
            on_three = [m["id"] for m in tournament(ann)["matches"] if m["pitch"] == 3]
            assert on_three
            reply = await rejected(ann, {"kind": "removePitch", "pitch": 3}, "in_use", reason="pitch_has_matches")
            assert reply["matches"] == on_three, reply
            assert ", ".join(map(str, on_three)) in reply["message"], reply["message"]
            assert [p["id"] for p in ann.snapshot["pitches"]] == [1, 2, 3]
            # Every refusal changes nothing.
            await rejected(ann, {"kind": "moveMatches", "from": 3, "to": 4}, "invalid", reason="move_to_tournament_pitch")
            await rejected(ann, {"kind": "moveMatches", "from": 3, "to": 3}, "invalid", reason="move_to_tournament_pitch")
            await rejected(ann, {"kind": "moveMatches", "from": 3}, "invalid")
            await rejected(ann, {"kind": "moveMatches", "from": 7, "to": 1}, "not_found", reason="no_matches_to_move")
            before = {m["id"]: m for m in tournament(ann)["matches"]}
            await acked(ann, {"kind": "moveMatches", "from": 3, "to": 1})
            after = {m["id"]: m for m in tournament(ann)["matches"]}
            assert all(after[i]["pitch"] == 1 for i in on_three)
            assert all(after[i]["plannedAt"] == before[i]["plannedAt"] for i in after)
            # Pitch 1 plays them in planned order, one after another, a match and a break apart.
            rules = tournament(ann)["rules"]
            slot_ms = (rules["matchMinutes"] + rules["breakMinutes"]) * 60_000
            pitch_one = sorted((m for m in after.values() if m["pitch"] == 1), key=lambda m: (m["plannedAt"], m["id"]))
            for first, second in zip(pitch_one, pitch_one[1:]):
                assert second["expectedAt"] >= first["expectedAt"] + slot_ms, (first, second)
            assert any(after[i]["expectedAt"] > before[i]["expectedAt"] for i in on_three)
            await rejected(ann, {"kind": "moveMatches", "from": 3, "to": 1}, "not_found", reason="no_matches_to_move")
            await acked(ann, {"kind": "removePitch", "pitch": 3})
            # The calendar moved with them: their LOCATION is pitch 1's and SEQUENCE went up.
            status, _, body = server.get("/api/tournament.ics")
            assert status == 200
            text = body.decode().replace("\r\n ", "")
            event = text.split(f"UID:{tournament(ann)['id']}-match-{on_three[0]}@")[1].split("END:VEVENT")[0]
            assert "SEQUENCE:0" not in event, event
            await ann.close()
        run(scenario())


def test_times_follow_the_day_late_and_early():
    import time
    with GatherServer() as server:
        async def scenario():
            ann = await organiser(server)
            minute = 60_000
            # Planned 30 minutes ago: a match not started by now is expected now, not in the past.
            started = int(time.time() * 1000) - 30 * minute
            await acked(ann, create_action(TEAMS16[:8], groups=2, advance=2, startsAt=started, matchMinutes=10,
                                           breakMinutes=5))
            before = int(time.time() * 1000)
            await acked(ann, {"kind": "startMatch", "match": 1})
            late = tournament(ann)["matches"]
            assert late[1]["status"] == "scheduled" and late[1]["expectedAt"] >= before, late[1]
            assert late[2]["expectedAt"] >= late[0]["expectedAt"] + 15 * minute
            await acked(ann, {"kind": "cancelGather", "pitch": 1})
            await acked(ann, {"kind": "cancelTournament"})

            # Planned an hour from now: started early without startEarly, the next stays at its plan;
            # with startEarly, it follows the pitch (free a break after the match ended).
            ahead = int(time.time() * 1000) + 60 * minute
            for early in (False, True):
                await acked(ann, create_action(TEAMS16[:8], groups=2, advance=2, startsAt=ahead, matchMinutes=10,
                                               breakMinutes=5, name=f"Cup {early}"))
                await acked(ann, {"kind": "startMatch", "match": 1, **({"startEarly": True} if early else {})})
                await acked(ann, {"kind": "endGather", "pitch": 1})
                ended = int(time.time() * 1000)
                third = match(ann, 3)
                if early:
                    assert ended + 5 * minute - 2000 <= third["expectedAt"] <= ended + 5 * minute + 2000, third
                    assert third["expectedAt"] < third["plannedAt"]
                else:
                    assert third["expectedAt"] == third["plannedAt"], third
                await acked(ann, {"kind": "cancelTournament"})
            await rejected(ann, {"kind": "startMatch", "match": 1, "startEarly": "yes"}, "invalid")
            await ann.close()
        run(scenario())
