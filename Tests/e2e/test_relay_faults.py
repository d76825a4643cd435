"""Relays under faults (PROTOCOL.md "Beyond the Wi-Fi"): a relay killed, the venue killed and
restarted, NATS stopped and started again. Real processes, kill -9 where the issue says so."""
import signal
import time

import jsonpatch
import pytest
import websockets

from gatherlib import Live, run, signed_in
from natslib import (V2, NatsServer, RelayProcess, relay_client, running, slowest_ack, venue_and_relay, venue_server,
                     wait_for)


class Follower:
    """A relay spectator that moves to the next relay when its relay dies, as the pages do when
    given several relay addresses, with the pages' rule on a relay: a snapshot older than the
    state held is not taken (the relay it moved to may be a moment behind; its patches catch up).
    Records every version it holds."""

    def __init__(self, relays):
        self.relays = list(relays)
        self.client: Live | None = None
        self.state = None
        self.held: list[int] = []
        self.snapshot_versions: list[int] = []

    async def connect(self):
        last = None
        for relay in self.relays:
            if relay.process is None or relay.process.poll() is not None:
                continue
            try:
                self.client = await relay_client(relay)
                return
            except OSError as error:
                last = error
        raise RuntimeError(f"no relay answered: {last}")

    async def follow_to(self, version: int, timeout: float = 15):
        deadline = time.monotonic() + timeout
        while not self.held or self.held[-1] < version:
            if time.monotonic() > deadline:
                raise TimeoutError(f"stuck at {self.held[-1:]} waiting for {version}")
            try:
                message = await self.client.next(max(0.1, deadline - time.monotonic()))
            except websockets.exceptions.ConnectionClosed:
                await self.connect()
                continue
            if message["type"] == "snapshot":
                self.snapshot_versions.append(message["version"])
                if not self.held or message["version"] >= self.held[-1]:
                    self.state = message["state"]
                    self.held.append(message["version"])
            elif message["type"] == "patch" and self.held and message["from"] == self.held[-1]:
                self.state = jsonpatch.apply_patch(self.state, message["ops"])
                self.held.append(message["version"])


def test_kill_9_a_relay_its_spectators_move_to_the_other_and_never_go_back():
    with NatsServer() as broker:
        server = venue_server(broker.url)
        relays = [RelayProcess(broker.url), RelayProcess(broker.url)]
        with running(server, *relays, relay_signal=signal.SIGKILL):
            async def scenario():
                followers = [Follower(relays) for _ in range(3)]
                for follower in followers:
                    await follower.connect()
                ann = await signed_in(server, "ann", subprotocols=V2)
                for index in range(5):
                    await ann.command({"kind": "addPlayer", "name": f"A{index}"})
                for follower in followers:
                    await follower.follow_to(ann.version)
                relays[0].stop(signal.SIGKILL)
                for index in range(5):
                    await ann.command({"kind": "addPlayer", "name": f"B{index}"})
                door = await Live.connect(server, subprotocols=V2)
                await door.next()
                for follower in followers:
                    await follower.follow_to(ann.version)
                    assert follower.held == sorted(follower.held), follower.held
                    assert follower.state == door.snapshot
                assert all(len(f.snapshot_versions) == 2 for f in followers)  # the first relay's, then the second's
                assert relays[1].health()["spectators"] == 3
                for client in (ann, door, *(f.client for f in followers)):
                    await client.close()
            run(scenario())


@pytest.mark.timing
@pytest.mark.mostly_waits
def test_kill_9_the_venue_relays_say_the_link_is_lost_then_versions_continue_after_its_restart():
    with venue_and_relay(relay_signal=signal.SIGKILL) as (broker, server, relay):
        async def scenario():
            follower = await relay_client(relay)
            ann = await signed_in(server, "ann", subprotocols=V2)
            for name in ("Ann", "Ben"):
                await ann.command({"kind": "addPlayer", "name": name})
            await follower.wait_snapshot(ann.version)
            version, state = ann.version, ann.snapshot
            await ann.close()
            server.stop(signal.SIGKILL)
            killed_at = time.monotonic()

            lost = await follower.until(lambda m: m["type"] == "link", 15)
            silent_for = time.monotonic() - killed_at
            assert lost["live"] is False and lost["since"].endswith("Z"), lost
            assert 9 <= silent_for <= 14, f"link lost after {silent_for:.1f} s of silence"
            health = relay.health()
            assert health["version"] == version and health["lastHeardMs"] >= 10_000
            # A new spectator gets the last state, then the word that it is not live.
            late = await relay_client(relay)
            snapshot = await late.next()
            assert (snapshot["version"], snapshot["state"]) == (version, state)
            assert (await late.next())["type"] == "link"

            server.start()  # same folders, same port
            back = await follower.until(lambda m: m["type"] == "link", 10)
            assert back == {"type": "link", "live": True, "reason": "link_restored"}
            ann = await signed_in(server, "ann2", subprotocols=V2)
            await ann.command({"kind": "addPlayer", "name": "Cat"})
            assert ann.version > version
            for client in (follower, late):
                await client.wait_snapshot(ann.version, timeout=10)
                assert client.snapshot == ann.snapshot
            # Through the restart: the restarted venue is a new epoch, so one snapshot per epoch
            # (the second at the version the first epoch ended on), then the venue's patches, in order.
            states = [m for m in follower.messages if m["type"] in ("snapshot", "patch")]
            snapshots = [m for m in states if m["type"] == "snapshot"]
            assert len(snapshots) == 2 and snapshots[0]["epoch"] != snapshots[1]["epoch"], states
            assert snapshots[1]["epoch"] == server.health()["epoch"] and snapshots[1]["version"] == version
            assert [m["version"] for m in states] == (list(range(states[0]["version"], version + 1)) + [version]
                                                      + list(range(version + 1, ann.version + 1)))
            for client in (follower, late, ann):
                await client.close()
        run(scenario())


@pytest.mark.timing
@pytest.mark.mostly_waits
def test_nats_stopped_the_venue_acks_as_fast_and_relays_catch_up_when_it_is_back():
    with NatsServer() as broker:
        server = venue_server(broker.url)
        relays = [RelayProcess(broker.url), RelayProcess(broker.url)]
        with running(server, *relays, relay_signal=signal.SIGKILL):
            async def scenario():
                followers = [await relay_client(relay) for relay in relays]
                door = await Live.connect(server, subprotocols=V2)
                await door.next()
                ann = await signed_in(server, "ann", subprotocols=V2)
                await ann.command({"kind": "addPlayer", "name": "Ann"})
                for follower in followers:
                    await follower.wait_snapshot(ann.version)

                broker.stop()
                for follower in followers:
                    lost = await follower.until(lambda m: m["type"] == "link", 10)
                    assert lost["live"] is False
                slowest = await slowest_ack(ann)
                assert slowest < 1.0, f"an ack took {slowest:.3f} s with NATS stopped"
                await door.wait_snapshot(ann.version)
                assert door.snapshot == ann.snapshot

                broker.start()  # same port, same store
                for follower, relay in zip(followers, relays):
                    back = await follower.until(lambda m: m["type"] == "link", 15)
                    assert back["live"] is True
                    await follower.wait_snapshot(ann.version, timeout=15)
                    assert follower.snapshot == door.snapshot
                    assert relay.health()["version"] == ann.version and relay.health()["nats"] == "connected"
                for client in (*followers, door, ann):
                    await client.close()
            run(scenario())
