"""The venue's own NATS, kept honest (docs/PROTOCOL.md "Beyond the Wi-Fi"): the laptop's
nats-server as deploy/nats/venue.conf has it refuses anonymous clients; a deleted stream is made
again with a snapshot and `/healthz` says what is going on meanwhile; and the relays' watcher
reports move the venue's `remote` only within the caps. Real nats-server, gather serve and gather
relay; nats-py plays the attacker."""
import asyncio
import json
import os
import re
import subprocess

import nats
import pytest

from gatherlib import BINARY, GatherServer, run, signed_in
from natslib import (V2, VENUE, NatsServer, RelayProcess, given_venue_key, relay_follower, running, venue_and_relay, venue_key,
                     venue_server, wait_for)
from test_relay_leaf import VENUE_PASSWORD, Certificates, venue_config

# Mostly waiting on other processes (NATS, PostgreSQL, an SMTP server, restarts): make test runs it
# in the serial lane beside the parallel phase (conftest.py).
pytestmark = pytest.mark.mostly_waits


async def refused(url: str, **credentials) -> str:
    """The error nats-server answers a connection with; fails the test when it is accepted."""
    try:
        client = await nats.connect(url, connect_timeout=3, allow_reconnect=False, max_reconnect_attempts=0,
                                    **credentials)
    except Exception as error:  # noqa: BLE001 - the refusal is the point
        return str(error)
    await client.close()
    raise AssertionError(f"nats-server accepted {credentials or 'an anonymous client'}")


def test_the_laptops_nats_refuses_anonymous_clients_and_serves_the_venues_user():
    certs = Certificates()
    # No hub answers: the leaf keeps dialling, which changes nothing on loopback.
    leaf = NatsServer(config=venue_config(1, certs.ca_file))
    server = None
    try:
        leaf.start()

        async def scenario():
            assert "authorization" in (await refused(leaf.url)).lower()
            assert "authorization" in (await refused(leaf.url, user="gather", password="a guess")).lower()
            ann = await signed_in(server, "ann", subprotocols=V2)
            for name in ("Ann", "Ben"):
                assert (await ann.command({"kind": "addPlayer", "name": name}))["type"] == "ack"
            await wait_for(lambda: server.health()["publishedVersion"] == ann.version, 10, "the publication")
            health = server.health()
            assert health["nats"] == "connected" and health["stream"] == "present" and health["lagVersions"] == 0
            venue = await nats.connect(leaf.url, user="gather", password=VENUE_PASSWORD)
            info = await venue.jetstream().stream_info(f"GATHER_{VENUE}")
            assert info.state.messages >= 1
            await venue.close()
            await ann.close()

        # The README's way: --nats-user with the password from GATHER_NATS_PASSWORD; and the
        # contract's --nats-password (which warns that `ps` shows it).
        for login, env in (((), {"GATHER_NATS_PASSWORD": VENUE_PASSWORD}), (("--nats-password", VENUE_PASSWORD), {})):
            server = venue_server(leaf.url, "--nats-user", "gather", *login, env=env or None)
            server.start()
            run(scenario())
            server.cleanup()
            server = None
    finally:
        if server is not None:
            server.cleanup()
        leaf.cleanup()
        certs.cleanup()


# MARK: - The stream is kept

async def delete_stream(url: str):
    client = await nats.connect(url, connect_timeout=3, allow_reconnect=False)
    await client.jetstream().delete_stream(f"GATHER_{VENUE}")
    await client.close()


async def first_message(url: str) -> dict:
    # No reconnecting: a broker that is gone fails the call at once (nats-py's default retries
    # 60 times 2 s apart, and the test's 15 s wait became two minutes without saying why).
    client = await nats.connect(url, connect_timeout=3, allow_reconnect=False)
    try:
        message = await client.jetstream().get_msg(f"GATHER_{VENUE}", seq=1, direct=False)
        return json.loads(message.data)
    finally:
        await client.close()


def test_a_stream_deleted_mid_match_is_made_again_with_a_snapshot_and_followers_catch_up():
    with venue_and_relay() as (broker, server, relay):
        async def scenario():
            ann = await signed_in(server, "ann", subprotocols=V2)
            follower = await relay_follower(relay)
            for name in ("Ann", "Ben", "Cat"):
                assert (await ann.command({"kind": "addPlayer", "name": name}))["type"] == "ack"
            await follower.wait_snapshot(ann.version, timeout=15)

            await delete_stream(broker.url)
            # The next change finds it gone (or the venue's own look, every 2 s, does first).
            assert (await ann.command({"kind": "addPlayer", "name": "Dan"}))["type"] == "ack"

            async def made_again():
                assert broker.process.poll() is None, f"nats-server exited ({broker.process.returncode}): {broker.log[-20:]}"
                try:
                    return (await first_message(broker.url))["type"] == "snapshot"
                except Exception:  # noqa: BLE001 - not there (yet)
                    return False
            await wait_for(made_again, 15, "the venue to make its stream again, a snapshot first", interval=0.2)

            def caught_up():
                health = server.health()
                return health["stream"] == "present" and health["publishedVersion"] == ann.version \
                    and health["lagVersions"] == 0
            await wait_for(caught_up, 15, "the venue to make its stream again and publish", interval=0.1)
            again = await first_message(broker.url)
            assert again["type"] == "snapshot" and again["version"] >= ann.version - 1, again
            assert any("the venue's stream is gone" in line or "created the venue's stream" in line
                       for line in server.output + server.errors)
            for name in ("Eve", "Fay"):
                assert (await ann.command({"kind": "addPlayer", "name": name}))["type"] == "ack"
            await follower.wait_snapshot(ann.version, timeout=20)
            assert follower.snapshot == ann.snapshot
            for client in (ann, follower):
                await client.close()
        run(scenario())


