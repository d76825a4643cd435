"""The club on the deployed hub (PROTOCOL.md "Sunday's list, settled" 1): deploy/nats/hub.conf's
club account lets `gather club serve` publish `club.NAME.>` into its stream CLUB_NAME and read the
venue's results from its account's mirror of GATHER_VENUE, and lets the venue's leaf (venue.conf)
mirror CLUB_NAME; nothing more.

Real processes throughout: nats-server with hub.conf and venue.conf filled in as a club fills them
in (test passwords, a test CA, loopback ports, and a second club's account), `gather serve` on the
leaf as the laptop's user, `gather nats mirror` as the operators, `gather club serve` on a private
PostgreSQL as the club's user; the refusals are seen by nats-py (not our code).

One-server.conf carries the same list and result with the club's account beside the venue's
(the last test, its own servers).

One hub, leaf, venue and club for the first three tests (a module fixture); they run in order."""
from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time

import nats
import pytest

from clublib import Club, new_id, request
from gatherlib import BINARY, PASSWORD, Live, run
from natslib import VENUE, NatsServer, provide_venue_key, take_down, venue_server, wait_for
from stream_accounts import VENUE_PASSWORD as ONE_SERVER_VENUE_PASSWORD
from stream_accounts import one_server_conf
from test_club_results import play_sundays_list
from test_relay_leaf import (ADMIN_PASSWORD, CLUB_ADMIN_PASSWORD, CLUB_PASSWORD, LEAF_PASSWORD, VENUE_ENV, VENUE_LOGIN,
                             Certificates, hub_config, venue_config)

# Mostly waiting on other processes (NATS, PostgreSQL, an SMTP server, restarts): make test runs it
# in the serial lane beside the parallel phase (conftest.py).
pytestmark = pytest.mark.mostly_waits

CLUB = "riverside-fc"
CLUB_STREAM = f"CLUB_{CLUB}"
VENUE_STREAM = f"GATHER_{VENUE}"
OTHER_CLUB = "harbour-fc"
OTHER_PASSWORD = "harbour-fc-secret-61ab"
# A second club's account, as a second club copies the block (its own stream, its own users).
OTHER_ACCOUNT = ('accounts {\n  HARBOUR_FC: { jetstream: { max_mem: 16MB, max_file: 64MB }, '
                 'users: [ { user: harbour-fc, password: "%s" } ] }' % OTHER_PASSWORD)


def club_hub(certs: Certificates) -> NatsServer:
    """deploy/nats/hub.conf as test_relay_leaf fills it in, plus a second club's account."""
    return NatsServer(config=hub_config(certs).replace("accounts {", OTHER_ACCOUNT, 1))


def operator_mirror(hub_url: str, user: str, password: str, *extra: str, timeout: float = 30):
    """`gather nats mirror` as an operator runs it, again while the stream it mirrors is not there yet."""
    deadline = time.monotonic() + timeout
    while True:
        made = subprocess.run([BINARY, "nats", "mirror", "--hub", hub_url, "--nats-user", user, "--venue", VENUE, *extra],
                              capture_output=True, text=True, timeout=30,
                              env={**os.environ, "GATHER_NATS_PASSWORD": password})
        if made.returncode == 0 or time.monotonic() > deadline:
            return made
        time.sleep(0.5)


def one_server() -> NatsServer:
    """deploy/nats/one-server.conf as stream_accounts fills it in, with the club's passwords."""
    config = one_server_conf()
    for old, new in (("CHANGE-ME-club-password", CLUB_PASSWORD), ("CHANGE-ME-club-admin-password", CLUB_ADMIN_PASSWORD)):
        assert old in config, old
        config = config.replace(old, new)
    return NatsServer(config=config)


