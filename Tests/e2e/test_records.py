"""Goals with scorers, players' records and ratings, the exports, and fair teams
(PROTOCOL.md "Goals, players' records and fair teams"), checked against arithmetic done here."""
import csv
import io
import itertools
import json
import math
import re

from gatherlib import GatherServer, pitch_gather, run, signed_in

STATS = ("games", "wins", "draws", "losses", "goals", "assists")
CSV_HEADER = "id,name,position,skill,rating,games,wins,draws,losses,goals,assists"
STARTING_RATING = {"beginner": 1000, "amateur": 1200, "professional": 1400, None: 1200}


# MARK: - The arithmetic of the contract, written out

def rounded_half_away_from_zero(value):
    return int(math.copysign(math.floor(abs(value) + 0.5), value))


def elo_delta(us, them, score):
    """What each player of `us` gains: 32 × (S − E) on the teams' mean ratings."""
    if not us or not them:
        return 0
    ours, theirs = sum(us) / len(us), sum(them) / len(them)
    expected = 1 / (1 + 10 ** ((theirs - ours) / 400))
    return rounded_half_away_from_zero(32 * (score - expected))


class Ledger:
    """The records the test expects, updated by hand as each gather ends."""

    def __init__(self):
        self.rating, self.stats = {}, {}

    def add(self, player_id, skill):
        self.rating[player_id] = STARTING_RATING[skill]
        self.stats[player_id] = dict.fromkeys(STATS, 0)

    def finish(self, team_a, team_b, goals):
        """`goals`: (team, scorer, assist) of the goals that stood."""
        score_a = sum(1 for team, _, _ in goals if team == "A")
        score_b = len(goals) - score_a
        s_a = 1 if score_a > score_b else 0.5 if score_a == score_b else 0
        before = dict(self.rating)
        for ours, theirs, s in ((team_a, team_b, s_a), (team_b, team_a, 1 - s_a)):
            delta = elo_delta([before[p] for p in ours], [before[p] for p in theirs], s)
            for player in ours:
                self.rating[player] += delta
                stats = self.stats[player]
                stats["games"] += 1
                stats[{1: "wins", 0.5: "draws", 0: "losses"}[s]] += 1
        for _, scorer, assist in goals:
            if scorer is not None:
                self.stats[scorer]["goals"] += 1
            if assist is not None:
                self.stats[assist]["assists"] += 1


# MARK: - Helpers

async def acked(live, action):
    reply = await live.command(action)
    assert reply["type"] == "ack", (action, reply)
    await live.wait_snapshot(reply["version"])
    return reply


async def refused(live, action, code):
    reply = await live.command(action)
    assert reply["type"] == "rejected" and reply["code"] == code, (action, reply)


async def line_up(live, team_a, team_b):
    await acked(live, {"kind": "createGather", "playerIds": [*team_a, *team_b]})
    for team, players in (("A", team_a), ("B", team_b)):
        for player in players:
            await acked(live, {"kind": "assign", "playerId": player, "to": team})
    await acked(live, {"kind": "startGather"})


def last_goal_seq(live):
    return [e for e in live.snapshot["gather"]["events"] if e["kind"] == "goal"][-1]["seq"]


def records(players):
    return {p["id"]: (p["rating"], p["stats"]) for p in players}


# MARK: - Scorers, records, ratings and exports

