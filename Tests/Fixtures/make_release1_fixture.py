"""Makes `release1.sqlite`: a small database written by the first release's `gather` binary.

Run it with the FIRST release's binary (commit 5484129), never with a newer one: the migration
tests open this file with the current build and check that nothing was lost.

    GATHER_BIN=/path/to/release1/gather python3 Tests/Fixtures/make_release1_fixture.py

What it holds: 6 players (every skill, a goalkeeper on each side, one with no skill), two
finished gathers (a 2–1 win for A with a goal cancelled, and a 1–1 draw), and an active gather
that is live with a score of 1–0 and a paused timer; an organiser `ann` with a session.
"""
import asyncio

from fixturelib import PLAYERS, write_fixture
from gatherlib import GatherServer, Live  # on the path through fixturelib


async def build(server: GatherServer):
    ann = await Live.connect(server)
    session = await ann.register("ann")
    assert session["type"] == "session", session
    await ann.wait_snapshot(0)

    async def do(action):
        reply = await ann.command(action)
        assert reply["type"] == "ack", (action, reply)
        await ann.wait_snapshot(reply["version"])

    for player in PLAYERS:
        await do({"kind": "addPlayer", **player})
    # Gather 1: A (Ann, Bob, Cid) 2–1 B (Dee, Eve, Fay), with one goal for B cancelled.
    await do({"kind": "createGather", "playerIds": [1, 2, 3, 4, 5, 6]})
    for pid, team in [(1, "A"), (2, "A"), (3, "A"), (4, "B"), (5, "B"), (6, "B")]:
        await do({"kind": "assign", "playerId": pid, "to": team})
    await do({"kind": "renameTeam", "team": "A", "name": "Reds"})
    await do({"kind": "startGather"})
    for team, delta in [("A", 1), ("B", 1), ("B", 1), ("B", -1), ("A", 1)]:
        await do({"kind": "score", "team": team, "delta": delta})
    await do({"kind": "endGather"})
    # Gather 2: A (Ann, Dee) 1–1 B (Bob, Eve); Cid on the bench; Fay not selected.
    await do({"kind": "createGather", "playerIds": [1, 2, 3, 4, 5]})
    for pid, team in [(1, "A"), (4, "A"), (2, "B"), (5, "B")]:
        await do({"kind": "assign", "playerId": pid, "to": team})
    await do({"kind": "startGather"})
    await do({"kind": "score", "team": "B", "delta": 1})
    await do({"kind": "score", "team": "A", "delta": 1})
    await do({"kind": "endGather"})
    # Active: live, 1–0, timer set to 7:00 and paused after running briefly.
    await do({"kind": "createGather", "playerIds": [3, 5, 6, 1]})
    for pid, team in [(3, "A"), (6, "A"), (5, "B"), (1, "B")]:
        await do({"kind": "assign", "playerId": pid, "to": team})
    await do({"kind": "setTimer", "minutes": 7, "seconds": 0})
    await do({"kind": "startGather"})
    await do({"kind": "startTimer"})
    await asyncio.sleep(1.2)
    await do({"kind": "pauseTimer"})
    await do({"kind": "score", "team": "A", "delta": 1})
    # A rejected command is stored too (exactly-once memory).
    reply = await ann.command({"kind": "removePlayer", "playerId": 1}, command_id="kept-rejection")
    assert reply["type"] == "rejected", reply
    await ann.close()


def main():
    write_fixture("release1.sqlite", build)


if __name__ == "__main__":
    main()
