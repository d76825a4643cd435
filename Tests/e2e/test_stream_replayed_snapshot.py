"""Issue 41 point 3 (PROTOCOL.md "The stream, against its own credentials": a relay serves only
the venue's current run). A genuinely signed snapshot of the venue's previous run, replayed into
the stream with `Nats-Rollup: sub` by whoever holds the venue's NATS user, left only itself there;
a relay started afterwards served that old run to new followers. Now the relay learns the venue's
run from its signed, numbered heartbeats: it serves no state of an older run, says `behind: true`
with `venueVersion` in /healthz meanwhile, and follows the current run once the stream holds it
(the venue publishes a snapshot as soon as its next publication finds a message it did not write).
Real nats-server with the accounts of deploy/nats/one-server.conf, real venue, mirror and relay."""
import json

from gatherlib import run, signed_in
from natslib import V2, read_subject
from stream_accounts import (STATE, STREAM, VENUE_PASSWORD, accounts_server, as_venue_user, read_for, relay,
                             relays_mirror, venue, wait_for)
from gatherlib import Live
import pytest

# Mostly waiting on other processes (NATS, PostgreSQL, an SMTP server, restarts): make test runs it
# in the serial lane beside the parallel phase (conftest.py).
pytestmark = pytest.mark.mostly_waits


def test_a_replayed_snapshot_of_the_previous_run_reaches_no_follower_and_the_relay_says_it_is_behind():
    with accounts_server() as broker:
        server = venue(broker).start()
        late_relay = None
        try:
            relays_mirror(broker)

            async def first_run():
                ann = await signed_in(server, "ann", subprotocols=V2)
                assert (await ann.command({"kind": "addPlayer", "name": "Ann"}))["type"] == "ack"
                await ann.close()
                # What the stream holds of this run: its snapshot, signed, kept by the attacker.
                held = await read_subject(broker.url, STREAM, STATE, user="gather", password=VENUE_PASSWORD)
                return next(m for m in held if json.loads(m.data)["type"] == "snapshot")
            old = run(first_run())
            old_epoch = json.loads(old.data)["epoch"]

            server.stop()
            server.start()  # the same data folder: a new run, a new epoch
            new_epoch = server.health()["epoch"]
            assert new_epoch != old_epoch

            async def second_run():
                nonlocal late_relay
                bea = await signed_in(server, "bea", subprotocols=V2)
                assert (await bea.command({"kind": "addPlayer", "name": "Ben"}))["type"] == "ack"
                await wait_for(lambda: server.health()["publishedVersion"] == bea.version, 10, "the venue to publish")
                attacker = await as_venue_user(broker)
                await attacker.jetstream().publish(STATE, old.data, headers={
                    "Gather-Signature": old.headers["Gather-Signature"], "Nats-Rollup": "sub"})
                await attacker.close()
                held = await read_subject(broker.url, STREAM, STATE, user="gather", password=VENUE_PASSWORD)
                assert [m.data for m in held] == [old.data]  # the rollup left only the replayed snapshot

                late_relay = relay(broker, server).start()
                follower = await Live.connect(None, subprotocols=V2, url=late_relay.ws_url)
                # The venue's heartbeat (every 5 s) tells the relay its run is not the one held: in
                # the meantime and after, its follower gets no state at all.
                seen = await read_for(follower, 7)
                assert not any(m.get("epoch") == old_epoch for m in follower.messages), follower.messages
                assert not any(m["type"] in ("snapshot", "patch") for m in seen), seen
                health = await wait_for(lambda: (lambda h: h if h.get("behind") else None)(late_relay.health()), 8,
                                        "the relay to say it is behind")
                assert health["venueVersion"] == bea.version, health

                # The venue's next version finds the planted snapshot and publishes its own.
                assert (await bea.command({"kind": "addPlayer", "name": "Cat"}))["type"] == "ack"
                await follower.wait_snapshot(bea.version, timeout=15)
                assert follower.snapshot == bea.snapshot
                assert not any(m.get("epoch") == old_epoch for m in follower.messages), follower.messages
                await wait_for(lambda: late_relay.health()["behind"] is False, 10, "the relay to be current")
                assert late_relay.health()["epoch"] == new_epoch
                newcomer = await Live.connect(None, subprotocols=V2, url=late_relay.ws_url)
                snapshot = await newcomer.until(lambda m: m["type"] == "snapshot", 10)
                assert snapshot["epoch"] == new_epoch and newcomer.snapshot == bea.snapshot
                for client in (bea, follower, newcomer):
                    await client.close()
            run(second_run())
        finally:
            if late_relay:
                late_relay.stop()
            server.cleanup()
