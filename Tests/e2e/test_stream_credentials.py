"""Issue 41 point 5 (PROTOCOL.md "The stream, against its own credentials": relays cannot write
the venue's subjects, even indirectly). With a relay's credentials, push consumers delivering the
stored stream onto `gather.VENUE.ticks` and `.watchers` reached the venue's account (the stream's
consumers unbounded). Now relays live in their own account (deploy/nats/one-server.conf, and
hub.conf's RELAYS): it imports the venue's subjects read-only, reads a mirror of its own, and a
consumer made with a relay's user lives there; the consumers are bounded. Real nats-server with
those accounts, real venue, `gather nats mirror --for-relays` and two relays; the attacker is
nats-py with the relay's user."""
import asyncio
import json

import nats
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

from gatherlib import run, signed_in
from natslib import V2
from stream_accounts import (STREAM, TICKS, as_relay_user, as_venue_user, follower_of, venue_and_relays, wait_for)
from stream_trust import verifies
import pytest

# Mostly waiting on other processes (NATS, PostgreSQL, an SMTP server, restarts): make test runs it
# in the serial lane beside the parallel phase (conftest.py).
pytestmark = pytest.mark.mostly_waits

WATCHERS = "gather.riverside.watchers"


def test_consumers_made_with_a_relays_user_deliver_nothing_into_the_venues_account_and_are_bounded():
    with venue_and_relays(2) as (broker, server, (relay, other)):
        async def scenario():
            key, epoch = server.health()["venueKey"], server.health()["epoch"]
            heard: list[tuple[str, bytes, str]] = []

            async def record(message):
                heard.append((message.subject, message.data, (message.headers or {}).get("Gather-Signature", "")))
            in_venue = await as_venue_user(broker)
            await in_venue.subscribe(TICKS, cb=record)
            await in_venue.subscribe(WATCHERS, cb=record)
            await in_venue.flush()

            ann = await signed_in(server, "ann", subprotocols=V2)
            for name in ("Ann", "Ben"):
                assert (await ann.command({"kind": "addPlayer", "name": name}))["type"] == "ack"
            follower = await follower_of(other)
            await follower.wait_snapshot(ann.version, timeout=15)

            errors: list[str] = []

            async def on_error(error):
                errors.append(str(error))
            attacker = await as_relay_user(broker, error_cb=on_error)
            js = attacker.jetstream()
            # What a relay's JetStream requests reach is the relays' own mirror.
            assert (await js.stream_info(STREAM)).config.mirror is not None
            for subject in (TICKS, WATCHERS):
                await js.add_consumer(STREAM, ConsumerConfig(deliver_subject=subject, deliver_policy=DeliverPolicy.ALL,
                                                             ack_policy=AckPolicy.NONE))
            # The venue's own stream API is out of a relay's reach.
            try:
                await attacker.request("$JS.riverside.API.CONSUMER.CREATE.GATHER_riverside",
                                       json.dumps({"stream_name": STREAM, "config": {"deliver_subject": TICKS}}).encode(),
                                       timeout=1)
            except nats.errors.Error:
                pass
            await wait_for(lambda: any("permissions violation" in e.lower() for e in errors), 5, "NATS to refuse")
            await asyncio.sleep(2)

            # Nothing stored reached the venue's ticks subject: all it heard there is its own ticks
            # and heartbeats, signed.
            ticks = [(data, signature) for subject, data, signature in heard if subject == TICKS]
            assert ticks
            for data, signature in ticks:
                assert verifies(key, epoch, data, signature), data[:200]
                assert json.loads(data)["type"] not in ("snapshot", "patch")
            # The watcher reports are the one subject relays write, by design: what a relay's consumer
            # delivers there is no more than the relay could publish itself, and the venue counts only
            # reports (one follower, on `other`).
            presence = await ann.until(lambda m: m["type"] == "presence" and m.get("remote") == 1, 15)
            assert presence["remote"] == 1
            assert all(m.get("remote", 0) <= 1 for m in ann.messages if m["type"] == "presence")

            # The consumers are bounded: a relay's user cannot make more than the account allows.
            made, refused = 0, None
            for index in range(80):
                try:
                    await js.add_consumer(STREAM, ConsumerConfig(deliver_subject=f"_INBOX.relay.flood.{index}",
                                                                 ack_policy=AckPolicy.NONE))
                    made += 1
                except nats.js.errors.APIError as error:
                    refused = error
                    break
            assert refused is not None and made + 4 <= 64, (made, refused)

            # The venue's followers through either relay follow on.
            assert (await ann.command({"kind": "addPlayer", "name": "Cat"}))["type"] == "ack"
            await follower.wait_snapshot(ann.version, timeout=15)
            assert follower.snapshot == ann.snapshot
            for connection in (attacker, in_venue):
                await connection.close()
            for client in (ann, follower):
                await client.close()
        run(scenario())
