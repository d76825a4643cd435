"""The venue's leaf node and the cloud hub's mirror (issue 22; PROTOCOL.md "Beyond the Wi-Fi"):
real `nats-server` processes configured as in deploy/nats, `gather nats mirror` on the hub, and
the uplink dropping while the match goes on."""
import asyncio
import json
import subprocess
import time

import jsonpatch
import pytest

from gatherlib import BINARY, GatherServer, Live, run, signed_in
from natslib import NatsServer, RelayProcess, read_subject, take_down, venue_key, wait_for

V2 = ("gather.v2",)
VENUE = "riverside"

HUB = """
server_name: hub
jetstream { domain: hub, store_dir: "STORE_DIR" }
leafnodes { listen: "127.0.0.1:LEAF_PORT" }
"""


def leaf_config(hub_leaf_port: int) -> str:
    return f"""
server_name: venue-riverside
jetstream {{ domain: riverside, store_dir: "STORE_DIR" }}
leafnodes {{ remotes = [ {{ url: "nats-leaf://127.0.0.1:{hub_leaf_port}" }} ], reconnect: 1 }}
"""


def mirror(hub: NatsServer) -> subprocess.CompletedProcess:
    return subprocess.run([BINARY, "nats", "mirror", "--hub", hub.url, "--venue", VENUE], capture_output=True,
                          text=True, timeout=30)


async def mirror_state(hub: NatsServer):
    """The hub mirror's messages replayed: (version, state) of the last, and how many it holds."""
    messages = await read_subject(hub.url, "GATHER_riverside", "gather.riverside.state")
    first = json.loads(messages[0].data)
    assert first["type"] == "snapshot"
    state, version = first["state"], first["version"]
    for message in messages[1:]:
        body = json.loads(message.data)
        assert body["type"] == "patch" and body["from"] == version, body
        state, version = jsonpatch.apply_patch(state, body["ops"]), body["version"]
    return version, state, len(messages)


@pytest.mark.timing
@pytest.mark.mostly_waits
def test_the_hubs_mirror_follows_the_leaf_and_catches_up_after_the_uplink_drops():
    hub = NatsServer(config=HUB).start()
    leaf = NatsServer(config=leaf_config(hub.leaf_port)).start()
    server = GatherServer(extra_args=("--nats", leaf.url, "--venue", VENUE))
    relay = None
    try:
        server.start()
        created = mirror(hub)
        assert created.returncode == 0 and "Created the mirror GATHER_riverside" in created.stdout, created.stderr
        again = mirror(hub)
        assert again.returncode == 0 and "Already there" in again.stdout

        # Reads the hub's mirror (same name as the venue's stream).
        relay = RelayProcess(hub.url, venue_key=venue_key(server)).start()

        async def scenario():
            follower = await Live.connect(None, subprotocols=V2, url=relay.ws_url)
            ann = await signed_in(server, "ann", subprotocols=V2)
            for name in ("Ann", "Ben", "Cat"):
                assert (await ann.command({"kind": "addPlayer", "name": name}))["type"] == "ack"

            async def mirrored():
                try:
                    return (await mirror_state(hub))[0] == ann.version
                except Exception:  # noqa: BLE001 - not there yet
                    return False
            await wait_for(mirrored, 20, "the mirror to reach the venue's version", interval=0.2)
            version, state, _ = await mirror_state(hub)
            assert state == ann.snapshot
            await follower.wait_snapshot(ann.version, timeout=15)
            assert follower.snapshot == ann.snapshot

            # The uplink drops: the venue keeps acking at Wi-Fi speed and publishing into its leaf.
            hub.stop()
            dropped_at = time.monotonic()
            slowest = 0.0
            for index in range(30):
                started = time.monotonic()
                reply = await ann.command({"kind": "addPlayer", "name": f"P{index}"})
                slowest = max(slowest, time.monotonic() - started)
                assert reply["type"] == "ack"
            assert slowest < 1.0, f"an ack took {slowest:.3f} s with the uplink down"
            await wait_for(lambda: server.health()["publishedVersion"] == ann.version, 5, "the leaf to hold every version")
            assert server.health()["nats"] == "connected"
            lost = await follower.until(lambda m: m["type"] == "link", 15)
            assert lost["live"] is False and time.monotonic() - dropped_at < 15

            hub.start()  # same ports, same store
            await wait_for(mirrored, 30, "the mirror to catch up", interval=0.3)
            version, state, count = await mirror_state(hub)
            assert (version, state) == (ann.version, ann.snapshot)
            back = await follower.until(lambda m: m["type"] == "link", 30)
            assert back["live"] is True
            await follower.wait_snapshot(ann.version, timeout=20)
            assert follower.snapshot == ann.snapshot
            for client in (follower, ann):
                await client.close()
        run(scenario())
    finally:
        take_down(relay, server, leaf, hub)


def test_a_mirror_needs_a_reachable_hub_and_says_so():
    result = subprocess.run([BINARY, "nats", "mirror", "--hub", "nats://127.0.0.1:1", "--venue", VENUE],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode != 0 and "cannot connect to the hub" in result.stderr, result.stderr