def test_healthz_says_missing_while_the_stream_cannot_be_made_and_present_once_it_is():
    with venue_and_relay() as (broker, server, relay):
        async def scenario():
            ann = await signed_in(server, "ann", subprotocols=V2)
            assert (await ann.command({"kind": "addPlayer", "name": "Ann"}))["type"] == "ack"
            await wait_for(lambda: server.health()["publishedVersion"] == ann.version, 10, "the publication")
            # Deleted, and its subject taken by another stream: the venue cannot make it again.
            client = await nats.connect(broker.url)
            js = client.jetstream()
            await js.delete_stream(f"GATHER_{VENUE}")
            await js.add_stream(name="SQUATTER", subjects=[f"gather.{VENUE}.state"])
            await wait_for(lambda: server.health()["stream"] == "missing", 10, "/healthz to say the stream is missing")
            assert (await ann.command({"kind": "addPlayer", "name": "Ben"}))["type"] == "ack", "the Wi-Fi goes on"
            await asyncio.sleep(3)
            health = server.health()
            assert health["stream"] == "missing" and health["nats"] == "connected", health
            assert health["lagVersions"] >= 1, health
            await js.delete_stream("SQUATTER")
            await client.close()
            await wait_for(lambda: server.health()["stream"] == "present" and server.health()["lagVersions"] == 0, 15,
                           "the venue to make its stream again")
            follower = await relay_follower(relay)
            await follower.wait_snapshot(ann.version, timeout=20)
            assert follower.snapshot == ann.snapshot
            for live in (ann, follower):
                await live.close()
        run(scenario())


def test_healthz_without_nats_says_off():
    from gatherlib import GatherServer
    with GatherServer() as server:
        health = server.health()
        assert (health["nats"], health["stream"], health["publishedVersion"], health["lagVersions"]) == \
            ("off", None, None, None)


# MARK: - Watcher reports within reason

def test_a_thousand_made_up_relays_move_remote_only_within_the_caps():
    with venue_and_relay() as (broker, server, relay):
        async def scenario():
            ann = await signed_in(server, "ann", subprotocols=V2)
            follower = await relay_follower(relay)
            await ann.until(lambda m: m["type"] == "presence" and m.get("remote") == 1, 15)
            forger = await nats.connect(broker.url)
            for index in range(1_000):
                report = {"relay": f"fake-{index}", "spectators": 100_000}
                await forger.publish(f"gather.{VENUE}.watchers", json.dumps(report).encode())
            await forger.publish(f"gather.{VENUE}.watchers", b'{"relay":"huge","spectators":100001}')
            await forger.flush()
            await ann.until(lambda m: m["type"] == "presence" and m.get("remote", 0) >= 900_000, 15)
            await asyncio.sleep(1)
            remotes = [m["remote"] for m in ann.messages if m["type"] == "presence" and "remote" in m]
            assert max(remotes) <= 1_000_000, max(remotes)
            status, _, body = server.get("/metrics")
            assert status == 200
            shown = int(re.search(rb"^gather_presence_remote (\d+)$", body, re.M).group(1))
            assert shown <= 1_000_000, shown
            await forger.close()
            for live in (ann, follower):
                await live.close()
        run(scenario())


