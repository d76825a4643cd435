"""The venue stream (PROTOCOL.md "Beyond the Wi-Fi"): `gather serve --nats` publishes every version's
gather.v2 bytes into JetStream, ticks on core NATS, and never lets NATS slow the Wi-Fi. Real
`gather`, real `nats-server`, read back with nats-py."""
import asyncio
import json
import subprocess
import time

import jsonpatch
import nats
import pytest

from gatherlib import BINARY, PUBLIC, GatherServer, Live, pitch_gather, run, signed_in
from natslib import V2, VENUE, NatsServer, read_subject, slowest_ack, venue_server, wait_for
from stream_trust import verifies

STREAM = "GATHER_riverside"
STATE = "gather.riverside.state"


ACTIONS = [
    {"kind": "addPlayer", "name": "Ann"}, {"kind": "addPlayer", "name": "Ben"},
    {"kind": "addPlayer", "name": "Cat"}, {"kind": "addPlayer", "name": "Dan"},
    lambda s: {"kind": "createGather", "playerIds": [p["id"] for p in s["players"]]},
    {"kind": "balanceTeams"}, {"kind": "startGather"}, {"kind": "startTimer"},
    {"kind": "score", "team": "A", "delta": 1}, {"kind": "score", "team": "B", "delta": 1},
    {"kind": "pauseTimer"}, {"kind": "renameTeam", "team": "A", "name": "Reds"},
]


def test_the_stream_replays_to_the_door_spectators_state_at_every_version_with_the_contracts_headers():
    with NatsServer() as broker, venue_server(broker.url) as server:
        async def scenario():
            door = await Live.connect(server, subprotocols=V2)
            await door.next()
            states = {door.version: door.snapshot}
            ann = await signed_in(server, "ann", subprotocols=V2)
            for step in ACTIONS:
                action = step(ann.snapshot) if callable(step) else step
                assert (await ann.command(action))["type"] == "ack", action
                await door.wait_snapshot(ann.version)
                states[door.version] = door.snapshot
            await wait_for(lambda: server.health()["publishedVersion"] == door.version, 5, "the last version published")
            health = server.health()
            assert health["nats"] == "connected"

            messages = await read_subject(broker.url, STREAM, STATE)
            # Each message signed by the venue's key, in its epoch.
            for message in messages:
                assert verifies(health["venueKey"], health["epoch"], message.data, message.headers["Gather-Signature"])
            first = json.loads(messages[0].data)
            assert first["epoch"] == health["epoch"] and first["epochStartedAt"] == health["epochStartedAt"]
            assert first["type"] == "snapshot" and messages[0].headers.get("Nats-Rollup") == "sub"
            assert "Nats-Msg-Id" not in (messages[0].headers or {})
            held, version = first["state"], first["version"]
            assert held == states[version]
            for message in messages[1:]:
                body = json.loads(message.data)
                assert body["type"] == "patch" and body["from"] == version, body
                assert message.headers["Nats-Msg-Id"] == f"{VENUE}.{health['epoch']}.{body['version']}"
                held = jsonpatch.apply_patch(held, body["ops"])
                version = body["version"]
                assert held == states[version], f"version {version}"
            assert version == door.version
            for client in (door, ann):
                await client.close()
        run(scenario())


