"""Back from the pitch (PROTOCOL.md "Sunday's list on the laptop, and back", issue 44): a real
nats-server hub and the venue's leaf (its uplink through uplink_proxy.py), the venue's `gather
serve` on the leaf, the hub's mirror of its stream, and `gather club serve` on a private
PostgreSQL following that mirror with the venue's key (`--venue`, `--venue-key`).

- A result that the venue did not sign, planted on the venue's results subject, changes nothing
  at the club and is counted (`/healthz` `venueDropped`).
- Sunday: the gather made from the club's list is played and ended while the uplink is cut; within
  10 s of the uplink being back the club shows the date played, who attended, and one no-show
  (a confirmed member left on the bench) beside the name on the organisers' page at 360 px, in
  all six languages (screenshot club-no-show-mark-360.png); the played date itself says "played"
  or "no-show" beside each confirmed name (club-attendance-360.png).
- The same result replayed (its exact bytes and signature published again) is applied once, and
  again once after the club is killed and started (it reads every result from the start).

One hub, leaf, venue and club for the whole file (a module fixture); the tests run in order and
build on each other, so the whole file carries one phase's marks: `timing` (the 10-s bound) and
`mostly_waits` (an uplink cut and back, a hub's mirror catching up)."""
from __future__ import annotations

import asyncio
import base64
import json
import subprocess
import time
from urllib.parse import urlsplit

import nats
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from clublib import Club, new_id, request
from gatherlib import BINARY, PASSWORD, pitch_gather, run, signed_in
from hub_support import free_port
from natslib import V2, VENUE, NatsServer, provide_venue_key, read_subject, take_down, venue_server, wait_for
from pages_support import Browser
from test_club_pages import thumbs_and_axe, words
from uplink_proxy import Faults, UplinkProxyThread

pytestmark = [pytest.mark.timing, pytest.mark.mostly_waits]

RESULTS = f"gather.{VENUE}.results"
STREAM = f"GATHER_{VENUE}"
CLUB = "riverside-fc"
OWNER = "captain"
LANGUAGES = ("en", "es", "fr", "de", "it", "pt")
# The proxy passes everything untouched until the test cuts it.
CLEAN = Faults(delay=0.0, jitter=0.0, stall_chance=0.0, rate_bits=1_000_000_000, cut_every=0.0, cut_for=0.0)


def hub_conf(uplink_port: int) -> str:
    """The hub (domain `hub`); it tells the leaf the proxy's address as its own (`advertise`), so
    the leaf comes back through the proxy, as a real hub advertises its public address."""
    return f"""
server_name: hub
jetstream {{ domain: hub, store_dir: "STORE_DIR" }}
leafnodes {{ listen: "127.0.0.1:LEAF_PORT", advertise: "127.0.0.1:{uplink_port}" }}
"""


def leaf_conf(uplink_port: int) -> str:
    """The venue laptop's nats-server: JetStream in the domain `riverside`, a leaf of the hub
    through the proxy, retrying every second."""
    return f"""
server_name: venue-{VENUE}
jetstream {{ domain: {VENUE}, store_dir: "STORE_DIR" }}
leafnodes {{
  remotes = [ {{ url: "nats-leaf://127.0.0.1:{uplink_port}" }} ]
  reconnect: 1
}}
"""


