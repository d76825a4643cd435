"""Epochs and the venue's key (PROTOCOL.md "The stream, trusted and resumable"): each start of the
venue is a new epoch, its key is made once and kept, a relay needs that key to start, and a
running relay follows a venue restored from a backup (lower versions, a new epoch) at once.
Real `gather serve`, `gather backup`, `nats-server` and `gather relay`."""
import asyncio
import base64
import glob
import os
import shutil
import stat
import subprocess

import pytest

from gatherlib import BINARY, PUBLIC, Live, run, signed_in
from natslib import V2, NatsServer, RelayProcess, relay_follower, running, venue_key, venue_server, wait_for


def test_each_start_is_a_new_epoch_and_the_venue_key_is_made_once_and_kept():
    with NatsServer() as broker:
        server = venue_server(broker.url)
        try:
            server.start()
            first = server.health()
            key_file = os.path.join(server.data_dir, "venue-key.pem")
            assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
            with open(key_file) as handle:
                assert handle.read().startswith("-----BEGIN PRIVATE KEY-----")
            assert len(base64.b64decode(first["venueKey"])) == 32
            assert any(first["venueKey"] in line for line in server.output), "the banner prints the key"

            async def welcome_and_snapshot():
                door = await Live.connect(server, subprotocols=V2)
                welcome, snapshot = door.messages[0], await door.next()
                await door.close()
                return welcome, snapshot
            welcome, snapshot = run(welcome_and_snapshot())
            for message in (welcome, snapshot):
                assert message["epoch"] == first["epoch"] and message["epochStartedAt"] == first["epochStartedAt"]
            assert 8 <= len(first["epoch"]) <= 64

            server.stop()
            server.start()
            second = server.health()
            assert second["venueKey"] == first["venueKey"]
            assert second["epoch"] != first["epoch"] and second["epochStartedAt"] > first["epochStartedAt"]
        finally:
            server.cleanup()


def restore(server, backup: str) -> None:
    """What an operator does with a backup: the database file back in place (its WAL gone)."""
    database = os.path.join(server.data_dir, "gather.sqlite")
    for leftover in glob.glob(database + "-*"):
        os.remove(leftover)
    shutil.copyfile(backup, database)


def test_a_running_relay_follows_a_venue_restored_from_a_backup_at_once():
    with NatsServer() as broker:
        server = venue_server(broker.url)
        relay = RelayProcess(broker.url)
        with running(server, relay):
            async def scenario():
                ann = await signed_in(server, "ann", subprotocols=V2)
                for name in ("Ann", "Ben"):
                    assert (await ann.command({"kind": "addPlayer", "name": name}))["type"] == "ack"
                await ann.close()
                backup = os.path.join(os.path.dirname(server.data_dir), "backup.sqlite")
                result = await asyncio.to_thread(subprocess.run, [BINARY, "backup", backup, "--data-dir", server.data_dir],
                                                 capture_output=True, text=True, timeout=30)
                assert result.returncode == 0, result.stderr
                restored_version = server.health()["version"]

                bob = await signed_in(server, "bob", subprotocols=V2)
                for name in ("Cat", "Dan", "Eve", "Fay"):
                    assert (await bob.command({"kind": "addPlayer", "name": name}))["type"] == "ack"
                follower = await relay_follower(relay)
                await follower.wait_snapshot(bob.version, timeout=10)
                later_version = bob.version
                await bob.close()
                assert later_version > restored_version
                old_epoch = server.health()["epoch"]

                await asyncio.to_thread(server.stop)
                restore(server, backup)
                await asyncio.to_thread(server.start)
                new = server.health()
                assert new["version"] < later_version and new["epoch"] != old_epoch

                # The follower that held the later version of the old epoch gets the restored state.
                snapshot = await follower.until(lambda m: m["type"] == "snapshot" and m.get("epoch") == new["epoch"], 15)
                door = await Live.connect(server, subprotocols=V2)
                await door.next()
                assert snapshot["version"] == door.version < later_version
                assert follower.snapshot == door.snapshot
                assert [p["name"] for p in follower.snapshot["players"]] == ["Ann", "Ben"]
                # And it goes on following the new epoch.
                cy = await signed_in(server, "cyd", subprotocols=V2)
                assert (await cy.command({"kind": "addPlayer", "name": "Gil"}))["type"] == "ack"
                await follower.wait_snapshot(cy.version, timeout=10)
                assert follower.snapshot == cy.snapshot
                await wait_for(lambda: relay.health()["version"] == cy.version, 5, "the relay's version")
                assert relay.health()["epoch"] == new["epoch"]
                # A new follower of the relay starts in the new epoch too.
                late = await relay_follower(relay)
                assert late.messages[0]["epoch"] == new["epoch"] and late.snapshot == cy.snapshot
                for client in (follower, door, cy, late):
                    await client.close()
            run(scenario())
            assert relay.process.poll() is None


@pytest.mark.parametrize("key_arguments, message", [
    ((), "gather relay needs --venue-key KEY"),
    (("--venue-key", "not-a-key"), "--venue-key is not the venue's key"),
    (("--venue-key", base64.b64encode(b"x" * 31).decode()), "--venue-key is not the venue's key"),
    (("--venue-key", base64.b64encode(b"x" * 33).decode()), "--venue-key is not the venue's key"),
    (("--venue-key", "@/nonexistent/venue.key"), "not a readable file"),
])
def test_a_relay_refuses_to_start_without_the_venues_key_or_with_a_bad_one(key_arguments, message):
    result = subprocess.run([BINARY, "relay", "--port", "0", "--public", PUBLIC, "--nats", "nats://127.0.0.1:1",
                             "--venue", "riverside", *key_arguments], capture_output=True, text=True, timeout=30)
    assert result.returncode != 0 and message in result.stderr, result.stderr
    assert "listening" not in result.stdout


def test_a_relay_takes_the_key_from_a_file(tmp_path):
    with NatsServer() as broker:
        server = venue_server(broker.url)
        try:
            server.start()
            key_file = tmp_path / "venue.key"
            key_file.write_text(venue_key(server) + "\n")
            relay = RelayProcess(broker.url, venue_key=f"@{key_file}")
            try:
                relay.start()

                async def scenario():
                    follower = await relay_follower(relay)
                    assert follower.version == server.health()["version"]
                    await follower.close()
                run(scenario())
            finally:
                relay.stop()
        finally:
            server.cleanup()
