"""A forged snapshot never reaches a follower's page (real Chromium at phone size, through a real
`gather relay`): the forgery, far ahead of the venue's version and signed with the attacker's own
key, is dropped; the page keeps following the venue, and a reload (the page's stored copy)
shows nothing of it either."""
import json

from gatherlib import run, signed_in
from natslib import NatsServer, RelayProcess, running, venue_server, wait_for
from stream_trust import Forger
from test_relay_pages import RelaySite, reds_playing


def test_a_forged_snapshot_far_ahead_never_shows_on_a_relays_page_nor_in_its_stored_copy(browsers):
    with NatsServer() as broker:
        server = venue_server(broker.url)
        relay = RelayProcess(broker.url)
        with running(server, relay):
            state = reds_playing(server)

            phone = browsers(RelaySite(relay, server)).open("/")
            phone.wait(lambda: "Reds" in phone.text("main"), 15, "the match on the page")

            health = server.health()
            forged_state = json.loads(json.dumps(state).replace("Reds", "HACKED"))
            run(Forger(broker.url).publish_state({"type": "snapshot", "version": 1_000_000, "epoch": health["epoch"],
                                                  "epochStartedAt": health["epochStartedAt"], "state": forged_state},
                                                 health["epoch"]))
            run(wait_for(lambda: relay.health()["dropped"] >= 1, 5, "the relay to drop the forgery"))

            async def rename():
                again = await signed_in(server, "bob", subprotocols=("gather.v2",))
                assert (await again.command({"kind": "renameTeam", "team": "B", "name": "Blues"}))["type"] == "ack"
                await again.close()
            run(rename())
            phone.wait(lambda: "Blues" in phone.text("main"), 15, "the venue's next change on the page")
            assert "HACKED" not in phone.text("main") and "Reds" in phone.text("main")
            assert relay.health()["version"] == server.health()["version"]

            phone.driver.refresh()
            phone.wait(lambda: "Blues" in phone.text("main"), 15, "the page after a reload")
            stored = phone.driver.execute_script(
                "return Object.keys(localStorage).map((key) => localStorage.getItem(key)).join(' ')")
            assert "HACKED" not in stored and "HACKED" not in phone.text("main")
            assert phone.console_errors() == []
