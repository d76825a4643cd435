"""Makes `release4.sqlite`: a small database written by the fourth release's `gather` binary.

Run it with the FOURTH release's binary (commit 550d9aa, main before "one result everywhere"),
never with a newer one: the migration tests open this file with the current build and check
that nothing was lost, and every later migration is run on it.

    GATHER_BIN=/path/to/release4/gather python3 Tests/Fixtures/make_release4_fixture.py

What it holds: two organisers, `ann` (the owner, first registered) then `bob`, each with a
session; 8 players; three pitches (the third renamed); on pitch 1 an ordinary gather (kit
colours, named scorers, a goal cancelled then restored) that ended; a tournament created then
cancelled ("Spring Cup"); a tournament played to its champion ("Riverside Cup": 6 teams, 4 with
rosters, in 2 groups of 3, two through, semi-finals, third place and final on pitches 1 and 2, a
semi-final decided on penalties 5–4, named scorers, a renamed team) with a group match's result
corrected afterwards (Reds v Greens, 1–0 to 3–0); then 20 ordinary gathers on pitch 1 (Bob v
Eve), which push every match of the cup out of the state's recent history (into the history
table alone); then a live ordinary gather on pitch 3 with a cancelled goal, a gather being set
up on pitch 2, and a rejected command in the exactly-once memory. The journal (the activity
list) holds every change with its keyed sentence.
"""
from fixturelib import PLAYERS, ann_and_bob, write_fixture
from gatherlib import GatherServer  # on the path through fixturelib

MORE_PLAYERS = [
    {"name": "Gus", "age": 35, "skill": "amateur", "position": "defender", "favouriteTeam": "Benfica"},
    {"name": "Hal", "skill": "beginner", "position": "striker"},
]
# Before the server's clock: every match may start at once.
STARTS_AT = 1_790_000_000_000
SUNDAYS_AFTER = 20


def cup(name, teams, groups, advance, **rules):
    return {"kind": "createTournament", "name": name, "teams": teams, "groups": groups, "advance": advance,
            "pitches": [1, 2], "matchMinutes": 10, "breakMinutes": 5, "startsAt": STARTS_AT, **rules}