class Pitch:
    """Everything the file's tests share, started once."""

    def __init__(self, cluster):
        self.proxy_port = free_port()
        self.hub = NatsServer(config=hub_conf(self.proxy_port))
        self.proxy: UplinkProxyThread | None = None
        self.leaf = None
        self.venue = None
        self.club: Club | None = None
        self.cluster = cluster
        self.owner = ""
        self.members: dict[str, str] = {}
        self.date_id = ""

    def start(self):
        self.hub.start()
        self.proxy = UplinkProxyThread(self.hub.leaf_port, CLEAN, seed=44).start(self.proxy_port)
        self.leaf = NatsServer(config=leaf_conf(self.proxy.port)).start()
        # The venue's key made before its first start (as a restored backup holds it): the club is
        # told it at its start, and the venue the club's.
        self.venue = venue_server(self.leaf.url)
        venue_key = provide_venue_key(self.venue.data_dir)
        # The club on the hub: it publishes its lists and follows the hub's mirror of the venue's stream.
        self.club = Club(self.cluster, instances=1, extra_args=(
            "--nats", self.hub.url, "--club", CLUB, "--venue", VENUE, "--venue-key", venue_key)).start()
        self.owner = self.club.register_owner(username=OWNER, password=PASSWORD)
        self._week()
        club_key = self.organiser("GET", "/club/api/club")["clubKey"]
        self.venue.extra_args = (*self.venue.extra_args, "--club", CLUB, "--club-key", club_key)
        self.venue.start()
        assert self.venue.health()["venueKey"] == venue_key
        # The hub's mirror of the venue's stream, as the operator makes it.
        deadline = time.monotonic() + 30
        while True:
            made = subprocess.run([BINARY, "nats", "mirror", "--hub", self.hub.url, "--venue", VENUE],
                                  capture_output=True, text=True, timeout=30)
            if made.returncode == 0 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert made.returncode == 0, made.stderr
        return self

    def _week(self):
        """Next Sunday's date (within the week the club publishes): Ann, Bob and Cid confirmed, Dee out."""
        fixture = self.organiser("POST", "/club/api/fixtures", {
            "title": "Sunday 7-a-side", "weekday": 7, "time": "10:00", "durationMinutes": 90, "place": "Riverside",
            "capacity": 14})["fixture"]
        for name in ("Ann", "Bob", "Cid", "Dee"):
            added = self.organiser("POST", "/club/api/members", {"name": name})
            self.members[name] = str(added["member"]["id"])
        dates = [d for d in self.organiser("GET", "/club/api/club")["dates"] if str(d["fixtureId"]) == str(fixture["id"])]
        date = min(dates, key=lambda d: d["startsAt"])
        self.date_id = str(date["id"])
        for name, answer in (("Ann", "in"), ("Bob", "in"), ("Cid", "in"), ("Dee", "out")):
            self.organiser("POST", f"/club/api/dates/{self.date_id}/answer", {"memberId": self.members[name], "answer": answer})

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
        take_down(self.club, self.venue, self.leaf, self.proxy, self.hub)


@pytest.fixture(scope="module")
def pitch(club_postgres):
    rig = Pitch(club_postgres)
    try:
        yield rig.start()
    finally:
        rig.cleanup()


async def publish_at_leaf(leaf_url: str, body: bytes, signature: str | None):
    """Stores a message on the venue's results subject as anyone on the laptop's leaf could."""
    connection = await nats.connect(leaf_url, connect_timeout=5, allow_reconnect=False)
    try:
        headers = {"Gather-Signature": signature} if signature else None
        await connection.jetstream().publish(RESULTS, body, headers=headers, timeout=5)
    finally:
        await connection.close()


async def hub_last_result(hub_url: str) -> bytes:
    """The last result the hub's mirror of the venue's stream holds."""
    connection = await nats.connect(hub_url, connect_timeout=5, allow_reconnect=False)
    try:
        return (await connection.jetstream().get_last_msg(STREAM, RESULTS)).data
    finally:
        await connection.close()


async def leaf_results(leaf_url: str, count: int) -> list:
    return await read_subject(leaf_url, STREAM, RESULTS, count=count, timeout=5)


def forged_result(pitch: Pitch, played: list[str]) -> tuple[bytes, str]:
    """A result in the venue's shape for the club's date, signed by a key that is not the venue's."""
    epoch = "forged-epoch-0123456789"
    body = json.dumps({"type": "result", "venue": VENUE, "epoch": epoch, "epochStartedAt": int(time.time() * 1000),
                       "entry": {"id": "forged-" + new_id(), "endedAt": int(time.time() * 1000), "clubDate": pitch.date_id,
                                 "teams": {"A": {"name": "A", "players": [{"id": 1, "name": "x", "memberId": m}
                                                                          for m in played]},
                                           "B": {"name": "B", "players": []}}}}).encode()
    signature = Ed25519PrivateKey.generate().sign(epoch.encode() + b"\n" + body)
    return body, base64.b64encode(signature).decode()