class Deployed:
    """The hub, the laptop's leaf and `gather serve`, the club, and the operators' mirrors; or,
    `on_one_server`, one-server.conf's single nats-server for the venue and the club."""

    def __init__(self, cluster, on_one_server: bool = False):
        self.certs = Certificates()
        self.on_one_server = on_one_server
        self.hub = one_server() if on_one_server else club_hub(self.certs)
        self.cluster = cluster
        self.leaf = self.venue = self.club = None
        self.owner = ""
        self.members: dict[str, str] = {}
        self.date_id = ""

    def start(self):
        self.hub.start()
        if self.on_one_server:
            self.venue = venue_server(self.hub.url, "--nats-user", "gather",
                                      env={"GATHER_NATS_PASSWORD": ONE_SERVER_VENUE_PASSWORD})
        else:
            self.leaf = NatsServer(config=venue_config(self.hub.leaf_port, self.certs.ca_file)).start()
            self.venue = venue_server(self.leaf.url, *VENUE_LOGIN, env=VENUE_ENV)
        venue_key = provide_venue_key(self.venue.data_dir)
        # The club as its deployment runs it: the club's user, its password in the environment.
        saved = os.environ.get("GATHER_NATS_PASSWORD")
        os.environ["GATHER_NATS_PASSWORD"] = CLUB_PASSWORD
        try:
            self.club = Club(self.cluster, instances=1, extra_args=(
                "--nats", self.hub.url, "--nats-user", CLUB, "--club", CLUB, "--venue", VENUE,
                "--venue-key", venue_key)).start()
        finally:
            if saved is None:
                os.environ.pop("GATHER_NATS_PASSWORD", None)
            else:
                os.environ["GATHER_NATS_PASSWORD"] = saved
        self.owner = self.club.register_owner(username="captain", password=PASSWORD)
        self._week()
        club_key = self.organiser("GET", "/club/api/club")["clubKey"]
        self.venue.extra_args = (*self.venue.extra_args, "--club", CLUB, "--club-key", club_key,
                                 "--club-domain", "CLUB")
        self.venue.start()
        # The venue account's mirror of the laptop's stream (on the hub), then the club account's
        # mirror of the venue account's stream.
        mirrors = [("admin", ADMIN_PASSWORD, ())] if not self.on_one_server else []
        for user, password, extra in (*mirrors, (f"{CLUB}-admin", CLUB_ADMIN_PASSWORD, ("--for-relays",))):
            made = operator_mirror(self.hub.url, user, password, *extra)
            assert made.returncode == 0, (user, made.stderr)
        return self

    def _week(self):
        """Next Sunday's date: Ann, Bob and Cid in, Dee out."""
        fixture = self.organiser("POST", "/club/api/fixtures", {
            "title": "Sunday 7-a-side", "weekday": 7, "time": "10:00", "durationMinutes": 90, "place": "Riverside",
            "capacity": 14})["fixture"]
        for name in ("Ann", "Bob", "Cid", "Dee"):
            self.members[name] = str(self.organiser("POST", "/club/api/members", {"name": name})["member"]["id"])
        dates = [d for d in self.organiser("GET", "/club/api/club")["dates"] if str(d["fixtureId"]) == str(fixture["id"])]
        self.date_id = str(min(dates, key=lambda d: d["startsAt"])["id"])
        for name, answer in (("Ann", "in"), ("Bob", "in"), ("Cid", "in"), ("Dee", "out")):
            self.organiser("POST", f"/club/api/dates/{self.date_id}/answer",
                           {"memberId": self.members[name], "answer": answer})

    def organiser(self, method: str, path: str, body: dict | None = None):
        if body is not None:
            body = {"id": new_id(), **body}
        status, answer = self.club.api(method, path, body, token=self.owner)
        assert status == 200, (method, path, status, answer)
        return answer

    def club_health(self) -> dict:
        status, body = request(self.club.instances[0].base_url, "GET", "/healthz")
        assert status == 200, body
        return body

    def cleanup(self):
        take_down(self.club, self.venue, self.leaf, self.hub)
        self.certs.cleanup()