def test_goals_scorers_and_results_make_the_records_and_ratings_computed_by_hand():
    with GatherServer() as server:
        ledger = Ledger()

        async def scenario():
            ann = await signed_in(server, "ann")
            roster = [("Ann", "professional", "striker"), ("Ben", "amateur", None),
                      ("Cat, the Keeper", "beginner", "goalkeeper"), ("=Dan", None, None), ("Eve", "amateur", None)]
            for name, skill, position in roster:
                action = {"kind": "addPlayer", "name": name}
                if skill:
                    action["skill"] = skill
                if position:
                    action["position"] = position
                await acked(ann, action)
            ids = {p["name"]: p["id"] for p in ann.snapshot["players"]}
            for name, skill, _ in roster:
                ledger.add(ids[name], skill)
            # No games yet: Eve's rating follows her skill.
            await acked(ann, {"kind": "editPlayer", "playerId": ids["Eve"], "skill": "professional"})
            ledger.add(ids["Eve"], "professional")
            assert records(ann.snapshot["players"]) == {p: (ledger.rating[p], ledger.stats[p]) for p in ledger.rating}

            ann_, ben, cat, dan, eve = (ids[n] for n in ("Ann", "Ben", "Cat, the Keeper", "=Dan", "Eve"))
            # Gather 1: Ann and Ben against Cat and Dan; Eve waits on the bench.
            await line_up(ann, [ann_, ben], [cat, dan])
            await acked(ann, {"kind": "assign", "playerId": eve, "to": "bench"})
            await refused(ann, {"kind": "score", "team": "A", "delta": 1, "playerId": cat}, "invalid")
            await refused(ann, {"kind": "score", "team": "A", "delta": 1, "playerId": ann_, "assistId": ann_},
                          "invalid")
            await acked(ann, {"kind": "score", "team": "A", "delta": 1, "playerId": ann_, "assistId": ben})
            await acked(ann, {"kind": "score", "team": "A", "delta": 1})
            await acked(ann, {"kind": "setScorer", "seq": last_goal_seq(ann), "playerId": ben, "assistId": ann_})
            await acked(ann, {"kind": "score", "team": "B", "delta": 1, "playerId": dan})
            await acked(ann, {"kind": "score", "team": "A", "delta": 1, "playerId": ben})
            await acked(ann, {"kind": "cancelGoal", "seq": last_goal_seq(ann)})
            await refused(ann, {"kind": "cancelGoal", "seq": last_goal_seq(ann)}, "not_found")
            await acked(ann, {"kind": "score", "team": "B", "delta": 1, "playerId": cat, "assistId": dan})
            await acked(ann, {"kind": "setScorer", "seq": last_goal_seq(ann), "playerId": dan, "assistId": cat})
            await acked(ann, {"kind": "score", "team": "A", "delta": 1, "playerId": ann_})
            gather = ann.snapshot["gather"]
            assert gather["score"] == {"A": 3, "B": 2}
            goals = [(e["team"], e["playerId"], e["assistId"], e["cancelled"])
                     for e in gather["events"] if e["kind"] == "goal"]
            assert goals == [("A", ann_, ben, False), ("A", ben, ann_, False), ("B", dan, None, False),
                             ("A", ben, None, True), ("B", dan, cat, False), ("A", ann_, None, False)]
            cancelled = [e for e in gather["events"] if e["kind"] == "goalCancelled"]
            assert len(cancelled) == 1 and cancelled[0]["team"] == "A"
            await acked(ann, {"kind": "endGather"})
            first_goals = [("A", ann_, ben), ("A", ben, ann_), ("B", dan, None), ("B", dan, cat), ("A", ann_, None)]
            ledger.finish([ann_, ben], [cat, dan], first_goals)
            # Worked by hand: means 1300 v 1100, E = 1 / (1 + 10^-0.5) = 0.7597, 32 × 0.2403 = 7.69 → ±8.
            assert {p["name"]: p["rating"] for p in ann.snapshot["players"]} == {
                "Ann": 1408, "Ben": 1208, "Cat, the Keeper": 992, "=Dan": 1192, "Eve": 1400}
            assert [(g["team"], g["playerId"], g["assistId"]) for g in ann.snapshot["history"][0]["goals"]] \
                == first_goals

            # Gather 2: a goalless draw, three against two, on the ratings gather 1 left.
            await line_up(ann, [ann_, cat], [ben, dan, eve])
            await acked(ann, {"kind": "endGather"})
            ledger.finish([ann_, cat], [ben, dan, eve], [])

            # Gather 3: cancelled after a goal — it counts for nothing.
            await line_up(ann, [eve], [ben])
            await acked(ann, {"kind": "score", "team": "A", "delta": 1, "playerId": eve})
            await acked(ann, {"kind": "cancelGather"})

            expected = {p: (ledger.rating[p], ledger.stats[p]) for p in ledger.rating}
            assert records(ann.snapshot["players"]) == expected
            await ann.close()
            return ids, expected
        ids, expected = run(scenario())

        status, _, body = server.get("/api/players.json")
        assert status == 200
        exported = json.loads(body)["players"]
        assert {p["id"]: (p["rating"], p["stats"]) for p in exported} == expected
        assert [(p["name"], p["skill"], p["position"]) for p in exported][:3] == [
            ("Ann", "professional", "striker"), ("Ben", "amateur", None), ("Cat, the Keeper", "beginner", "goalkeeper")]

        status, headers, body = server.get("/api/players.csv")
        assert status == 200 and headers["content-type"].startswith("text/csv")
        assert body.startswith(b"\xef\xbb\xbf"), "a UTF-8 BOM, so Excel shows accented names"
        text = body.decode("utf-8-sig")
        assert text.split("\r\n", 1)[0] == CSV_HEADER
        assert '"Cat, the Keeper"' in text and ",'=Dan," in text
        rows = list(csv.DictReader(io.StringIO(text)))
        by_id = {int(r["id"]): r for r in rows}
        assert by_id[ids["=Dan"]]["name"] == "'=Dan" and by_id[ids["Cat, the Keeper"]]["name"] == "Cat, the Keeper"
        assert (by_id[ids["=Dan"]]["skill"], by_id[ids["=Dan"]]["position"]) == ("", "")
        for player_id, (rating, stats) in expected.items():
            row = by_id[player_id]
            assert int(row["rating"]) == rating and {k: int(row[k]) for k in STATS} == stats, row

        status, _, body = server.get("/api/history.csv")
        rows = list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))
        # The goals column by its name: the penalties and the correction follow it.
        goals = rows[0].index("goals")
        assert len(rows) == 3
        assert rows[1][goals] == "", "the goalless draw lists no goals"
        listed = [re.fullmatch(r"([AB]) \d+:\d\d (.+?)(?: \((.+)\))?", goal).groups() for goal in rows[2][goals].split("; ")]
        assert listed == [("A", "Ann", "Ben"), ("A", "Ben", "Ann"), ("B", "=Dan", None),
                          ("B", "=Dan", "Cat, the Keeper"), ("A", "Ann", None)], rows[2][goals]


