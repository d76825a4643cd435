"""The same tournament day followed through a relay (PROTOCOL.md "Endpoints and pages": a page
that follows a tournament through a relay sees the same tables and bracket as one on the Wi-Fi):
a gather.v2 spectator on the venue and one on a relay hold the same `tournament` at every version
the organiser's changes make, from creation to champion."""
import asyncio

from gatherlib import Live, run, signed_in
from natslib import V2, relay_follower, venue_and_relay
from tournament_support import create_action, tournament

TEAMS = ["Reds", "Blues", "Greens", "Golds", "Whites", "Blacks", "Oranges", "Purples"]


async def same_everywhere(organiser, door, relay):
    """Both followers reach the organiser's version, and hold exactly its tournament there."""
    version = organiser.version
    await door.wait_snapshot(version, timeout=10)
    await relay.wait_snapshot(version, timeout=10)
    assert door.version == relay.version == version
    assert tournament(door) == tournament(relay) == tournament(organiser), version


async def step(organiser, door, relay, action):
    reply = await organiser.command(action)
    assert reply["type"] == "ack", (action, reply)
    await organiser.wait_snapshot(reply["version"])
    await same_everywhere(organiser, door, relay)


def test_a_relay_follower_sees_the_doors_tables_and_bracket_at_every_version():
    with venue_and_relay() as (_broker, server, relay_process):
        async def scenario():
            ann = await signed_in(server, "ann", subprotocols=V2)
            door = await Live.connect(server, subprotocols=V2)
            await door.until(lambda m: m["type"] == "snapshot")
            relay = await relay_follower(relay_process)
            await step(ann, door, relay, {"kind": "addPitch", "name": "Back pitch"})
            await step(ann, door, relay, create_action(TEAMS, groups=2, advance=2, thirdPlace=True, matchMinutes=1,
                                                       breakMinutes=0))
            while tournament(ann)["phase"] != "finished":
                ready = next(m for m in tournament(ann)["matches"] if m["status"] == "scheduled")
                await step(ann, door, relay, {"kind": "startMatch", "match": ready["id"]})
                pitch = ready["pitch"]
                home, away = ready["home"], ready["away"]
                for _ in range(abs(home - away) // 2):
                    await step(ann, door, relay, {"kind": "score", "team": "A", "delta": 1, "pitch": pitch})
                    # A goal changes the gather only: its patch leaves the tournament alone.
                    patch = next(m for m in reversed(door.messages) if m["type"] in ("patch", "snapshot"))
                    assert patch["type"] == "patch", patch["type"]
                    assert not [op for op in patch["ops"] if op["path"].startswith("/tournament")], patch["ops"]
                end = {"kind": "endGather", "pitch": pitch}
                if ready["stage"] != "group" and abs(home - away) // 2 == 0:
                    end["penalties"] = {"A": 4, "B": 3}
                await step(ann, door, relay, end)
            assert tournament(relay)["champion"] is not None
            assert [m["winner"] for m in tournament(relay)["matches"] if m["stage"] == "final"] \
                == [tournament(relay)["champion"]]
            for client in (ann, door, relay):
                await client.close()
        run(scenario())