@pytest.fixture(scope="module")
def deployed_hub(club_postgres):
    rig = Deployed(club_postgres)
    try:
        yield rig.start()
    finally:
        rig.cleanup()


class Refusals:
    """A nats-py connection that records the server's permission errors."""

    def __init__(self):
        self.errors: list[str] = []
        self.connection = None

    async def connect(self, url: str, user: str, password: str) -> "Refusals":
        async def on_error(error):
            self.errors.append(str(error))
        self.connection = await nats.connect(url, user=user, password=password, connect_timeout=5,
                                             allow_reconnect=False, error_cb=on_error)
        return self

    async def refused(self, what: str, timeout: float = 5):
        await wait_for(lambda: any("permissions violation" in e.lower() and what.lower() in e.lower()
                                   for e in self.errors), timeout, f"NATS to refuse {what} (heard: {self.errors})")

    async def close(self):
        await self.connection.close()


async def club_stream_messages(hub_url: str) -> int:
    connection = await nats.connect(hub_url, user=f"{CLUB}-admin", password=CLUB_ADMIN_PASSWORD, connect_timeout=5,
                                    allow_reconnect=False)
    try:
        return (await connection.jetstream().stream_info(CLUB_STREAM)).state.messages
    finally:
        await connection.close()


async def club_dates_at_the_venue(rig: Deployed) -> list:
    """What an organiser signed in at the venue holds in its state's `clubDates` (waiting for a list)."""
    live = await Live.connect(rig.venue)
    try:
        await live.next()
        await live.register("bea")
        if not (live.snapshot or {}).get("clubDates"):  # the snapshot after signing in may hold it already
            await live.until(lambda m: m["type"] in ("snapshot", "patch") and (live.snapshot or {}).get("clubDates"), 20)
        return live.snapshot["clubDates"]
    finally:
        await live.close()


def test_the_list_reaches_the_venue_and_the_result_reaches_the_club_through_the_deployed_hub(deployed_hub):
    list_and_result(deployed_hub)


def list_and_result(rig: Deployed):
    """A date's list reaches the venue's organisers; the gather made from it, played and ended,
    reaches the club as the date played with who attended."""
    started = time.monotonic()
    dates = run(club_dates_at_the_venue(rig))
    print(f"the list at the venue after {time.monotonic() - started:.1f} s")
    [date] = [d for d in dates if str(d["date"]) == rig.date_id]
    assert [m["name"] for m in date["confirmed"]] == ["Ann", "Bob", "Cid"], date
    assert rig.venue.health()["clubDropped"] == 0

    entry_id = run(play_sundays_list(rig))
    played = run(wait_for(lambda: (lambda d: d if d["status"] == "played" else None)(
        rig.organiser("GET", f"/club/api/dates/{rig.date_id}")), 20, "the club to hear the result", interval=0.2))
    attended = {answer["name"]: answer.get("attended") for answer in played["answers"]}
    assert attended == {"Ann": True, "Bob": False, "Cid": True, "Dee": False}, attended
    health = rig.club_health()
    assert health["venueResultsApplied"] == 1 and health["venueDropped"] == 0, (health, entry_id)
    assert health["venueNats"] == "connected"
    # Neither the club nor the leaf was refused anything on the way (the permissions are enough).
    refused = [line for server in (rig.hub, rig.leaf) if server for line in server.log if "violation" in line.lower()]
    assert not refused, refused
    rig.club.assert_no_secret_printed()
    assert CLUB_PASSWORD not in rig.club.printed()


