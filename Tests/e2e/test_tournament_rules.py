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
