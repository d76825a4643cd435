"""Issue 3 end to end: two organisers and spectators share one gather over real wss."""
import asyncio
import time

import pytest

from gatherlib import GatherServer, Live, run


@pytest.fixture()
def server():
    with GatherServer() as running:
        yield running


async def organiser(server, name):
    live = await Live.connect(server)
    await live.next()  # snapshot
    session = await live.register(name)
    assert session["type"] == "session" and session["role"] == "organiser", session
    assert session["inviteCode"] == server.invite_code
    return live


def test_a_whole_gather_from_roster_to_history_seen_by_spectators(server):
    async def scenario():
        ann = await organiser(server, "ann")
        bob = await organiser(server, "bob")
        spectators = [await Live.connect(server) for _ in range(3)]

        refused = await spectators[0].command({"kind": "addPlayer", "name": "Sneaky"}, base=0)
        assert refused["type"] == "rejected" and refused["code"] == "forbidden"

        ids = []
        for name in ("Ann", "Bob", "Cid", "Dee"):
            ack = await ann.command({"kind": "addPlayer", "name": name, "skill": "amateur"})
            assert ack["type"] == "ack", ack
            state = await ann.wait_snapshot(ack["version"])
            ids.append(state["players"][-1]["id"])
        steps = [
            (ann, {"kind": "createGather", "playerIds": ids}),
            (bob, {"kind": "assign", "playerId": ids[0], "to": "A"}),
            (ann, {"kind": "assign", "playerId": ids[1], "to": "B"}),
            (bob, {"kind": "assign", "playerId": ids[2], "to": "A"}),
            (ann, {"kind": "renameTeam", "team": "B", "name": "Reds"}),
            (bob, {"kind": "startGather"}),
            (ann, {"kind": "score", "team": "A", "delta": 1}),
            (bob, {"kind": "score", "team": "B", "delta": 1}),
            (ann, {"kind": "score", "team": "A", "delta": 1}),
        ]
        for who, action in steps:
            await who.wait_snapshot(max(ann.version, bob.version))
            reply = await who.command(action)
            assert reply["type"] == "ack", (action, reply)
        gather = (await ann.wait_snapshot(reply["version"]))["gather"]
        assert gather["phase"] == "live"
        assert gather["teams"]["A"]["players"] == [ids[0], ids[2]]
        assert gather["teams"]["B"] == {"name": "Reds", "players": [ids[1]]}
        assert gather["bench"] == [ids[3]]
        assert gather["score"] == {"A": 2, "B": 1}
        assert [e["kind"] for e in gather["events"]] == ["kickoff", "goal", "goal", "goal"]
        assert [e["by"] for e in gather["events"][1:]] == ["ann", "bob", "ann"]

        end = await bob.command({"kind": "endGather"}, base=(await bob.wait_snapshot(reply["version"])) and bob.version)
        assert end["type"] == "ack", end
        for spectator in spectators:
            state = await spectator.wait_snapshot(end["version"])
            assert state["gather"] is None
            assert state["history"][0]["score"] == {"A": 2, "B": 1}
            assert state["history"][0]["winner"] == "A"
            assert state["history"][0]["teams"]["B"]["name"] == "Reds"
        assert server.health()["version"] == end["version"]
    run(scenario())


def test_the_same_goal_from_two_organisers_counts_once(server):
    async def scenario():
        ann = await organiser(server, "ann")
        bob = await organiser(server, "bob")
        a = (await ann.command({"kind": "addPlayer", "name": "A"}))
        b = (await ann.command({"kind": "addPlayer", "name": "B"}))
        await ann.wait_snapshot(b["version"])
        for action in ({"kind": "createGather", "playerIds": [1, 2]}, {"kind": "assign", "playerId": 1, "to": "A"},
                       {"kind": "assign", "playerId": 2, "to": "B"}, {"kind": "startGather"}):
            reply = await ann.command(action)
            assert reply["type"] == "ack", reply
            await ann.wait_snapshot(reply["version"])
        await bob.wait_snapshot(ann.version)
        base = ann.version
        first, second = await asyncio.gather(
            ann.command({"kind": "score", "team": "A", "delta": 1}, base=base),
            bob.command({"kind": "score", "team": "A", "delta": 1}, base=base))
        outcomes = sorted([first["type"], second["type"]])
        assert outcomes == ["ack", "rejected"], (first, second)
        loser = first if first["type"] == "rejected" else second
        assert loser["code"] == "conflict"
        assert "score" in loser["message"] and ("ann" in loser["message"] or "bob" in loser["message"])
        state = await ann.wait_snapshot(max(first.get("version", 0), second.get("version", 0)))
        assert state["gather"]["score"] == {"A": 1, "B": 0}
    run(scenario())


def test_a_resent_command_after_reconnect_is_answered_not_reapplied(server):
    async def scenario():
        ann = await organiser(server, "ann")
        token = next(m for m in ann.messages if m["type"] == "session")["token"]
        first = await ann.command({"kind": "addPlayer", "name": "Once"}, command_id="add-once")
        assert first["type"] == "ack"
        await ann.close()
        again = await Live.connect(server)
        await again.next()
        await again.send({"type": "resume", "id": "r", "token": token})
        assert (await again.session_reply("r"))["role"] == "organiser"
        repeat = await again.command({"kind": "addPlayer", "name": "Once"}, base=0, command_id="add-once")
        assert repeat == first
        assert [p["name"] for p in again.snapshot["players"]] == ["Once"]
    run(scenario())


@pytest.mark.timing
@pytest.mark.mostly_waits
def test_ticks_arrive_about_once_a_second_and_count_down(server):
    async def scenario():
        ann = await organiser(server, "ann")
        spectator = await Live.connect(server)
        for action in ({"kind": "addPlayer", "name": "A"}, {"kind": "addPlayer", "name": "B"},
                       {"kind": "createGather", "playerIds": [1, 2]}, {"kind": "assign", "playerId": 1, "to": "A"},
                       {"kind": "assign", "playerId": 2, "to": "B"}, {"kind": "startGather"},
                       {"kind": "setTimer", "minutes": 0, "seconds": 4}, {"kind": "startTimer"}):
            reply = await ann.command(action)
            assert reply["type"] == "ack", (action, reply)
            await ann.wait_snapshot(reply["version"])
        ticks = []
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline:
            message = await spectator.next(timeout=6)
            if message["type"] == "tick":
                ticks.append((time.monotonic(), message["timer"]["remainingMs"]))
            if message["type"] == "snapshot" and (message["state"]["gather"] or {}).get("timer", {}).get("status") == "finished":
                break
        assert len(ticks) >= 3
        remaining = [r for _, r in ticks]
        assert remaining == sorted(remaining, reverse=True)
        gaps = [b[0] - a[0] for a, b in zip(ticks, ticks[1:])]
        assert all(0.7 < gap < 1.3 for gap in gaps), gaps
        gather = spectator.snapshot["gather"]
        assert gather["timer"]["status"] == "finished" and gather["timer"]["remainingMs"] == 0
        assert gather["events"][-1]["kind"] == "fullTime" and gather["events"][-1]["by"] is None
    run(scenario())