def test_the_clubs_user_cannot_write_the_venues_subjects_nor_read_another_clubs_stream(deployed_hub):
    rig = deployed_hub

    async def scenario():
        # Another club's stream, with a list in it, in its own account.
        other = await nats.connect(rig.hub.url, user=OTHER_CLUB, password=OTHER_PASSWORD, connect_timeout=5,
                                   allow_reconnect=False)
        other_js = other.jetstream()
        await other_js.add_stream(name=f"CLUB_{OTHER_CLUB}", subjects=[f"club.{OTHER_CLUB}.>"])
        await other_js.publish(f"club.{OTHER_CLUB}.dates.d1", b'{"type":"clubDate"}', timeout=5)

        club = await Refusals().connect(rig.hub.url, CLUB, CLUB_PASSWORD)
        # The club's own subjects pass (the control: the same connection is not refused everything).
        js = club.connection.jetstream()
        assert (await js.stream_info(CLUB_STREAM)).config.subjects == [f"club.{CLUB}.>"]
        # The venue's subjects: refused.
        for subject in (f"gather.{VENUE}.results", f"gather.{VENUE}.state"):
            await club.connection.publish(subject, b"{}")
            await club.connection.flush()
            await club.refused(f'Publish to "{subject}"')
        # The venue's stream's API, and a delete of its own account's mirror of it: refused.
        for api in (f"$JS.{VENUE}.API.CONSUMER.CREATE.{VENUE_STREAM}", f"$JS.API.STREAM.DELETE.{VENUE_STREAM}",
                    f"$JS.API.STREAM.PURGE.{VENUE_STREAM}"):
            await club.connection.publish(api, b"{}")
            await club.connection.flush()
            await club.refused(f'Publish to "{api}"')
        # Another club's stream: neither its API nor its subjects.
        for api in (f"$JS.API.CONSUMER.CREATE.CLUB_{OTHER_CLUB}", f"$JS.API.STREAM.INFO.CLUB_{OTHER_CLUB}",
                    f"$JS.API.DIRECT.GET.CLUB_{OTHER_CLUB}.club.{OTHER_CLUB}.dates.d1"):
            await club.connection.publish(api, b"{}")
            await club.connection.flush()
            await club.refused(f'Publish to "{api}"')
        await club.connection.subscribe(f"club.{OTHER_CLUB}.>")
        await club.connection.flush()
        await club.refused(f'Subscription to "club.{OTHER_CLUB}.>"')
        await club.close()
        assert (await other_js.stream_info(f"CLUB_{OTHER_CLUB}")).state.messages == 1
        # The hub says so in its log too (what the first test finds none of).
        assert [line for line in rig.hub.log if "violation" in line.lower() and f'"{CLUB}"' in line]
        await other.close()

    run(scenario())


def test_the_venues_users_cannot_publish_the_clubs_lists(deployed_hub):
    rig = deployed_hub

    async def scenario():
        before = await club_stream_messages(rig.hub.url)
        assert before >= 1
        forged = json.dumps({"type": "clubDate", "club": CLUB, "date": rig.date_id}).encode()
        subject = f"club.{CLUB}.dates.{rig.date_id}"
        # The venue's leaf user, logged in to the hub as a client: refused.
        venue = await Refusals().connect(rig.hub.url, VENUE, LEAF_PASSWORD)
        await venue.connection.publish(subject, forged, headers={"Nats-Rollup": "sub"})
        await venue.connection.flush()
        await venue.refused(f'Publish to "{subject}"')
        await venue.close()
        # The laptop's own user on the leaf: the leaf link does not carry it to the hub.
        laptop = await nats.connect(rig.leaf.url, user="gather", password=VENUE_ENV["GATHER_NATS_PASSWORD"],
                                    connect_timeout=5, allow_reconnect=False)
        await laptop.publish(subject, forged, headers={"Nats-Rollup": "sub"})
        await laptop.flush()
        await laptop.close()
        await asyncio.sleep(1)
        assert await club_stream_messages(rig.hub.url) == before
        # The venue still holds the club's own list, nothing dropped.
        assert rig.venue.health()["clubDropped"] == 0

    run(scenario())


def test_one_server_carries_the_list_and_the_result_too(club_postgres):
    rig = Deployed(club_postgres, on_one_server=True)
    try:
        list_and_result(rig.start())
    finally:
        rig.cleanup()
