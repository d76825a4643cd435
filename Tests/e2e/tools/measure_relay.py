"""Figures for the venue stream and relays (issue 21's note asks for them), on loopback:

- press → a spectator on the venue's door vs press → a spectator on a relay (the NATS hop's
  added latency), p50/p99 over --presses score presses (paced under the command rate limit);
- the venue's CPU per version spent publishing (the publisher thread's own CPU time, from
  /metrics `gather_stream_publish_cpu_seconds_total` / `gather_stream_state_publications_total`);
- a relay's memory per idle spectator (its RSS before and after --idle plain ws connections,
  each from its own loopback address).

    GATHER_BIN=.build/release/gather python3 Tests/e2e/tools/measure_relay.py [--presses 200] [--idle 2000]
"""
import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import websockets  # noqa: E402

from gatherlib import GatherServer, Live, phone_address, signed_in  # noqa: E402
from natslib import NatsServer, RelayProcess, given_venue_key, start_all, wait_for  # noqa: E402

V2 = ("gather.v2",)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def metric(server, name):
    status, _, body = server.get("/metrics")
    for line in body.decode().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise KeyError(name)


async def arrival(client, version, timeout=5):
    while client.version < version:
        await client.next(timeout)
    return time.perf_counter()


async def latency(server, relay, presses):
    door = await Live.connect(server, subprotocols=V2)
    await door.next()
    follower = await Live.connect(None, subprotocols=V2, url=relay.ws_url)
    await follower.until(lambda m: m["type"] == "snapshot", 10)
    ann = await signed_in(server, "ann", subprotocols=V2)
    for name in ("Ann", "Ben", "Cat", "Dan"):
        await ann.command({"kind": "addPlayer", "name": name})
    await ann.command({"kind": "createGather", "playerIds": [p["id"] for p in ann.snapshot["players"]]})
    for action in ({"kind": "balanceTeams"}, {"kind": "startGather"}):
        reply = await ann.command(action)
        assert reply["type"] == "ack", (action, reply)
    await arrival(follower, ann.version)
    await arrival(door, ann.version)
    cpu0, pubs0 = metric(server, "gather_stream_publish_cpu_seconds_total"), metric(server, "gather_stream_state_publications_total")
    to_door, to_relay = [], []
    for index in range(presses):
        target = ann.version + 1
        pressed = time.perf_counter()
        await ann.send({"type": "command", "id": f"p{index}", "base": ann.version,
                        "action": {"kind": "score", "team": "A" if index % 2 else "B",
                                   "delta": 1 if (index // 2) % 2 == 0 else -1}})
        reply_task = asyncio.ensure_future(ann.reply(f"p{index}"))
        try:
            door_at, relay_at = await asyncio.gather(arrival(door, target), arrival(follower, target))
        except TimeoutError:
            raise RuntimeError(f"press {index}: door {door.version}, relay {follower.version}, wanted {target}, "
                               f"reply {await reply_task}, relay {relay.health()}")
        reply = await reply_task
        assert reply["type"] == "ack", reply
        to_door.append((door_at - pressed) * 1000)
        to_relay.append((relay_at - pressed) * 1000)
        await asyncio.sleep(0.06)  # under 20 commands a second
    await wait_for(lambda: server.health()["publishedVersion"] == ann.version, 5, "the last publication")
    cpu1, pubs1 = metric(server, "gather_stream_publish_cpu_seconds_total"), metric(server, "gather_stream_state_publications_total")
    for client in (door, follower, ann):
        await client.close()
    return to_door, to_relay, (cpu1 - cpu0) / max(1, pubs1 - pubs0) * 1e6, pubs1 - pubs0


def cpu_seconds(pid):
    """utime + stime of a process, from /proc (clock ticks of 1/100 s)."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def with_followers(server, relay, count, presses):
    """`count` idle followers on the relay (each from its own loopback address): the relay's
    memory per follower, then `presses` presses: the venue publisher's CPU per publication (it
    must not grow with followers: it publishes once) and the relay's CPU per delivered message."""
    base = rss_kib(relay.process.pid)
    clients = []
    for index in range(count):
        ws = await websockets.connect(relay.ws_url, subprotocols=["gather.v2"], local_addr=(phone_address(index), 0),
                                      open_timeout=10, max_size=2**22)
        await ws.recv()  # welcome
        await ws.recv()  # snapshot
        clients.append(ws)
    await wait_for(lambda: relay.health()["spectators"] >= count, 30, "every spectator counted")
    await asyncio.sleep(2)  # let the outboxes settle
    loaded = rss_kib(relay.process.pid)

    async def drain(ws):
        try:
            while True:
                await ws.recv()
        except Exception:  # noqa: BLE001 - closed at the end
            return
    readers = [asyncio.ensure_future(drain(ws)) for ws in clients]
    ann = await signed_in(server, "bob", subprotocols=V2)
    cpu0, pubs0 = metric(server, "gather_stream_publish_cpu_seconds_total"), metric(server, "gather_stream_state_publications_total")
    relay_cpu0 = cpu_seconds(relay.process.pid)
    first = ann.version
    for index in range(presses):
        reply = await ann.command({"kind": "score", "team": "A", "delta": 1 if (index // 2) % 2 == 0 else -1})
        assert reply["type"] == "ack", reply
        await asyncio.sleep(0.06)
    await wait_for(lambda: relay.health()["version"] == ann.version, 30, "the relay to reach the venue")
    await asyncio.sleep(1)  # the last writes to every follower
    relay_cpu = cpu_seconds(relay.process.pid) - relay_cpu0
    cpu1, pubs1 = metric(server, "gather_stream_publish_cpu_seconds_total"), metric(server, "gather_stream_state_publications_total")
    delivered = (ann.version - first) * count
    for ws in clients:
        await ws.close()
    for reader in readers:
        reader.cancel()
    await ann.close()
    return base, loaded, (cpu1 - cpu0) / max(1, pubs1 - pubs0) * 1e6, relay_cpu / max(1, delivered) * 1e6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--presses", type=int, default=200)
    parser.add_argument("--idle", type=int, default=2000)
    arguments = parser.parse_args()
    with NatsServer() as broker:
        server = GatherServer(extra_args=("--nats", broker.url, "--venue", "riverside", "--max-connections-per-address", "10000"))
        relay = RelayProcess(broker.url, extra_args=("--max-connections-per-address", "10000"))
        start_all(server)
        given_venue_key(server, relay)
        start_all(relay)
        try:
            to_door, to_relay, cpu_us, publications = asyncio.run(latency(server, relay, arguments.presses))
            hop = [r - d for d, r in zip(to_door, to_relay)]
            print(f"presses: {len(to_door)}")
            for name, values in (("press -> door spectator", to_door), ("press -> relay spectator", to_relay),
                                 ("added by the NATS hop", hop)):
                print(f"  {name:28s} p50 {percentile(values, 0.5):6.2f} ms  p99 {percentile(values, 0.99):6.2f} ms"
                      f"  mean {statistics.mean(values):6.2f} ms")
            print(f"venue CPU per state publication: {cpu_us:.1f} us (publisher thread, {publications:.0f} publications)")
            base, loaded, venue_us, relay_us = asyncio.run(with_followers(server, relay, arguments.idle, 100))
            print(f"relay RSS: {base} KiB idle, {loaded} KiB with {arguments.idle} idle spectators: "
                  f"{(loaded - base) / arguments.idle:.1f} KiB per spectator")
            print(f"with {arguments.idle} relay followers: venue CPU per state publication {venue_us:.1f} us; "
                  f"relay CPU per delivered message {relay_us:.2f} us (process CPU / versions x followers)")
        finally:
            relay.stop()
            server.cleanup()


if __name__ == "__main__":
    main()