async def play_a_friendly(pitch: Pitch) -> str:
    """A gather not made from the club's list: two players, kicked off and ended. Its entry id."""
    ann = await signed_in(pitch.venue, "bea", subprotocols=V2)
    try:
        for action in ({"kind": "addPlayer", "name": "Ann"}, {"kind": "addPlayer", "name": "Ben"}):
            reply = await ann.command(action)
            assert reply["type"] == "ack", reply
            await ann.wait_snapshot(reply["version"])
        ids = [player["id"] for player in ann.snapshot["players"]][-2:]
        for action in ({"kind": "createGather", "playerIds": ids}, {"kind": "assign", "playerId": ids[0], "to": "A"},
                       {"kind": "assign", "playerId": ids[1], "to": "B"}, {"kind": "startGather"}, {"kind": "endGather"}):
            reply = await ann.command(action)
            assert reply["type"] == "ack", (action, reply)
            await ann.wait_snapshot(reply["version"])
        return ann.snapshot["history"][0]["id"]
    finally:
        await ann.close()


def verifies(message, venue_key: str) -> bool:
    """The venue's signature over the epoch the body names, a newline, the body (nats-py and
    cryptography: not our code)."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    epoch = json.loads(message.data)["epoch"]
    key = Ed25519PublicKey.from_public_bytes(base64.b64decode(venue_key))
    try:
        key.verify(base64.b64decode(message.headers["Gather-Signature"]), epoch.encode() + b"\n" + message.data)
        return True
    except InvalidSignature:
        return False


def test_a_result_the_venue_did_not_sign_changes_nothing_and_is_counted(pitch):
    before = pitch.organiser("GET", f"/club/api/dates/{pitch.date_id}")
    assert pitch.club_health()["venueDropped"] == 0
    # The venue publishes every finished gather, signed, on its results subject (not rolled up);
    # one not made from the club's list is read by the club and changes nothing.
    friendly = run(play_a_friendly(pitch))
    [published] = run(leaf_results(pitch.leaf.url, 1))
    body = json.loads(published.data)
    assert body["type"] == "result" and body["venue"] == VENUE and body["entry"]["id"] == friendly, body
    assert "Nats-Rollup" not in (published.headers or {})
    assert verifies(published, pitch.venue.health()["venueKey"])
    # Then a result the venue did not sign, and one not signed at all, for the club's date.
    body, signature = forged_result(pitch, [pitch.members["Bob"]])
    run(publish_at_leaf(pitch.leaf.url, body, signature))
    run(publish_at_leaf(pitch.leaf.url, body, None))  # and one without any signature
    run(wait_for(lambda: pitch.club_health()["venueDropped"] == 2, 15, "the club to drop both forged results"))
    after = pitch.organiser("GET", f"/club/api/dates/{pitch.date_id}")
    assert after == before, "a forged result changed the date"
    assert all("attended" not in answer for answer in after["answers"])
    assert pitch.club_health()["venueResultsApplied"] == 0


async def play_sundays_list(pitch: Pitch) -> str:
    """Select players from Sunday's list, Ann on Team A, Cid on Team B, Bob left on the bench;
    kick off and end. Returns the history entry's id."""
    ann = await signed_in(pitch.venue, "ann", subprotocols=V2)
    try:

        async def acked(action: dict):
            await ann.wait_snapshot(ann.version)
            reply = await ann.command(action)
            assert reply["type"] == "ack", (action, reply)
            await ann.wait_snapshot(reply["version"])

        # "From Sunday's list" as soon as the laptop holds it (`not_found` until then).
        deadline = time.monotonic() + 20
        while True:
            reply = await ann.command({"kind": "selectFromClubDate", "date": pitch.date_id, "pitch": 1})
            if reply["type"] == "ack" or time.monotonic() > deadline:
                break
            assert reply.get("code") == "not_found", reply
            await asyncio.sleep(0.2)
        assert reply["type"] == "ack", reply
        await ann.wait_snapshot(reply["version"])
        by_member = {str(p.get("memberId")): p["id"] for p in ann.snapshot["players"] if p.get("memberId")}
        await acked({"kind": "assign", "playerId": by_member[pitch.members["Ann"]], "to": "A", "pitch": 1})
        await acked({"kind": "assign", "playerId": by_member[pitch.members["Cid"]], "to": "B", "pitch": 1})
        for action in ({"kind": "startGather", "pitch": 1}, {"kind": "score", "team": "A", "delta": 1, "pitch": 1},
                       {"kind": "endGather", "pitch": 1}):
            await acked(action)
        assert pitch_gather(ann.snapshot, 1) is None
        entry = ann.snapshot["history"][0]
        assert str(entry.get("clubDate")) == pitch.date_id, entry
        return entry["id"]
    finally:
        await ann.close()