def test_the_hubs_mirror_recovers_as_deploy_nats_says_after_the_venues_stream_was_made_again():
    """The venue's stream made again starts its sequences over, past which the hub's mirror waits;
    deploy/nats/hub.conf says to delete the mirror and run `gather nats mirror` again."""
    from gatherlib import GatherServer
    from natslib import take_down
    from test_relay_topology import HUB, leaf_config, mirror, mirror_state

    hub = NatsServer(config=HUB).start()
    leaf = server = relay = None
    try:
        leaf = NatsServer(config=leaf_config(hub.leaf_port)).start()
        server = GatherServer(extra_args=("--nats", leaf.url, "--venue", VENUE)).start()
        assert mirror(hub).returncode == 0

        async def mirrored(version: int) -> bool:
            try:
                return (await mirror_state(hub))[0] == version
            except Exception:  # noqa: BLE001 - not there yet
                return False

        async def scenario():
            nonlocal relay
            ann = await signed_in(server, "ann", subprotocols=V2)
            for name in ("Ann", "Ben"):
                assert (await ann.command({"kind": "addPlayer", "name": name}))["type"] == "ack"
            await wait_for(lambda: mirrored(ann.version), 20, "the mirror to follow", interval=0.3)
            await delete_stream(leaf.url)
            assert (await ann.command({"kind": "addPlayer", "name": "Cat"}))["type"] == "ack"
            await wait_for(lambda: server.health()["stream"] == "present" and server.health()["lagVersions"] == 0,
                           15, "the venue to make its stream again")
            # The documented recovery: delete the hub's mirror, make it again.
            hub_client = await nats.connect(hub.url)
            await hub_client.jetstream().delete_stream(f"GATHER_{VENUE}")
            await hub_client.close()
            again = await asyncio.to_thread(mirror, hub)
            assert again.returncode == 0 and "Created the mirror" in again.stdout, again.stderr
            assert (await ann.command({"kind": "addPlayer", "name": "Dan"}))["type"] == "ack"
            await wait_for(lambda: mirrored(ann.version), 20, "the new mirror to reach the venue", interval=0.3)
            relay = await asyncio.to_thread(RelayProcess(hub.url, venue_key=venue_key(server)).start)
            follower = await relay_follower(relay)
            await follower.wait_snapshot(ann.version, timeout=15)
            assert follower.snapshot == ann.snapshot
            for live in (ann, follower):
                await live.close()
        run(scenario())
    finally:
        take_down(relay, server, leaf, hub)


def test_each_relay_reads_only_its_own_inbox_so_no_relay_learns_anothers_consumers():
    """deploy/nats/hub.conf with a second relay user, as its comment says to add one: both relays
    follow, and a client holding the second relay's credentials is refused `_INBOX.>` and the
    first relay's inbox, and hears none of its deliveries."""
    from natslib import take_down
    from test_relay_leaf import ADMIN_PASSWORD, RELAY_PASSWORD, RELAYS_ADMIN_PASSWORD, hub_config

    second_password = "relay-2-secret-5d1e"
    certs = Certificates()
    text = hub_config(certs)
    start = text.index("      {\n        user: relay\n")
    end = text.index("_INBOX.relay.>\"] }\n        }\n      }\n", start) + len("_INBOX.relay.>\"] }\n        }\n      }\n")
    block = text[start:end]
    second = block.replace("user: relay\n", "user: relay-2\n").replace(RELAY_PASSWORD, second_password) \
        .replace("_INBOX.relay.>", "_INBOX.relay-2.>")
    hub = NatsServer(config=text[:end] + second + text[end:])
    server = first = other = None
    try:
        hub.start()
        server = GatherServer(extra_args=("--nats", hub.url, "--venue", VENUE, "--nats-user", "admin"),
                              env={"GATHER_NATS_PASSWORD": ADMIN_PASSWORD})
        first = RelayProcess(hub.url, extra_args=("--nats-user", "relay"), env={"GATHER_NATS_PASSWORD": RELAY_PASSWORD})
        other = RelayProcess(hub.url, extra_args=("--nats-user", "relay-2"),
                             env={"GATHER_NATS_PASSWORD": second_password})
        server.start()
        given_venue_key(server, first, other)
        # The relays read their own account's mirror of the venue's stream (hub.conf's RELAYS).
        made = subprocess.run([BINARY, "nats", "mirror", "--hub", hub.url, "--nats-user", "relays-admin", "--venue", VENUE,
                               "--for-relays"], capture_output=True, text=True, timeout=30,
                              env={**os.environ, "GATHER_NATS_PASSWORD": RELAYS_ADMIN_PASSWORD})
        assert made.returncode == 0, made.stderr

        async def scenario():
            ann = await signed_in(server, "ann", subprotocols=V2)
            assert (await ann.command({"kind": "addPlayer", "name": "Ann"}))["type"] == "ack"
            await asyncio.to_thread(first.start)
            await asyncio.to_thread(other.start)
            followers = [await relay_follower(relay) for relay in (first, other)]
            errors, heard = [], []

            async def on_error(error):
                errors.append(str(error).lower())

            async def on_message(message):
                heard.append(message.subject)
            spy = await nats.connect(hub.url, user="relay-2", password=second_password, error_cb=on_error)
            for subject in ("_INBOX.>", "_INBOX.relay.>"):
                await spy.subscribe(subject, cb=on_message)
            await spy.flush()
            for name in ("Ben", "Cat", "Dan"):
                assert (await ann.command({"kind": "addPlayer", "name": name}))["type"] == "ack"
            for follower in followers:
                await follower.wait_snapshot(ann.version, timeout=15)
                assert follower.snapshot == ann.snapshot
            await wait_for(lambda: sum("permissions violation" in e and "_inbox" in e for e in errors) >= 2, 10,
                           "both subscriptions to be refused")
            await asyncio.sleep(1)
            assert heard == [], heard[:5]
            await spy.close()
            for live in (ann, *followers):
                await live.close()
        run(scenario())
    finally:
        take_down(first, other, server, hub, certs)
