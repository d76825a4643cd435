"""Makes `release2.sqlite`: a small database written by the second release's `gather` binary.

Run it with the SECOND release's binary (commit 73059db, main before release 3's accounts),
never with a newer one: the migration tests open this file with the current build and check
that nothing was lost.

    GATHER_BIN=/path/to/release2/gather python3 Tests/Fixtures/make_release2_fixture.py

What it holds: two organisers registered in this order, `ann` then `bob` (each with a session;
the oldest, ann, must become the owner), 6 players, a second pitch, finished gathers on both
pitches with named scorers and assists (and a cancelled goal), and a live gather on pitch 2
with a scorer named after the +1; a rejected command in the exactly-once memory.
"""
from fixturelib import PLAYERS, ann_and_bob, write_fixture
from gatherlib import GatherServer  # on the path through fixturelib


async def build(server: GatherServer):
    ann, bob, do = await ann_and_bob(server)

    for player in PLAYERS:
        await do(ann, {"kind": "addPlayer", **player})
    await do(bob, {"kind": "addPitch", "name": "Back pitch"})
    # Pitch 1: Whites (Ann, Bob, Cid) 2–1 Team B (Dee, Eve, Fay); a goal for B cancelled.
    await do(ann, {"kind": "createGather", "playerIds": [1, 2, 3, 4, 5, 6]})
    for pid, team in [(1, "A"), (2, "A"), (3, "A"), (4, "B"), (5, "B"), (6, "B")]:
        await do(ann, {"kind": "assign", "playerId": pid, "to": team})
    await do(bob, {"kind": "renameTeam", "team": "A", "name": "Whites"})
    await do(ann, {"kind": "startGather"})
    await do(ann, {"kind": "score", "team": "A", "delta": 1, "playerId": 1, "assistId": 2})
    await do(bob, {"kind": "score", "team": "B", "delta": 1, "playerId": 6})
    await do(bob, {"kind": "score", "team": "B", "delta": -1})
    await do(ann, {"kind": "score", "team": "A", "delta": 1})
    goal = max(e["seq"] for e in ann.snapshot["pitches"][0]["gather"]["events"] if e["kind"] == "goal")
    await do(bob, {"kind": "setScorer", "seq": goal, "playerId": 3, "assistId": None})
    await do(bob, {"kind": "score", "team": "B", "delta": 1, "playerId": 4, "assistId": 5})
    await do(ann, {"kind": "endGather"})
    # Pitch 2: a 1–0 that ended, then a live gather with a goal whose scorer came later.
    await do(bob, {"kind": "createGather", "pitch": 2, "playerIds": [1, 4, 5]})
    for pid, team in [(1, "A"), (4, "B"), (5, "B")]:
        await do(bob, {"kind": "assign", "pitch": 2, "playerId": pid, "to": team})
    await do(bob, {"kind": "startGather", "pitch": 2})
    await do(bob, {"kind": "score", "pitch": 2, "team": "A", "delta": 1, "playerId": 1})
    await do(bob, {"kind": "endGather", "pitch": 2})
    await do(ann, {"kind": "createGather", "pitch": 2, "playerIds": [2, 3, 6]})
    for pid, team in [(2, "A"), (3, "B"), (6, "B")]:
        await do(ann, {"kind": "assign", "pitch": 2, "playerId": pid, "to": team})
    await do(ann, {"kind": "setTimer", "pitch": 2, "minutes": 8, "seconds": 0})
    await do(ann, {"kind": "startGather", "pitch": 2})
    await do(bob, {"kind": "score", "pitch": 2, "team": "B", "delta": 1})
    goal = max(e["seq"] for e in bob.snapshot["pitches"][1]["gather"]["events"] if e["kind"] == "goal")
    await do(ann, {"kind": "setScorer", "pitch": 2, "seq": goal, "playerId": 6, "assistId": 3})
    reply = await bob.command({"kind": "removePlayer", "playerId": 2}, command_id="kept-rejection")
    assert reply["type"] == "rejected", reply
    await ann.close()
    await bob.close()


def main():
    write_fixture("release2.sqlite", build)


if __name__ == "__main__":
    main()
