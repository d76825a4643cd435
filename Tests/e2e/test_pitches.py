"""Several pitches (PROTOCOL.md "Several pitches"): two matches at once on one server, each pitch
arbitrated on its own, a player on one pitch at a time, gather.v1 clients seeing pitch 1."""
import asyncio
import json
import time

from gatherlib import GatherServer, Live, pitch_gather, run, signed_in


async def acked(live, action, base=None):
    reply = await live.command(action, base=base)
    assert reply["type"] == "ack", (action, reply)
    await live.wait_snapshot(reply["version"])
    return reply


async def add_players(live, *names):
    for name in names:
        await acked(live, {"kind": "addPlayer", "name": name})
    return {p["name"]: p["id"] for p in live.snapshot["players"]}


async def kick_off(live, pitch, team_a, team_b, bench=()):
    """A live gather on `pitch`: team_a against team_b, `bench` waiting."""
    await acked(live, {"kind": "createGather", "pitch": pitch, "playerIds": [team_a, team_b, *bench]})
    await acked(live, {"kind": "assign", "pitch": pitch, "playerId": team_a, "to": "A"})
    await acked(live, {"kind": "assign", "pitch": pitch, "playerId": team_b, "to": "B"})
    await acked(live, {"kind": "startGather", "pitch": pitch})


async def catch_up(*clients):
    """Every client holds the newest version any of them has seen."""
    newest = max(c.version for c in clients)
    for client in clients:
        await client.wait_snapshot(newest)
    return newest


# MARK: - Two organisers, two pitches

def test_two_organisers_run_two_pitches_at_once_and_conflict_only_on_the_same_pitch():
    with GatherServer() as server:
        async def scenario():
            ann = await signed_in(server, "ann")
            bob = await signed_in(server, "bob")
            await acked(ann, {"kind": "addPitch", "name": "Pitch 2"})
            ids = await add_players(ann, "Ann", "Ben", "Cat", "Dan", "Eve")
            # Each organiser sets up and kicks off their own pitch, at the same moment.
            await catch_up(ann, bob)
            await asyncio.gather(kick_off(ann, 1, ids["Ann"], ids["Ben"]),
                                 kick_off(bob, 2, ids["Cat"], ids["Dan"]))
            base = await catch_up(ann, bob)
            state = ann.snapshot
            assert [p["id"] for p in state["pitches"]] == [1, 2]
            assert all(pitch_gather(state, p)["phase"] == "live" for p in (1, 2))

            # The same "+1 Team A" from the same base, on different pitches: both count.
            plus_one = {"kind": "score", "team": "A", "delta": 1}
            replies = await asyncio.gather(ann.command({**plus_one, "pitch": 1}, base=base),
                                           bob.command({**plus_one, "pitch": 2}, base=base))
            assert [r["type"] for r in replies] == ["ack", "ack"], replies

            # The same "+1 Team A" from the same base on one pitch: the second is a conflict.
            base = await catch_up(ann, bob)
            first = await ann.command({**plus_one, "pitch": 1}, base=base)
            second = await bob.command({**plus_one, "pitch": 1}, base=base)
            assert first["type"] == "ack", first
            assert second["type"] == "rejected" and second["code"] == "conflict", second
            assert "ann" in second["message"]
            await catch_up(ann, bob)
            assert pitch_gather(bob.snapshot, 1)["score"] == {"A": 2, "B": 0}
            assert pitch_gather(bob.snapshot, 2)["score"] == {"A": 1, "B": 0}

            # A player is on one pitch at a time.
            taken = await bob.command({"kind": "assign", "pitch": 2, "playerId": ids["Ann"], "to": "A"})
            assert taken["type"] == "rejected" and taken["code"] == "in_use", taken
            await acked(bob, {"kind": "addPitch", "name": "Pitch 3"})
            taken = await bob.command({"kind": "createGather", "pitch": 3, "playerIds": [ids["Eve"], ids["Ben"]]})
            assert taken["type"] == "rejected" and taken["code"] == "in_use", taken
            assert pitch_gather(bob.snapshot, 3) is None

            # A pitch with a match on it stays; an empty one goes.
            busy = await ann.command({"kind": "removePitch", "pitch": 2})
            assert busy["type"] == "rejected" and busy["code"] == "in_use", busy
            await acked(ann, {"kind": "removePitch", "pitch": 3})
            assert [p["id"] for p in ann.snapshot["pitches"]] == [1, 2]

            # Pitch 2's result goes to history under pitch 2; pitch 1 plays on.
            await acked(bob, {"kind": "endGather", "pitch": 2})
            entry = bob.snapshot["history"][0]
            assert entry["pitch"] == {"id": 2, "name": "Pitch 2"}
            assert entry["score"] == {"A": 1, "B": 0} and entry["winner"] == "A"
            assert [p["name"] for p in entry["teams"]["A"]["players"]] == ["Cat"]
            assert pitch_gather(bob.snapshot, 2) is None and pitch_gather(bob.snapshot, 1)["phase"] == "live"
            # Cat is free again: pitch 1 can take her (once Ann has seen Bob end the match).
            await catch_up(ann, bob)
            await acked(ann, {"kind": "assign", "pitch": 1, "playerId": ids["Cat"], "to": "bench"})
            for client in (ann, bob):
                await client.close()
        run(scenario())
        status, _, body = server.get("/api/history.json")
        assert status == 200
        assert json.loads(body)["history"][0]["pitch"] == {"id": 2, "name": "Pitch 2"}