# MARK: - Fair teams

def test_balance_teams_splits_sizes_and_goalkeepers_with_the_smallest_rating_gap():
    with GatherServer() as server:
        async def scenario():
            ann = await signed_in(server, "ann")
            squad = [("Gil", "professional", "goalkeeper"), ("Hal", "beginner", "goalkeeper"),
                     ("Ida", "amateur", "goalkeeper"), ("Jo", "professional", "striker"),
                     ("Kim", "professional", "winger"), ("Lou", "beginner", "defender"), ("Max", None, "midfielder")]
            for name, skill, position in squad:
                action = {"kind": "addPlayer", "name": name, "position": position}
                if skill:
                    action["skill"] = skill
                await acked(ann, action)
            # One finished gather first, so the ratings are no longer just the skill levels.
            players = [p["id"] for p in ann.snapshot["players"]]
            await line_up(ann, players[3:5], players[5:7])
            await acked(ann, {"kind": "score", "team": "B", "delta": 1})
            await acked(ann, {"kind": "endGather"})

            await acked(ann, {"kind": "createGather", "playerIds": players})
            await acked(ann, {"kind": "assign", "playerId": players[0], "to": "A"})
            await acked(ann, {"kind": "balanceTeams"})
            state = ann.snapshot
            gather = state["gather"]
            rating = {p["id"]: p["rating"] for p in state["players"]}
            keeper = {p["id"]: p["position"] == "goalkeeper" for p in state["players"]}
            team_a, team_b = gather["teams"]["A"]["players"], gather["teams"]["B"]["players"]
            assert gather["bench"] == [] and sorted(team_a + team_b) == sorted(players)
            assert abs(len(team_a) - len(team_b)) <= 1
            assert abs(sum(map(keeper.get, team_a)) - sum(map(keeper.get, team_b))) <= 1
            event = gather["events"][-1]
            assert event["kind"] == "teamsBalanced"
            assert event["difference"] == abs(sum(map(rating.get, team_a)) - sum(map(rating.get, team_b)))
            assert event["difference"] == smallest_gap(players, rating, keeper)

            # The same players with the same ratings give the same teams.
            await acked(ann, {"kind": "balanceTeams"})
            again = ann.snapshot["gather"]["teams"]
            assert {frozenset(again["A"]["players"]), frozenset(again["B"]["players"])} \
                == {frozenset(team_a), frozenset(team_b)}
            await acked(ann, {"kind": "startGather"})
            await refused(ann, {"kind": "balanceTeams"}, "wrong_phase")
            await ann.close()
        run(scenario())


def smallest_gap(players, rating, keeper):
    """Every split the contract allows, tried: the best rating gap."""
    best = None
    for size in range(len(players) + 1):
        for team_a in itertools.combinations(players, size):
            team_b = [p for p in players if p not in team_a]
            if abs(len(team_a) - len(team_b)) > 1:
                continue
            if abs(sum(map(keeper.get, team_a)) - sum(map(keeper.get, team_b))) > 1:
                continue
            gap = abs(sum(map(rating.get, team_a)) - sum(map(rating.get, team_b)))
            best = gap if best is None else min(best, gap)
    return best
