"""Figures for a venue of 8 pitches, against the real server (issue 13's note asks for them):

- ticks per pitch over 60 s with 8 timers running: how far each tick arrives from its second
  (p50/p99/max), as one gather.v2 spectator on loopback sees them;
- the snapshot size (gather.v1 and gather.v2) with 8 live pitches of 14 players each;
- a worked balanceTeams example (players, ratings, the split, the difference).

    GATHER_BIN=.build/release/gather python3 Tests/e2e/tools/measure_pitches.py [--seconds 60]
"""
import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import websockets  # noqa: E402

from gatherlib import GatherServer, Live  # noqa: E402

SKILLS = ["beginner", "amateur", "professional", None]
POSITIONS = ["goalkeeper", "defender", "midfielder", "winger", "striker"]


async def command(live, action):
    reply = await live.command(action)
    for _ in range(100):  # setting up 118 players and 8 gathers goes past the 100-message burst
        if reply.get("code") != "rate_limited":
            break
        await asyncio.sleep(0.1)
        reply = await live.command(action)
    assert reply["type"] == "ack", (action, reply)
    await live.wait_snapshot(reply["version"])
    return reply


async def set_up(server, pitches=8, per_pitch=14):
    ann = await Live.connect(server)
    await ann.next()
    assert (await ann.register("ann"))["role"] == "organiser"
    for number in range(pitches * per_pitch + 6):
        player = {"kind": "addPlayer", "name": f"Player {number + 1}",
                  "position": POSITIONS[number % 5] if number % 7 else "goalkeeper"}
        if SKILLS[number % 4]:
            player["skill"] = SKILLS[number % 4]
        await command(ann, player)
    for pitch in range(2, pitches + 1):
        await command(ann, {"kind": "addPitch", "name": f"Pitch {pitch}"})
    for pitch in range(1, pitches + 1):
        ids = list(range((pitch - 1) * per_pitch + 1, pitch * per_pitch + 1))
        await command(ann, {"kind": "createGather", "pitch": pitch, "playerIds": ids})
        for index, pid in enumerate(ids):
            await command(ann, {"kind": "assign", "pitch": pitch, "playerId": pid, "to": "A" if index % 2 else "B"})
        await command(ann, {"kind": "setTimer", "pitch": pitch, "minutes": 1, "seconds": 10 + pitch})
        await command(ann, {"kind": "startGather", "pitch": pitch})
    return ann


async def measure(server, seconds):
    ann = await set_up(server)
    # Start the eight timers a few hundred ms apart, as organisers would.
    for pitch in range(1, 9):
        await command(ann, {"kind": "startTimer", "pitch": pitch})
        await asyncio.sleep(0.137)
    sizes = {}
    for wire in ("gather.v1", "gather.v2"):
        ws = await websockets.connect(server.ws_url, ssl=server.ssl_context(), subprotocols=[wire], max_size=2**22)
        await ws.recv()
        sizes[wire] = len((await ws.recv()).encode())
        await ws.close()

    # The organiser's phone goes quiet meanwhile: unread, its ticks would fill the client's queue.
    await ann.close()
    ws = await websockets.connect(server.ws_url, ssl=server.ssl_context(), subprotocols=["gather.v2"], max_size=2**22)
    await ws.recv()
    await ws.recv()
    deviations = {pitch: [] for pitch in range(1, 9)}
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            raw = await asyncio.wait_for(ws.recv(), end - time.monotonic())
        except asyncio.TimeoutError:
            break
        arrived = time.time() * 1000
        message = json.loads(raw)
        if message["type"] != "tick" or message["timer"]["status"] != "running":
            continue
        ends_at = message["timer"]["endsAt"]
        # A tick belongs to the whole second of remaining time it announces.
        second = ends_at - round((ends_at - arrived) / 1000) * 1000
        deviations[message["pitch"]].append(arrived - second)
    await ws.close()

    # A worked balanceTeams example on a fresh gather of the 6 spare players plus 4 more.
    ann = await Live.connect(server)
    await ann.next()
    assert (await ann.login("ann"))["role"] == "organiser"
    for pitch in range(1, 9):
        await command(ann, {"kind": "pauseTimer", "pitch": pitch})
    await command(ann, {"kind": "cancelGather", "pitch": 8})
    spare = list(range(8 * 14 + 1, 8 * 14 + 7)) + list(range(7 * 14 + 1, 7 * 14 + 5))
    await command(ann, {"kind": "createGather", "pitch": 8, "playerIds": spare})
    await command(ann, {"kind": "balanceTeams", "pitch": 8})
    state = ann.snapshot
    gather = next(p for p in state["pitches"] if p["id"] == 8)["gather"]
    players = {p["id"]: p for p in state["players"]}
    example = {
        "players": [{"id": i, "rating": players[i]["rating"], "position": players[i]["position"]} for i in spare],
        "teamA": gather["teams"]["A"]["players"], "teamB": gather["teams"]["B"]["players"],
        "sumA": sum(players[i]["rating"] for i in gather["teams"]["A"]["players"]),
        "sumB": sum(players[i]["rating"] for i in gather["teams"]["B"]["players"]),
        "difference": gather["events"][-1].get("difference"),
    }
    await ann.close()
    return deviations, sizes, example


def quantile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=60)
    args = parser.parse_args()
    with GatherServer() as server:
        deviations, sizes, example = asyncio.run(measure(server, args.seconds))
    every = [abs(d) for values in deviations.values() for d in values]
    print(f"ticks over {args.seconds:.0f} s, 8 timers running, one gather.v2 spectator:")
    for pitch, values in deviations.items():
        late = [abs(v) for v in values]
        print(f"  pitch {pitch}: {len(values)} ticks; deviation p50 {quantile(late, .5):.1f} ms, "
              f"p99 {quantile(late, .99):.1f} ms, max {max(late, default=float('nan')):.1f} ms")
    print(f"  all: {len(every)} ticks; p50 {statistics.median(every):.1f} ms, p99 {quantile(every, .99):.1f} ms, "
          f"max {max(every):.1f} ms")
    print(f"snapshot with 8 live pitches of 14 players: gather.v1 {sizes['gather.v1']} B, gather.v2 {sizes['gather.v2']} B")
    print("balanceTeams example:", json.dumps(example))


if __name__ == "__main__":
    main()