def test_sundays_gather_played_and_ended_shows_attendance_and_one_no_show_within_10_s_of_the_uplink(pitch):
    # The list reaches the laptop, then the uplink goes: the match is played and ended offline.
    pitch.proxy._loop.call_soon_threadsafe(pitch.proxy.proxy.cut_now, 3600.0)
    entry_id = run(play_sundays_list(pitch))
    stored = run(leaf_results(pitch.leaf.url, 4))  # the friendly, the two forged ones, then Sunday's
    assert json.loads(stored[-1].data)["entry"]["id"] == entry_id
    time.sleep(0.5)  # what a live uplink would have carried by now
    assert json.loads(run(hub_last_result(pitch.hub.url)))["entry"]["id"] != entry_id, "through a cut uplink?"
    assert pitch.organiser("GET", f"/club/api/dates/{pitch.date_id}")["status"] == "scheduled", "through a cut uplink?"
    assert pitch.proxy.record.refused > 0, "the leaf did not try the uplink while it was cut"

    back = time.monotonic()
    pitch.proxy.heal()
    date = run(wait_for(lambda: (lambda d: d if d["status"] == "played" else None)(
        pitch.organiser("GET", f"/club/api/dates/{pitch.date_id}")), 20, "the club to hear the result", interval=0.1))
    took = time.monotonic() - back
    print(f"uplink back -> the club shows the date played: {took:.1f} s")
    assert took <= 10.0, f"the result reached the club {took:.1f} s after the uplink was back"
    attended = {answer["name"]: answer.get("attended") for answer in date["answers"]}
    assert attended == {"Ann": True, "Bob": False, "Cid": True, "Dee": False}, attended
    members = {m["name"]: m["noShows"] for m in pitch.organiser("GET", "/club/api/club")["members"]}
    assert members == {"Ann": 0, "Bob": 1, "Cid": 0, "Dee": 0}, members
    health = pitch.club_health()
    assert health["venueResultsApplied"] == 1 and health["venueDropped"] == 2, health

    # A member can no longer answer the played date.
    token = urlsplit(pitch.organiser("GET", "/club/api/club")["members"][0]["link"]).path.rsplit("/", 1)[1]
    status, refused = pitch.club.api("POST", f"/club/api/m/{token}/answer",
                                     {"id": new_id(), "date": pitch.date_id, "answer": "out"})
    assert status != 200 and refused["error"]["code"] == "closed", (status, refused)


