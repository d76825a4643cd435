"""Nothing forged reaches a follower (PROTOCOL.md "The stream, trusted and resumable"): whoever may
publish on the venue's subjects, without the venue's key, changes nothing a relay's followers
see. Real `gather serve`, real `nats-server`, real `gather relay`, followers over real WebSockets;
the forgeries are published with nats-py and signed with a key of the attacker's own."""
import json

from gatherlib import Live, run, signed_in
from natslib import V2, relay_follower, venue_and_relay, wait_for
from stream_trust import Forger


async def watched(server, relay):
    """An organiser at the venue with two players added, a door spectator and a relay follower,
    both at the organiser's version."""
    ann = await signed_in(server, "ann", subprotocols=V2)
    for name in ("Ann", "Ben"):
        assert (await ann.command({"kind": "addPlayer", "name": name}))["type"] == "ack"
    follower = await relay_follower(relay)
    await follower.wait_snapshot(ann.version, timeout=10)
    return ann, follower


async def still_follows(ann, follower, relay, name: str):
    """A genuine change after the forgery reaches the follower as the venue's own state."""
    assert (await ann.command({"kind": "addPlayer", "name": name}))["type"] == "ack"
    await follower.wait_snapshot(ann.version, timeout=20)
    assert follower.version == ann.version and follower.snapshot == ann.snapshot
    assert relay.health()["version"] == ann.version


def states_seen(follower) -> list[int]:
    return [m["version"] for m in follower.messages if m["type"] in ("snapshot", "patch")]


def test_a_forged_snapshot_far_ahead_is_dropped_and_followers_keep_the_venues_versions():
    with venue_and_relay() as (broker, server, relay):
        async def scenario():
            ann, follower = await watched(server, relay)
            epoch = server.health()["epoch"]
            forger = Forger(broker.url)
            await forger.publish_state({"type": "snapshot", "version": 1_000_000, "epoch": epoch,
                                        "epochStartedAt": server.health()["epochStartedAt"],
                                        "state": {"players": [], "pitches": [], "forged": True}}, epoch)
            await wait_for(lambda: relay.health()["dropped"] >= 1, 5, "the relay to drop the forgery")
            await still_follows(ann, follower, relay, "Cat")
            await still_follows(ann, follower, relay, "Dan")
            assert max(states_seen(follower)) == ann.version
            # A new follower starts from the venue's state too.
            late = await relay_follower(relay)
            assert late.version == ann.version and late.snapshot == ann.snapshot
            assert any("dropped a message" in line for line in relay.errors)
            for client in (ann, follower, late):
                await client.close()
        run(scenario())


def test_a_forged_snapshot_behind_sends_no_relay_into_a_replay_loop():
    with venue_and_relay() as (broker, server, relay):
        async def scenario():
            ann, follower = await watched(server, relay)
            health = server.health()
            forger = Forger(broker.url)
            await forger.publish_state({"type": "snapshot", "version": 1, "epoch": health["epoch"],
                                        "epochStartedAt": health["epochStartedAt"],
                                        "state": {"players": [], "pitches": []}}, health["epoch"])
            await wait_for(lambda: relay.health()["dropped"] >= 1, 5, "the relay to drop the forgery")
            def gap_replays():
                return sum("replaying the venue's stream" in line and "a gap" in line for line in relay.errors)
            replays_before = gap_replays()
            for name in ("Cat", "Dan", "Eve"):
                await still_follows(ann, follower, relay, name)
            # Each version came as the venue's patch: no replay, no second snapshot.
            kinds = [m["type"] for m in follower.messages if m["type"] in ("snapshot", "patch")]
            assert kinds.count("snapshot") == 1, kinds
            assert gap_replays() == replays_before
            versions = states_seen(follower)
            # Every version once, in order: the forged version 1 was never shown again (a follower
            # that joined before the relay held Ann and Ben saw the venue's own 1 and 2 as patches).
            assert all(earlier < later for earlier, later in zip(versions, versions[1:])), versions
            for client in (ann, follower):
                await client.close()
        run(scenario())


def test_a_forged_patch_published_before_the_real_one_changes_nothing():
    with venue_and_relay() as (broker, server, relay):
        async def scenario():
            ann, follower = await watched(server, relay)
            epoch = server.health()["epoch"]
            forger = Forger(broker.url)
            # The next version, first: what the venue publishes next has the same `from`.
            await forger.publish_state({"type": "patch", "from": ann.version, "version": ann.version + 1,
                                        "ops": [{"op": "add", "path": "/forged", "value": True}]}, epoch)
            await wait_for(lambda: relay.health()["dropped"] >= 1, 5, "the relay to drop the forgery")
            await still_follows(ann, follower, relay, "Cat")
            assert "forged" not in follower.snapshot
            assert not any("forged" in json.dumps(m) for m in follower.messages)
            late = await relay_follower(relay)
            assert late.snapshot == ann.snapshot
            for client in (ann, follower, late):
                await client.close()
        run(scenario())


def test_a_one_mebibyte_fake_presence_is_not_forwarded_and_presence_carries_counts_not_names():
    with venue_and_relay() as (broker, server, relay):
        async def scenario():
            ann, follower = await watched(server, relay)
            epoch = server.health()["epoch"]
            # The venue's own presence arrives rebuilt: counts only, no organiser's name.
            presence = await follower.until(lambda m: m["type"] == "presence" and m.get("organisersOnline") == 1, 10)
            assert set(presence) == {"type", "spectators", "remote", "organisersOnline"}, presence
            assert "ann" not in json.dumps(presence)

            forger = Forger(broker.url)
            huge = b'{"type":"presence","spectators":7,"remote":0,"organisers":["' + b"a" * 1_040_000 + b'"]}'
            await forger.publish_ticks(huge, epoch)
            small = json.dumps({"type": "presence", "spectators": 999_999, "remote": 0, "organisers": []}).encode()
            await forger.publish_ticks(small, epoch)
            await forger.publish_ticks(b'{"type":"chat","text":"buy now"}', epoch)
            await wait_for(lambda: relay.health()["dropped"] >= 3, 5, "the relay to drop the three")
            await still_follows(ann, follower, relay, "Cat")
            # One more spectator at the venue: its next presence comes through after the forgeries.
            door = await Live.connect(server, subprotocols=V2)
            await follower.until(lambda m: m["type"] == "presence" and m["spectators"] == presence["spectators"] + 1, 10)
            sizes = [len(json.dumps(m)) for m in follower.messages if m["type"] in ("presence", "tick", "link")]
            assert max(sizes) <= 4096, max(sizes)
            assert not any(m.get("spectators") in (7, 999_999) for m in follower.messages if m["type"] == "presence")
            assert not any(m["type"] == "chat" for m in follower.messages)
            for client in (ann, follower, door):
                await client.close()
        run(scenario())