def test_ticks_and_a_heartbeat_travel_on_the_ticks_subject():
    with NatsServer() as broker, venue_server(broker.url) as server:
        async def scenario():
            nc = await nats.connect(broker.url)
            heard: list[dict] = []
            signatures: list[tuple] = []
            arrived = asyncio.Event()

            async def on_message(msg):
                heard.append(json.loads(msg.data))
                signatures.append((msg.data, (msg.headers or {}).get("Gather-Signature")))
                arrived.set()
            await nc.subscribe("gather.riverside.ticks", cb=on_message)
            await nc.flush()
            ann = await signed_in(server, "ann", subprotocols=V2)
            for name in ("Ann", "Ben"):
                await ann.command({"kind": "addPlayer", "name": name})
            await ann.command({"kind": "createGather", "playerIds": [p["id"] for p in ann.snapshot["players"]]})
            for action in ({"kind": "balanceTeams"}, {"kind": "startGather"}, {"kind": "startTimer"}):
                assert (await ann.command(action))["type"] == "ack"
            await wait_for(lambda: any(m["type"] == "tick" and m["pitch"] == 1 for m in heard), 5, "a tick")
            door_tick = await ann.until(lambda m: m["type"] == "tick")
            assert set(door_tick) == {"type", "pitch", "timer"}
            await ann.command({"kind": "pauseTimer"})
            version = ann.version
            # Quiet for 5 s: the venue says it is alive, with the version it published.
            await wait_for(lambda: any(m["type"] == "heartbeat" for m in heard), 9, "a heartbeat")
            heartbeat = next(m for m in heard if m["type"] == "heartbeat")
            health = server.health()
            # Numbered (PROTOCOL §16.7): `seq` counts this epoch's ticks-subject messages, `at` is the
            # venue's clock.
            assert heartbeat["seq"] == heard.index(heartbeat) + 1 and isinstance(heartbeat["at"], int), heartbeat
            assert {k: v for k, v in heartbeat.items() if k not in ("seq", "at")} == {
                "type": "heartbeat", "version": version, "epoch": health["epoch"], "epochStartedAt": health["epochStartedAt"]}
            assert [m["seq"] for m in heard] == list(range(1, len(heard) + 1))
            assert all(verifies(health["venueKey"], health["epoch"], data, signature) for data, signature in signatures)
            await ann.close()
            await nc.close()
        run(scenario())


@pytest.mark.timing
@pytest.mark.mostly_waits
def test_nats_down_at_start_and_later_never_slows_an_ack_and_the_stream_resumes_with_a_snapshot():
    broker = NatsServer().start()
    port = broker.port
    broker.stop()  # the port is known and free: the venue starts with NATS down
    broker.port = port
    try:
        with venue_server(f"nats://127.0.0.1:{port}") as server:
            assert server.health()["nats"] == "reconnecting"
            assert server.health()["publishedVersion"] is None

            async def scenario():
                await wait_for(lambda: any("NATS is not reachable yet" in line for line in server.errors + server.output),
                               10, "the log line")
                door = await Live.connect(server, subprotocols=V2)
                await door.next()
                ann = await signed_in(server, "ann", subprotocols=V2)
                slowest = await slowest_ack(ann)
                assert slowest < 1.0, f"an ack took {slowest:.3f} s with NATS down"
                await door.wait_snapshot(ann.version)
                assert door.snapshot == ann.snapshot

                broker.start()
                await wait_for(lambda: server.health()["publishedVersion"] == ann.version, 10, "the stream to resume")
                assert server.health()["nats"] == "connected"
                messages = await read_subject(broker.url, STREAM, STATE)
                assert len(messages) == 1
                snapshot = json.loads(messages[0].data)
                assert (snapshot["type"], snapshot["version"], snapshot["state"]) == ("snapshot", ann.version, door.snapshot)

                # NATS goes away mid-match: the acks stay quick, and it comes back to a snapshot.
                broker.stop()
                await wait_for(lambda: server.health()["nats"] == "reconnecting", 10, "the venue to notice")
                for index in range(5):
                    started = time.monotonic()
                    assert (await ann.command({"kind": "addPlayer", "name": f"Q{index}"}))["type"] == "ack"
                    assert time.monotonic() - started < 1.0
                broker.start()
                await wait_for(lambda: server.health()["publishedVersion"] == ann.version, 10, "the stream to resume")
                messages = await read_subject(broker.url, STREAM, STATE)
                assert json.loads(messages[0].data)["version"] == ann.version and len(messages) == 1
                for client in (door, ann):
                    await client.close()
            run(scenario())
    finally:
        broker.cleanup()


def test_without_nats_nothing_changes_and_health_says_off():
    with GatherServer() as server:
        health = server.health()
        assert health["nats"] == "off" and health["publishedVersion"] is None


@pytest.mark.parametrize("venue", ["Riverside", "a.b", "x" * 33, "", "gather>"])
def test_an_invalid_venue_name_is_refused_with_a_clear_error(venue):
    result = subprocess.run([BINARY, "serve", "--port", "0", "--public", PUBLIC, "--nats", "nats://127.0.0.1:1",
                             "--venue", venue], capture_output=True, text=True, timeout=30)
    assert result.returncode != 0
    assert "is not a venue name" in result.stderr and "a-z" in result.stderr, result.stderr
