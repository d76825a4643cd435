"""Relays (PROTOCOL.md "Beyond the Wi-Fi"): `gather relay` follows a venue's stream on a real
`nats-server` and serves read-only gather.v2 spectators. A relay's spectator holds, at every
version, exactly what a spectator on the venue's door holds."""
import asyncio
import json
import uuid

import nats
import pytest
import websockets

from gatherlib import Live, run, signed_in
from natslib import (V2, VENUE, NatsServer, RelayProcess, relay_client, relay_follower, running, venue_and_relay, venue_server,
                     wait_for)
from natslib import provide_venue_key, venue_key


async def record(client: Live, states: dict, until_version: int, timeout: float = 10):
    """Reads until `until_version`, recording the state of every version the client passes."""
    while client.version < until_version:
        message = await client.next(timeout)
        if message["type"] in ("snapshot", "patch") and client.snapshot is not None:
            states[client.version] = client.snapshot


STEPS = [
    {"kind": "addPlayer", "name": "Ann"}, {"kind": "addPlayer", "name": "Ben"},
    {"kind": "addPlayer", "name": "Cat"}, {"kind": "addPlayer", "name": "Dan"},
    {"kind": "addPitch", "name": "Back pitch"},
    lambda s: {"kind": "createGather", "playerIds": [p["id"] for p in s["players"]]},
    {"kind": "balanceTeams"}, {"kind": "startGather"}, {"kind": "startTimer"},
    {"kind": "score", "team": "A", "delta": 1}, {"kind": "score", "team": "B", "delta": 1},
    {"kind": "score", "team": "A", "delta": 1}, {"kind": "pauseTimer"},
    {"kind": "renameTeam", "team": "B", "name": "Blues ~/"}, {"kind": "endGather"},
    {"kind": "removePitch", "pitch": 2},
]


def test_a_relay_started_before_the_venue_waits_then_serves_every_version_as_the_door_does():
    with NatsServer() as broker:
        server = venue_server(broker.url)
        # The venue's key, in its data folder before its first start (as a restored backup has it).
        relay = RelayProcess(broker.url, venue_key=provide_venue_key(server.data_dir)).start()
        try:
            async def scenario():
                await wait_for(lambda: relay.health()["nats"] == "connected", 10, "the relay's NATS connection")
                health = relay.health()
                assert health["venue"] == VENUE and health["version"] is None and health["lastHeardMs"] is None
                assert health["spectators"] == 0
                early = await relay_client(relay)
                welcome = early.messages[0]
                assert welcome["protocol"] == "gather.v2" and welcome["relay"] is True
                await wait_for(lambda: relay.health()["spectators"] == 1, 5, "the relay to count its spectator")
                await wait_for(lambda: any("waiting for the venue" in line for line in relay.errors), 10, "the log line")
                waiting = await early.until(lambda m: m["type"] == "link", 5)
                assert waiting == {"type": "link", "live": False, "reason": "link_lost"}  # never heard: no "since"

                server.start()
                first = await early.until(lambda m: m["type"] == "snapshot", 15)
                assert (await early.until(lambda m: m["type"] == "link", 5))["live"] is True
                door = await Live.connect(server, subprotocols=V2)
                await door.next()
                assert first["version"] == door.version and early.snapshot == door.snapshot

                door_states, relay_states = {door.version: door.snapshot}, {early.version: early.snapshot}
                ann = await signed_in(server, "ann", subprotocols=V2)
                for step in STEPS:
                    action = step(ann.snapshot) if callable(step) else step
                    assert (await ann.command(action))["type"] == "ack", action
                    await record(door, door_states, ann.version)
                    await record(early, relay_states, ann.version)
                assert sorted(relay_states) == sorted(door_states) == list(range(first["version"], ann.version + 1))
                for version, state in door_states.items():
                    assert relay_states[version] == state, f"version {version}"
                # Patches, not snapshots, after the first: the venue's bytes, forwarded.
                kinds = [m["type"] for m in early.messages if m["type"] in ("snapshot", "patch")]
                assert kinds.count("snapshot") == 1 and kinds.count("patch") == len(STEPS)

                # A new relay spectator starts at the current version.
                late = await relay_client(relay)
                snapshot = await late.next()
                assert snapshot["type"] == "snapshot" and snapshot["version"] == ann.version
                assert late.snapshot == door.snapshot

                health = relay.health()
                assert health["version"] == ann.version and health["spectators"] == 2
                assert 0 <= health["lastHeardMs"] < 10_000
                for client in (early, late, door, ann):
                    await client.close()
            run(scenario())
        finally:
            relay.stop()
            server.cleanup()