async def build(server: GatherServer):
    ann, bob, do = await ann_and_bob(server)

    def goals(who, pitch):
        gather = next(p for p in who.snapshot["pitches"] if p["id"] == pitch)["gather"]
        return [e["seq"] for e in gather["events"] if e["kind"] == "goal"]

    def match(who, match_id):
        return next(m for m in who.snapshot["tournament"]["matches"] if m["id"] == match_id)

    def roster(who, team):
        return next(t for t in who.snapshot["tournament"]["teams"] if t["id"] == team)["players"]

    async def play(who, match_id, home_goals, away_goals, penalties=None):
        """Starts the match, scores `home_goals`–`away_goals` (named: a team's first player scores,
        its second assists; a team without players scores unnamed) and ends it."""
        await do(who, {"kind": "startMatch", "match": match_id})
        started = match(who, match_id)
        for side, team, count in (("A", started["home"], home_goals), ("B", started["away"], away_goals)):
            players = roster(who, team)
            for _ in range(count):
                goal = {"kind": "score", "pitch": started["pitch"], "team": side, "delta": 1}
                if players:
                    goal["playerId"] = players[0]
                    goal["assistId"] = players[1] if len(players) > 1 else None
                await do(who, goal)
        end = {"kind": "endGather", "pitch": started["pitch"]}
        if penalties:
            end["penalties"] = {"A": penalties[0], "B": penalties[1]}
        await do(who, end)
        finished = match(who, match_id)
        assert finished["status"] == "finished", finished
        return finished

    for player in PLAYERS + MORE_PLAYERS:
        await do(ann, {"kind": "addPlayer", **player})
    await do(bob, {"kind": "addPitch", "name": "Back pitch"})
    await do(ann, {"kind": "addPitch", "name": "Cage"})
    await do(ann, {"kind": "renamePitch", "pitch": 3, "name": "Five-a-side cage"})

    # Pitch 1, an ordinary Sunday: Whites (Ann, Bob, Cid) in yellow 2–1 Reds (Dee, Eve, Fay) in
    # purple; a goal for A cancelled, then restored.
    await do(ann, {"kind": "createGather", "playerIds": [1, 2, 3, 4, 5, 6]})
    for pid, team in [(1, "A"), (2, "A"), (3, "A"), (4, "B"), (5, "B"), (6, "B")]:
        await do(ann, {"kind": "assign", "playerId": pid, "to": team})
    await do(bob, {"kind": "renameTeam", "team": "A", "name": "Whites"})
    await do(bob, {"kind": "renameTeam", "team": "B", "name": "Reds"})
    await do(ann, {"kind": "setTeamColour", "team": "A", "colour": "yellow"})
    await do(ann, {"kind": "setTeamColour", "team": "B", "colour": "purple"})
    await do(ann, {"kind": "startGather"})
    await do(ann, {"kind": "score", "team": "A", "delta": 1, "playerId": 1, "assistId": 2})
    await do(bob, {"kind": "score", "team": "B", "delta": 1, "playerId": 6})
    await do(ann, {"kind": "score", "team": "A", "delta": 1, "playerId": 3})
    seq = max(goals(ann, 1))
    await do(bob, {"kind": "cancelGoal", "seq": seq})
    await do(ann, {"kind": "restoreGoal", "seq": seq})
    await do(ann, {"kind": "endGather"})

    # A tournament created, then called off: kept as cancelled.
    await do(bob, cup("Spring Cup", ["Ash", "Elm", "Oak", "Yew"], groups=2, advance=1))
    await do(bob, {"kind": "cancelTournament"})
    assert ann.snapshot["tournament"] is None

    # The Riverside Cup: six teams, groups A (Reds, Greens, Whites) and B (Blues, Golds, Blacks),
    # two through, crossed semi-finals (A1–B2, B1–A2), third place and final. Whites and Blacks
    # have no players (their goals are unnamed).
    teams = ["Reds", "Blues", "Greens", "Golds", "Whites", "Blacks"]
    await do(ann, cup("Riverside Cup", teams, groups=2, advance=2, thirdPlace=True))
    for team, players, colour in [(1, [1, 2], "red"), (2, [3, 4], "blue"), (3, [5, 6], "green"), (4, [7, 8], "yellow")]:
        await do(ann, {"kind": "setTournamentTeam", "team": team, "players": players, "colour": colour})
    await do(bob, {"kind": "setTournamentTeam", "team": 4, "name": "Old Golds"})
    matches = ann.snapshot["tournament"]["matches"]
    stages = [m["stage"] for m in matches]
    assert stages == ["group"] * 6 + ["semiFinal"] * 2 + ["thirdPlace", "final"], stages
    semi1, semi2, third, final = (m["id"] for m in matches[6:])
    # In each group the lower seed wins every match by one goal: A1 Reds, A2 Greens, B1 Blues, B2 Old Golds.
    for index, group_match in enumerate(matches[:6]):
        home, away = group_match["home"], group_match["away"]
        await play(ann if index % 2 else bob, group_match["id"], *((1, 0) if home < away else (0, 1)))
    reds_greens = next(m for m in matches[:6] if {m["home"], m["away"]} == {1, 3})
    assert [(match(ann, m)["home"], match(ann, m)["away"]) for m in (semi1, semi2)] == [(1, 4), (2, 3)]
    # Semi-final 1, Reds 1–1 Old Golds, Reds through 5–4 on penalties; semi-final 2, Blues 0–2 Greens.
    decided = await play(ann, semi1, 1, 1, penalties=(5, 4))
    assert decided["winner"] == 1 and decided["penalties"] == {"home": 5, "away": 4}, decided
    await play(bob, semi2, 0, 2)
    await play(ann, third, 3, 1)
    await play(bob, final, 2, 1)
    assert ann.snapshot["tournament"]["phase"] == "finished" and ann.snapshot["tournament"]["champion"] == 1
    # Reds v Greens was 3–0, not 1–0 (the standings, and so the bracket, stay).
    corrected = {"home": 3, "away": 0} if reds_greens["home"] == 1 else {"home": 0, "away": 3}
    await do(bob, {"kind": "correctResult", "match": reds_greens["id"], "score": corrected})
    assert match(ann, reds_greens["id"])["score"] == corrected

    # A season of Sundays after the cup: 20 ordinary gathers on pitch 1, so that every match of the
    # cup has left the state's recent history (the last 20) and lives only in the history table.
    for game in range(SUNDAYS_AFTER):
        await do(ann, {"kind": "createGather", "playerIds": [2, 5]})
        await do(ann, {"kind": "assign", "playerId": 2, "to": "A"})
        await do(ann, {"kind": "assign", "playerId": 5, "to": "B"})
        await do(ann, {"kind": "startGather"})
        for _ in range(game % 3):
            await do(ann, {"kind": "score", "team": "A", "delta": 1, "playerId": 2})
        if game % 2:
            await do(bob, {"kind": "score", "team": "B", "delta": 1, "playerId": 5})
        await do(bob, {"kind": "endGather"})

    # Afterwards, an ordinary gather live on the cage with a goal cancelled, and one being set up
    # on the back pitch, balanced by rating.
    await do(bob, {"kind": "createGather", "pitch": 3, "playerIds": [1, 4, 7]})
    for pid, team in [(1, "A"), (4, "B"), (7, "B")]:
        await do(bob, {"kind": "assign", "pitch": 3, "playerId": pid, "to": team})
    await do(bob, {"kind": "setTimer", "pitch": 3, "minutes": 8, "seconds": 0})
    await do(bob, {"kind": "startGather", "pitch": 3})
    await do(ann, {"kind": "score", "pitch": 3, "team": "B", "delta": 1, "playerId": 7})
    await do(bob, {"kind": "cancelGoal", "pitch": 3, "seq": max(goals(bob, 3))})
    await do(ann, {"kind": "score", "pitch": 3, "team": "A", "delta": 1, "playerId": 1})
    await do(ann, {"kind": "createGather", "pitch": 2, "playerIds": [2, 3, 5, 6]})
    await do(ann, {"kind": "balanceTeams", "pitch": 2})
    reply = await bob.command({"kind": "removePlayer", "playerId": 7}, command_id="kept-rejection")
    assert reply["type"] == "rejected", reply
    await ann.close()
    await bob.close()


def main():
    write_fixture("release4.sqlite", build)


if __name__ == "__main__":
    main()
