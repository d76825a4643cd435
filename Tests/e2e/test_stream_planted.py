"""Issue 41 point 2 (PROTOCOL.md "The stream, against its own credentials": the venue notices a
stream it did not write). With the venue's NATS user, messages planted ahead of the venue's ids
(`Nats-Msg-Id: VENUE.EPOCH.V+1…`) made JetStream drop the venue's real patches as duplicates and
froze every relay. Now a duplicate acknowledgement makes the venue publish a snapshot at once
(its rollup clears what was planted), logged at most once per 10 s; and a foreign last message,
found by the venue's check every 60 s, does the same. Real nats-server with the accounts of
deploy/nats/one-server.conf, real `gather serve`, `gather nats mirror --for-relays`, `gather relay`."""
import json

import pytest

from gatherlib import run, signed_in
from natslib import V2
from stream_accounts import (STATE, as_venue_user, follower_of, stream_last, venue_and_relays, wait_for)
from stream_trust import verifies

FAULT_LINE = "holds messages the venue did not publish"


def test_ids_planted_ahead_of_the_venue_freeze_no_relay_and_the_venue_says_so_once():
    with venue_and_relays() as (broker, server, (relay,)):
        async def scenario():
            ann = await signed_in(server, "ann", subprotocols=V2)
            for name in ("Ann", "Ben"):
                assert (await ann.command({"kind": "addPlayer", "name": name}))["type"] == "ack"
            follower = await follower_of(relay)
            await follower.wait_snapshot(ann.version, timeout=15)

            # The attacker, with the venue's own user, plants the venue's next five ids.
            epoch = server.health()["epoch"]
            planted_from = ann.version + 1
            attacker = await as_venue_user(broker)
            js = attacker.jetstream()
            for version in range(planted_from, planted_from + 5):
                ack = await js.publish(STATE, json.dumps({"type": "junk", "n": version}).encode(),
                                       headers={"Nats-Msg-Id": f"riverside.{epoch}.{version}"})
                assert not ack.duplicate
            await attacker.close()

            # The venue goes on: six more versions, the first five of them with planted ids.
            for index in range(6):
                assert (await ann.command({"kind": "addPlayer", "name": f"Late {index}"}))["type"] == "ack"
            await follower.wait_snapshot(ann.version, timeout=15)
            assert follower.snapshot == ann.snapshot
            await wait_for(lambda: relay.health()["version"] == ann.version, 10, "the relay to reach the venue")
            health = relay.health()
            assert health["behind"] is False and health["venueVersion"] == ann.version, health

            # The stream again ends with the venue's own signed messages.
            last = await stream_last(broker)
            assert verifies(server.health()["venueKey"], epoch, last.data, (last.headers or {}).get("Gather-Signature"))
            # Said once, not once per duplicate (at most once per 10 s).
            said = [line for line in server.errors if FAULT_LINE in line]
            assert len(said) == 1, said
            for client in (ann, follower):
                await client.close()
        run(scenario())


@pytest.mark.timing
@pytest.mark.mostly_waits
def test_a_foreign_last_message_in_an_idle_venues_stream_is_replaced_by_a_snapshot_within_a_minute():
    with venue_and_relays() as (broker, server, (relay,)):
        async def scenario():
            ann = await signed_in(server, "ann", subprotocols=V2)
            assert (await ann.command({"kind": "addPlayer", "name": "Ann"}))["type"] == "ack"
            follower = await follower_of(relay)
            await follower.wait_snapshot(ann.version, timeout=15)
            attacker = await as_venue_user(broker)
            await attacker.jetstream().publish(STATE, b'{"type":"junk"}')
            await attacker.close()
            epoch, key = server.health()["epoch"], server.health()["venueKey"]

            async def venue_wrote_last():
                last = await stream_last(broker)
                return verifies(key, epoch, last.data, (last.headers or {}).get("Gather-Signature")) and \
                    json.loads(last.data)["type"] == "snapshot"
            # Nothing changes at the venue: only its check (every 60 s) can find it.
            await wait_for(venue_wrote_last, 65, "the venue to publish a snapshot over the planted message", interval=1)
            assert any(FAULT_LINE in line for line in server.errors)
            # Its followers saw nothing of it and still follow.
            assert (await ann.command({"kind": "addPlayer", "name": "Ben"}))["type"] == "ack"
            await follower.wait_snapshot(ann.version, timeout=15)
            assert follower.snapshot == ann.snapshot
            for client in (ann, follower):
                await client.close()
        run(scenario())
