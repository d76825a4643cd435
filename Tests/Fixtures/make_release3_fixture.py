"""Makes `release3.sqlite`: a small database written by the third release's `gather` binary.

Run it with the THIRD release's binary (commit be1d633, main before the tournament's schema),
never with a newer one: the migration tests open this file with the current build and check
that nothing was lost.

    GATHER_BIN=/path/to/release3/gather python3 Tests/Fixtures/make_release3_fixture.py

What it holds: two organisers, `ann` (the owner, first registered) then `bob`, each with a
session; 6 players; three pitches (the third renamed); on pitch 1 a finished gather (kit
colours, named scorers, a goal cancelled then restored) kept as its "Full time"; on pitch 2 a
finished gather then a live one with a cancelled goal and a balanced line-up; pitch 3 empty; a
rejected command in the exactly-once memory.
"""
from fixturelib import PLAYERS, ann_and_bob, write_fixture
from gatherlib import GatherServer  # on the path through fixturelib


async def build(server: GatherServer):
    ann, bob, do = await ann_and_bob(server)

    def goals(who, pitch):
        gather = next(p for p in who.snapshot["pitches"] if p["id"] == pitch)["gather"]
        return [e["seq"] for e in gather["events"] if e["kind"] == "goal"]

    for player in PLAYERS:
        await do(ann, {"kind": "addPlayer", **player})
    await do(bob, {"kind": "addPitch", "name": "Back pitch"})
    await do(ann, {"kind": "addPitch", "name": "Cage"})
    await do(ann, {"kind": "renamePitch", "pitch": 3, "name": "Five-a-side cage"})
    # Pitch 1: Whites (Ann, Bob, Cid) in yellow 2–1 Reds (Dee, Eve, Fay) in purple; a goal for A
    # cancelled, then restored.
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
    # Pitch 2: a 0–1 that ended, then a live gather balanced by rating, with a goal cancelled.
    await do(bob, {"kind": "createGather", "pitch": 2, "playerIds": [1, 4, 5]})
    for pid, team in [(1, "A"), (4, "B"), (5, "B")]:
        await do(bob, {"kind": "assign", "pitch": 2, "playerId": pid, "to": team})
    await do(bob, {"kind": "startGather", "pitch": 2})
    await do(bob, {"kind": "score", "pitch": 2, "team": "B", "delta": 1, "playerId": 4, "assistId": 5})
    await do(bob, {"kind": "endGather", "pitch": 2})
    await do(ann, {"kind": "createGather", "pitch": 2, "playerIds": [2, 3, 5, 6]})
    await do(ann, {"kind": "balanceTeams", "pitch": 2})
    await do(ann, {"kind": "setTimer", "pitch": 2, "minutes": 8, "seconds": 0})
    await do(ann, {"kind": "startGather", "pitch": 2})
    await do(bob, {"kind": "score", "pitch": 2, "team": "B", "delta": 1})
    await do(ann, {"kind": "cancelGoal", "pitch": 2, "seq": max(goals(ann, 2))})
    await do(bob, {"kind": "score", "pitch": 2, "team": "A", "delta": 1, "playerId": 2})
    reply = await bob.command({"kind": "removePlayer", "playerId": 2}, command_id="kept-rejection")
    assert reply["type"] == "rejected", reply
    await ann.close()
    await bob.close()


def main():
    write_fixture("release3.sqlite", build)


if __name__ == "__main__":
    main()