def test_ticks_travel_through_relays_and_relay_spectators_count_as_remote_in_the_venues_presence():
    with NatsServer() as broker:
        server = venue_server(broker.url)
        relays = [RelayProcess(broker.url, extra_args=("--relay-id", f"r{n}")) for n in (1, 2)]
        with running(server, *relays):
            async def scenario():
                followers = [await relay_client(relays[0]), await relay_client(relays[0]), await relay_client(relays[1])]
                for follower in followers:
                    await follower.until(lambda m: m["type"] == "snapshot", 10)
                ann = await signed_in(server, "ann", subprotocols=V2)
                presence = await ann.until(lambda m: m["type"] == "presence" and m.get("remote") == 3, 15)
                assert presence["spectators"] == 0  # the organiser; no door spectator
                for name in ("Ann", "Ben"):
                    await ann.command({"kind": "addPlayer", "name": name})
                await ann.command({"kind": "createGather", "playerIds": [p["id"] for p in ann.snapshot["players"]]})
                for action in ({"kind": "balanceTeams"}, {"kind": "startGather"}, {"kind": "startTimer"}):
                    assert (await ann.command(action))["type"] == "ack"
                door_tick = await ann.until(lambda m: m["type"] == "tick", 5)
                for follower in followers:
                    tick = await follower.until(lambda m: m["type"] == "tick", 5)
                    assert set(tick) == set(door_tick) and tick["pitch"] == 1
                    assert follower.version == ann.version  # the tick came after its version
                # The relays' followers also see the venue's presence, with the remote count.
                seen = [m for m in followers[0].messages if m["type"] == "presence"]
                assert seen and seen[-1]["remote"] == 3
                for client in (*followers, ann):
                    await client.close()
            run(scenario())


def test_a_relay_refuses_logins_commands_and_gather_v1_and_nothing_changes():
    with venue_and_relay() as (broker, server, relay):
        async def scenario():
            follower = await relay_follower(relay)
            version = follower.version
            for kind in ("register", "login", "resume"):
                request = str(uuid.uuid4())
                await follower.send({"type": kind, "id": request, "username": "ann", "password": "correct horse battery",
                                     "inviteCode": "TESTCODE1", "token": "x" * 32})
                reply = await follower.until(lambda m: m.get("id") == request, 5)
                assert reply["type"] == "error" and reply["code"] == "tls_required", reply
                assert "organisers use the venue's own address" in reply["message"]
            command = str(uuid.uuid4())
            await follower.send({"type": "command", "id": command, "base": version,
                                 "action": {"kind": "addPlayer", "name": "Forged"}})
            reply = await follower.until(lambda m: m.get("id") == command, 5)
            assert (reply["type"], reply["code"], reply["version"]) == ("rejected", "forbidden", version)
            await follower.send({"type": "hello"})
            assert (await follower.until(lambda m: m["type"] == "error", 5))["code"] == "unknown_type"
            assert server.health()["version"] == version
            door = await Live.connect(server, subprotocols=V2)
            await door.next()
            assert door.version == version and all(p["name"] != "Forged" for p in door.snapshot["players"])
            with pytest.raises(websockets.exceptions.InvalidStatus):
                await websockets.connect(relay.ws_url, subprotocols=["gather.v1"], open_timeout=5)
            assert relay.get("/api/history.json")[0] == 404
            for client in (follower, door):
                await client.close()
        run(scenario())


def test_junk_and_a_gap_on_the_subject_never_stop_a_relay():
    with venue_and_relay() as (broker, server, relay):
        async def scenario():
            follower = await relay_follower(relay)
            ann = await signed_in(server, "ann", subprotocols=V2)
            await ann.command({"kind": "addPlayer", "name": "Ann"})
            await follower.wait_snapshot(ann.version)
            nc = await nats.connect(broker.url)
            js = nc.jetstream()
            await js.publish("gather.riverside.state", b"not json at all")
            await js.publish("gather.riverside.state", json.dumps(
                {"type": "patch", "from": ann.version + 5, "version": ann.version + 6, "ops": []}).encode())
            await nc.close()
            for name in ("Ben", "Cat"):
                await ann.command({"kind": "addPlayer", "name": name})
            await follower.wait_snapshot(ann.version, timeout=10)
            assert follower.snapshot == ann.snapshot
            assert relay.health()["version"] == ann.version
            await wait_for(lambda: any("dropped a message" in line for line in relay.errors), 5, "the log line")
            assert sum("dropped a message" in line for line in relay.errors) <= 2
            assert relay.health()["dropped"] >= 2
            assert relay.process.poll() is None
            for client in (follower, ann):
                await client.close()
        run(scenario())


@pytest.mark.parametrize("arguments, message", [
    (("--venue", "Bad.Name"), "is not a venue name"),
    (("--venue", "riverside", "--stream", "a.b"), "--stream must be"),
])
def test_a_relay_refuses_bad_options_with_a_clear_error(arguments, message):
    import subprocess
    from gatherlib import BINARY, PUBLIC
    result = subprocess.run([BINARY, "relay", "--port", "0", "--public", PUBLIC, "--nats", "nats://127.0.0.1:1", *arguments],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode != 0 and message in result.stderr, result.stderr


def test_a_relay_with_a_certificate_serves_its_followers_over_tls_only():
    with NatsServer() as broker:
        server = venue_server(broker.url)
        server.start()
        relay = RelayProcess(broker.url, extra_args=(
            "--tls-cert", f"{server.cert_dir}/server.pem", "--tls-key", f"{server.cert_dir}/server-key.pem"),
            venue_key=venue_key(server))
        try:
            relay.start()

            async def scenario():
                follower = await Live.connect(server, subprotocols=V2, url=f"wss://127.0.0.1:{relay.port}/live")
                assert follower.messages[0]["relay"] is True
                snapshot = await follower.until(lambda m: m["type"] == "snapshot", 10)
                assert snapshot["version"] == server.health()["version"]
                await follower.close()
                # Plain HTTP on that port is not served.
                with pytest.raises(Exception):
                    relay.get("/healthz")
            run(scenario())
        finally:
            relay.stop()
            server.cleanup()
