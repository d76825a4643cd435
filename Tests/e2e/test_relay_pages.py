"""The pages through a relay (real Chromium, phone size): the spectator page and the scoreboard
follow the venue through `gather relay`, say "Connection to the pitch lost at HH:MM" while the
venue is silent, and every page says how many follow from away ("3 watching (2 remotely)")."""
import re
import signal

from gatherlib import GatherServer, run, signed_in
from natslib import NatsServer, RelayProcess, running, venue_server

LOST = re.compile(r"^Connection to the pitch lost at \d\d:\d\d$")


class RelaySite:
    """What `Browser` needs of a server, for a relay's plain-HTTP address."""

    def __init__(self, relay: RelayProcess, venue: GatherServer):
        self.cert_dir = venue.cert_dir  # only for Chromium's pin flag; the relay is plain HTTP
        self.base_url = f"http://127.0.0.1:{relay.port}"



def reds_playing(server, *then: dict) -> dict:
    """Over the wire, as organiser ann: Ann and Ben added, balanced into Reds (A) and Team B, the
    match started, then each action of `then`; every one acked. Returns the state ann last held."""
    async def go():
        ann = await signed_in(server, "ann", subprotocols=("gather.v2",))
        for name in ("Ann", "Ben"):
            await ann.command({"kind": "addPlayer", "name": name})
        await ann.command({"kind": "createGather", "playerIds": [p["id"] for p in ann.snapshot["players"]]})
        for action in ({"kind": "balanceTeams"}, {"kind": "renameTeam", "team": "A", "name": "Reds"},
                       {"kind": "startGather"}, *then):
            assert (await ann.command(action))["type"] == "ack", action
        await ann.close()
        return ann.snapshot
    return run(go())


def test_pages_follow_through_a_relay_show_the_lost_link_and_count_followers_away(browsers):
    with NatsServer() as broker:
        server = venue_server(broker.url)
        relay = RelayProcess(broker.url)
        with running(server, relay, relay_signal=signal.SIGKILL):
            reds_playing(server, {"kind": "score", "team": "A", "delta": 1})

            site = RelaySite(relay, server)
            phone = browsers(site).open("/")
            board = browsers(site, 1280, 720).open("/scoreboard.html?pitch=1")
            home = browsers(server).open("/")
            for page in (phone, home):
                page.wait(lambda p=page: "Reds" in p.text("main"), 15, "the match on the page")
            board.wait(lambda: "Reds" in board.text("body"), 15, "the match on the scoreboard")
            for page in (phone, home):
                page.wait_text("#watching", "3 watching (2 remotely)", timeout=20)
            assert phone.find("#link-lost").is_displayed() is False
            assert phone.axe() == []

            server.stop(signal.SIGKILL)
            phone.wait(lambda: LOST.match(phone.text("#link-lost")), 20, "the lost link on the phone")
            board.wait_text("#connection", "Delayed", timeout=5)  # and its status line says "Score as of …"
            assert "Reds" in phone.text("main")  # the last state stays
            assert phone.axe() == []
            assert phone.console_errors() == []

            server.start()
            phone.wait(lambda: not phone.find("#link-lost").is_displayed(), 15, "the notice to go")
            board.wait_text("#connection", "Live", timeout=15)
