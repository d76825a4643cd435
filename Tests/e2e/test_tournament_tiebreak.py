"""The two tie-break rules over the wire (PROTOCOL.md "A tournament day", Tables): the same group
played twice on the real binary, once under each rule, ranked differently where the contract
says they differ, as `/api/tournament.json` serves it."""
import json

from gatherlib import GatherServer, run, signed_in
from tournament_support import acked, create_action, play, tournament

TEAMS = ["Reds", "Blues", "Greens", "Golds"]
# (home, away) by seeding → (home goals, away goals). Reds and Blues end level on 4 points; Blues
# beat Reds, Reds have the better goal difference (+3 against 0). Golds win the group on 7.
RESULTS = {(1, 2): (0, 1), (1, 3): (4, 0), (1, 4): (0, 0), (2, 3): (0, 0), (2, 4): (0, 1), (3, 4): (0, 2)}


async def play_group(ann, tie_break):
    await acked(ann, create_action(TEAMS, groups=1, advance=2, pitches=[1], tieBreak=tie_break, name=f"Cup {tie_break}"))
    for match in [m for m in tournament(ann)["matches"] if m["stage"] == "group"]:
        home, away = RESULTS[(match["home"], match["away"])]
        await play(ann, match["id"], home, away)


def table_from_the_endpoint(server):
    status, _, body = server.get("/api/tournament.json")
    assert status == 200, status
    cup = json.loads(body)
    return cup["rules"]["tieBreak"], [(row["team"], row["points"], row["goalDifference"]) for row in cup["groups"][0]["table"]]


def test_goal_difference_and_head_to_head_rank_the_same_group_differently_over_the_wire():
    with GatherServer() as server:
        async def scenario():
            ann = await signed_in(server, "ann")
            await play_group(ann, "goalDifference")
            assert tournament(ann)["phase"] == "knockout"
            by_goal_difference = table_from_the_endpoint(server)
            await acked(ann, {"kind": "cancelTournament"})
            await play_group(ann, "headToHead")
            by_head_to_head = table_from_the_endpoint(server)
            final = next(m for m in tournament(ann)["matches"] if m["stage"] == "final")
            await ann.close()
            return by_goal_difference, by_head_to_head, final

        by_goal_difference, by_head_to_head, final = run(scenario())
        # Goal difference first: Reds (+3) above Blues (0), who beat them.
        assert by_goal_difference == ("goalDifference", [(4, 7, 3), (1, 4, 3), (2, 4, 0), (3, 1, -6)])
        # The match between them first: Blues above Reds.
        assert by_head_to_head == ("headToHead", [(4, 7, 3), (2, 4, 0), (1, 4, 3), (3, 1, -6)])
        # And the knockout follows the table: under headToHead, Blues go through with Golds.
        assert (final["home"], final["away"]) == (4, 2)