def test_the_no_show_mark_beside_the_name_in_six_languages_at_360(pitch):
    browser = Browser(pitch.club, 360, 640, language="en")
    try:
        for language in LANGUAGES:
            browser.open(f"/club/?lang={language}")
            if language == "en":
                browser.wait(lambda: browser.find("#login-form").is_displayed(), what="the sign-in form")
                browser.fill("#login-form [name=username]", OWNER)
                browser.fill("#login-form [name=password]", PASSWORD)
                browser.click("#login-form button[type=submit]")
            browser.wait(lambda: browser.find("#signed-in").is_displayed(), what="the club page")
            browser.click("#show-members")
            row = f'.member-row[data-member="{pitch.members["Bob"]}"]'
            browser.wait(lambda: browser.find(row) and browser.find(row + " .badge.warn"), what="Bob's no-show mark")
            said = words(language)["org.no_shows"]
            expected = (said.get("one") or said["other"]).replace("{count}", "1")
            assert browser.find(row + " .badge.warn").text == expected, (language, browser.find(row).text)
            others = browser.driver.execute_script(
                "return [...document.querySelectorAll('.member-row .badge.warn')].length")
            assert others == 1, f"{language}: only Bob has a no-show"
            assert browser.scroll_width() <= 360, f"{language}: the members list scrolls sideways"
            if language == "en":
                browser.driver.execute_script("document.querySelector(arguments[0]).scrollIntoView({block: 'center'})", row)
                browser.screenshot("club-no-show-mark-360.png")
                thumbs_and_axe(browser, 360, "the members with a no-show")
            # The played date: "played" or "no-show" beside each confirmed name.
            browser.driver.execute_script("window.scrollTo(0, 0)")
            browser.click("#show-dates")
            date_row = f'.date-row[data-date="{pitch.date_id}"]'
            browser.driver.execute_script("document.querySelector(arguments[0]).scrollIntoView({block: 'center'})", date_row)
            browser.click(date_row)
            browser.wait(lambda: browser.find("#date-view").is_displayed()
                         and browser.find("#date-view .answer-list .attended"), what="the played date's attendance")
            marks = browser.driver.execute_script("""return Object.fromEntries([...document.querySelectorAll(
                '#date-view .answer-list li')].filter((li) => li.querySelector('.attended'))
                .map((li) => [li.firstChild.textContent, li.querySelector('.attended').textContent]));""")
            played, no_show = words(language)["list.attended"], words(language)["list.no_show"]
            assert marks == {"Ann": played, "Bob": no_show, "Cid": played}, (language, marks)
            assert browser.scroll_width() <= 360, f"{language}: the played date scrolls sideways"
            if language == "en":
                browser.driver.execute_script("document.querySelector('#date-view .no-show').scrollIntoView({block: 'center'})")
                browser.screenshot("club-attendance-360.png")
                thumbs_and_axe(browser, 360, "the played date's attendance")
    finally:
        browser.close()


def test_the_same_result_replayed_is_applied_once(pitch):
    stored = run(leaf_results(pitch.leaf.url, 4))
    genuine = stored[-1]
    assert json.loads(genuine.data)["entry"].get("clubDate") == pitch.date_id
    before = pitch.organiser("GET", f"/club/api/dates/{pitch.date_id}")
    # Its exact bytes and signature again (no message id, so the stream keeps a second copy), then
    # a forged one behind it: once that is counted, the club has read the replay before it.
    run(publish_at_leaf(pitch.leaf.url, genuine.data, genuine.headers["Gather-Signature"]))
    body, signature = forged_result(pitch, [])
    run(publish_at_leaf(pitch.leaf.url, body, signature))
    run(wait_for(lambda: pitch.club_health()["venueDropped"] == 3, 15, "the club to read past the replay"))
    assert pitch.club_health()["venueResultsApplied"] == 1
    assert pitch.organiser("GET", f"/club/api/dates/{pitch.date_id}") == before

    # The club killed and started again reads every result from the start: none applied twice.
    pitch.club.restart_instance(0)
    run(wait_for(lambda: pitch.club_health()["venueDropped"] == 3, 20, "the restarted club to read every result again"))
    assert pitch.club_health()["venueResultsApplied"] == 0, "a result applied again after a restart"
    assert pitch.organiser("GET", f"/club/api/dates/{pitch.date_id}") == before
    members = {m["name"]: m["noShows"] for m in pitch.organiser("GET", "/club/api/club")["members"]}
    assert members["Bob"] == 1, members
