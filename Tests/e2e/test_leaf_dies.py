"""The venue laptop's nats-server (the leaf node) killed -9 mid-match (PROTOCOL.md "Beyond the
Wi-Fi": NATS never slows the pitch): the pitch keeps working on the Wi-Fi, the venue's /healthz
says the stream is reconnecting, the relays' followers are told the link is lost; when the leaf
comes back on the same store, the followers catch up with nothing lost.

Real processes as a club runs them: the hub (deploy/nats/hub.conf), the leaf dialing it over
TLS, the mirror, two relays reading it, the venue server."""
import asyncio
import signal
import time

import pytest

from follow_support import Match, TimedFollower, lags, never_went_back, summary
from gatherlib import Live, run, signed_in
from hub_support import Certificates, VenueBeyondTheHub, single_hub
from natslib import V2, take_down, wait_for

GOAL_EVERY = 0.5


@pytest.mark.timing
@pytest.mark.mostly_waits
def test_the_leaf_killed_mid_match_the_pitch_plays_on_and_followers_catch_up_when_it_is_back():
    certs = Certificates()
    hub = single_hub(certs)
    venue = VenueBeyondTheHub()
    try:
        hub.start()
        leaf, server, relays = venue.start(hub.url, [hub.leaf_port], certs)

        async def scenario():
            ann = await signed_in(server, "ann", subprotocols=V2)
            match = Match(ann)
            await match.kick_off()
            door = await Live.connect(server, subprotocols=V2)  # a phone on the Wi-Fi
            stop = asyncio.Event()
            followers = [TimedFollower([relays[index % 2].ws_url], keep_state=True) for index in range(4)]
            tasks = [asyncio.create_task(follower.run(stop, time.monotonic() + 120)) for follower in followers]
            await wait_for(lambda: all(f.version == ann.version for f in followers), 30,
                           "the followers to hold the kick-off", interval=0.2)
            await match.play(3, GOAL_EVERY)
            before = ann.version
            await wait_for(lambda: all(f.version == before for f in followers), 15, "the followers to hold it")

            leaf.stop(signal.SIGKILL)
            killed_at = time.monotonic()
            outage = await match.play(12, GOAL_EVERY)
            slowest = max(press.ack_seconds for press in outage)
            print(f"leaf down: {len(outage)} goals acked, slowest ack {slowest * 1000:.0f} ms")
            assert slowest < 1.0, f"an ack took {slowest:.3f} s with the leaf down"
            await door.wait_snapshot(ann.version)
            assert door.snapshot == ann.snapshot
            health = server.health()
            assert health["nats"] == "reconnecting", health
            assert health["publishedVersion"] < ann.version, health
            await wait_for(lambda: all(any(not live and at > killed_at for at, live in f.links) for f in followers),
                           10, "the followers to be told the link is lost")
            lost_after = max(min(at for at, live in f.links if not live and at > killed_at) for f in followers)
            print(f"leaf down: link-lost notice at every follower {lost_after - killed_at:.1f} s after the kill")
            for follower in followers:
                assert follower.version == before  # the last state before the leaf died, nothing invented
            for relay in relays:
                assert relay.health()["nats"] == "connected"  # the relay's own link (the hub) is fine

            leaf.start()  # same port, same store
            back_at = time.monotonic()
            await wait_for(lambda: server.health()["nats"] == "connected", 15, "the venue to reconnect to its leaf")
            await wait_for(lambda: all(f.version == ann.version for f in followers), 40,
                           "the followers to catch up after the leaf came back", interval=0.2)
            caught_up = time.monotonic() - back_at
            await match.play(3, GOAL_EVERY)
            await wait_for(lambda: all(f.version == ann.version for f in followers), 15, "the goals after it")
            await wait_for(lambda: all(f.links and f.links[-1][1] for f in followers), 15, "the link notice to clear")
            stop.set()
            await asyncio.gather(*tasks)

            print(f"leaf back: followers caught up {caught_up:.1f} s after its restart; "
                  + summary("press -> follower for the goals scored while it was down",
                            [lag for f in followers for lag in lags(outage, f)]))
            for follower in followers:
                assert never_went_back(follower) and not follower.gaps, (follower.held, follower.gaps)
                assert follower.state == ann.snapshot
            assert match.score == {"A": (len(match.presses) + 1) // 2, "B": len(match.presses) // 2}
            assert server.health()["publishedVersion"] == ann.version
            for client in (ann, door):
                await client.close()
        run(scenario())
    finally:
        take_down(*venue, hub, certs)
