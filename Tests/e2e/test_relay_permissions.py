"""NATS permissions (issue 22; PROTOCOL.md "Beyond the Wi-Fi"): the venue's user publishes only
under gather.VENUE. and uses the JetStream API of its own stream; a relay's user reads and
reports watchers but cannot publish a state — NATS refuses it and nothing is stored.
Passwords travel in GATHER_NATS_PASSWORD, never on the command line."""
import json

import nats
import pytest

from gatherlib import Live, run, signed_in
from natslib import NatsServer, RelayProcess, read_subject, running, venue_server, wait_for

VENUE_PASSWORD = "venue-secret-4d1f"
RELAY_PASSWORD = "relay-secret-93ab"

# The users of deploy/nats/hub.conf's relay, and a venue user scoped to gather.riverside.
CONFIG = """
jetstream { store_dir: "STORE_DIR" }
authorization {
  users = [
    { user: admin, password: "admin-secret" }
    {
      user: venue, password: "%s"
      permissions: {
        publish: { allow: ["gather.riverside.>", "$JS.API.INFO", "$JS.API.STREAM.INFO.GATHER_riverside",
                           "$JS.API.STREAM.CREATE.GATHER_riverside", "$JS.API.STREAM.UPDATE.GATHER_riverside"] }
        subscribe: { allow: ["_INBOX.>", "gather.riverside.watchers"] }
      }
    }
    {
      user: relay, password: "%s"
      permissions: {
        publish: { allow: ["gather.*.watchers", "$JS.API.INFO", "$JS.API.STREAM.INFO.*", "$JS.API.STREAM.NAMES",
                           "$JS.API.DIRECT.GET.*", "$JS.API.DIRECT.GET.*.>", "$JS.API.CONSUMER.CREATE.*",
                           "$JS.API.CONSUMER.CREATE.*.>", "$JS.API.CONSUMER.DELETE.*.*", "$JS.API.CONSUMER.INFO.*.*",
                           "$JS.ACK.>", "$JS.FC.>"] }
        subscribe: { allow: ["gather.>", "_INBOX.>"] }
      }
    }
  ]
}
""" % (VENUE_PASSWORD, RELAY_PASSWORD)


def test_a_relay_follows_with_its_user_and_cannot_publish_a_state():
    with NatsServer(config=CONFIG) as broker:
        server = venue_server(broker.url, "--nats-user", "venue",
                              env={"GATHER_NATS_PASSWORD": VENUE_PASSWORD})
        relay = RelayProcess(broker.url, extra_args=("--nats-user", "relay"), env={"GATHER_NATS_PASSWORD": RELAY_PASSWORD})
        with running(server, relay):
            assert not any(VENUE_PASSWORD in arg for arg in server.arguments)
            assert not any(RELAY_PASSWORD in arg for arg in relay.args)

            async def scenario():
                follower = await Live.connect(None, subprotocols=("gather.v2",), url=relay.ws_url)
                ann = await signed_in(server, "ann", subprotocols=("gather.v2",))
                await ann.command({"kind": "addPlayer", "name": "Ann"})
                await follower.wait_snapshot(ann.version, timeout=10)
                assert follower.snapshot == ann.snapshot
                assert server.health()["nats"] == "connected"
                await wait_for(lambda: relay.health()["nats"] == "connected", 5, "the relay's connection")
                before = await read_subject(broker.url, "GATHER_riverside", "gather.riverside.state",
                                            user="admin", password="admin-secret")

                # With the relay's credentials, a forged state is refused by NATS.
                errors = []

                async def on_error(error):
                    errors.append(str(error))
                forger = await nats.connect(broker.url, user="relay", password=RELAY_PASSWORD, error_cb=on_error)
                forged = json.dumps({"type": "snapshot", "version": 999, "state": {"players": [], "pitches": [],
                                                                                   "history": []}}).encode()
                await forger.publish("gather.riverside.state", forged, headers={"Nats-Rollup": "sub"})
                await forger.flush()
                with pytest.raises(Exception):
                    await forger.jetstream().publish("gather.riverside.state", forged, timeout=2)
                await wait_for(lambda: any("permissions violation" in e.lower() for e in errors), 5, "NATS to refuse")
                await forger.close()

                # The venue's user cannot write another venue's subjects either.
                venue_user = await nats.connect(broker.url, user="venue", password=VENUE_PASSWORD, error_cb=on_error)
                errors.clear()
                await venue_user.publish("gather.elsewhere.state", b"{}")
                await venue_user.flush()
                await wait_for(lambda: any("permissions violation" in e.lower() for e in errors), 5, "NATS to refuse")
                await venue_user.close()

                after = await read_subject(broker.url, "GATHER_riverside", "gather.riverside.state",
                                           user="admin", password="admin-secret")
                assert [m.data for m in after] == [m.data for m in before], "nothing was stored"
                await ann.command({"kind": "addPlayer", "name": "Ben"})
                await follower.wait_snapshot(ann.version, timeout=10)
                assert follower.version == ann.version and follower.snapshot == ann.snapshot
                for client in (follower, ann):
                    await client.close()
            run(scenario())


def test_wrong_nats_credentials_never_stop_the_venue():
    with NatsServer(config=CONFIG) as broker:
        server = venue_server(broker.url, "--nats-user", "venue",
                              env={"GATHER_NATS_PASSWORD": "wrong"})
        with server:
            async def scenario():
                ann = await signed_in(server, "ann", subprotocols=("gather.v2",))
                assert (await ann.command({"kind": "addPlayer", "name": "Ann"}))["type"] == "ack"
                await ann.close()
            run(scenario())
            assert server.health()["nats"] != "connected"