# MARK: - What gather.v1 and gather.v2 clients see

def test_a_gather_v1_client_sees_pitch_1_as_its_gather_and_only_pitch_1_ticks():
    with GatherServer() as server:
        async def scenario():
            ann = await signed_in(server, "ann")
            await acked(ann, {"kind": "addPitch", "name": "Pitch 2"})
            ids = await add_players(ann, "Ann", "Ben", "Cat", "Dan")
            await kick_off(ann, 1, ids["Ann"], ids["Ben"])
            await kick_off(ann, 2, ids["Cat"], ids["Dan"])
            await acked(ann, {"kind": "startTimer", "pitch": 2})
            await acked(ann, {"kind": "startTimer", "pitch": 1})

            old = await Live.connect(server)
            snapshot = await old.next()
            state = snapshot["state"]
            assert snapshot["version"] == ann.version
            assert [(p["id"], p["name"]) for p in state["pitches"]] == [(1, "Pitch 1"), (2, "Pitch 2")]
            assert state["gather"] == pitch_gather(state, 1) and state["gather"]["teams"]["A"]["players"] == [ids["Ann"]]
            assert pitch_gather(state, 2)["teams"]["A"]["players"] == [ids["Cat"]]

            new = await Live.connect(server, subprotocols=("gather.v2",))
            assert new.messages[0]["protocol"] == "gather.v2"
            ends_at = {p: pitch_gather(state, p)["timer"]["endsAt"] for p in (1, 2)}
            old_ticks, new_ticks = await asyncio.gather(ticks_for(old, 3.5), ticks_for(new, 3.5))
            assert len(old_ticks) >= 2 and {t["pitch"] for t in old_ticks} == {1}, old_ticks
            assert all(t["timer"]["endsAt"] == ends_at[1] for t in old_ticks)
            assert {t["pitch"] for t in new_ticks} == {1, 2}, new_ticks
            assert all(t["timer"]["endsAt"] == ends_at[t["pitch"]] for t in new_ticks)
            for client in (ann, old, new):
                await client.close()
        run(scenario())


async def ticks_for(live, seconds):
    """Every tick the client reads within `seconds` (the first ones may be the last published)."""
    ticks = []
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        try:
            message = await live.next(timeout=left)
        except (TimeoutError, asyncio.TimeoutError):
            break
        if message["type"] == "tick":
            ticks.append(message)
    return ticks


# MARK: - Limits and the per-pitch QR code

def test_sixteen_pitches_at_most_and_a_qr_code_per_pitch():
    with GatherServer() as server:
        async def scenario():
            ann = await signed_in(server, "ann")
            for number in range(2, 17):
                await acked(ann, {"kind": "addPitch", "name": f"Pitch {number}"})
            one_more = await ann.command({"kind": "addPitch", "name": "Pitch 17"})
            assert one_more["type"] == "rejected" and one_more["code"] == "out_of_range", one_more
            assert len(ann.snapshot["pitches"]) == 16
            same_name = await ann.command({"kind": "renamePitch", "pitch": 3, "name": "Pitch 2"})
            assert same_name["type"] == "rejected" and same_name["code"] == "invalid", same_name
            first = await ann.command({"kind": "removePitch", "pitch": 1})
            assert first["type"] == "rejected" and first["code"] == "invalid", first
            nowhere = await ann.command({"kind": "resetTimer", "pitch": 99})
            assert nowhere["type"] == "rejected" and nowhere["code"] == "not_found", nowhere
            await ann.close()
        run(scenario())
        status, headers, pitch_two = server.get("/qr.svg?pitch=2")
        assert status == 200 and headers["content-type"].startswith("image/svg+xml")
        assert b"<svg" in pitch_two[:300]
        _, _, every_pitch = server.get("/qr.svg")
        assert pitch_two != every_pitch, "pitch 2's code must lead somewhere else than the plain spectator page"
