"""Sunday's list on the laptop (issue 44; docs/PROTOCOL.md §21), against real processes: two
`gather club serve` instances on a private PostgreSQL with `--nats URL --club NAME`, and a real
`nats-server` with JetStream; the stream is read with nats-py and the signature checked with
`cryptography` (neither is our code).

- A date's list is on the club's stream within 10 s of an answer: subject
  `club.NAME.dates.DID`, one message per subject (rollup), signed over NAME + "\\n" + body with
  the key `GET /club/api/club` shows as `clubKey`; its `seq` rises with each change, whichever
  instance published it.
- A forged rollup on the subject (a list signed with another key) is replaced by the club's
  own list, with a higher `seq`, when an instance checks at its (re)connection.
- The venue (`gather serve --nats LEAF --club NAME --club-key KEY`) on a real leaf node of a real
  hub (JetStream domains `hub` and `riverside`), its uplink through a TCP proxy: the list is in
  the venue's SQLite within 10 s; a forged list changes nothing and is counted in `/healthz`
  `clubDropped`; with the uplink cut, a change at the club does not arrive, and after a venue
  restart the list is still there; `selectFromClubDate` then makes pitch 1's gather of the 12
  confirmed members and their 2 guests, in list order, members linked by `memberId`.
"""
from __future__ import annotations

import asyncio
import base64
import json
import sqlite3
import threading
import time

import nats
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from datetime import datetime
from zoneinfo import ZoneInfo

from gatherlib import PASSWORD, GatherServer, Live, signed_in
from hub_support import free_port
from natslib import NatsServer
from test_club_pages import Week
from test_tap_targets import MINIMUM
from uplink_proxy import Faults, UplinkProxy

# Mostly waiting on other processes (NATS, PostgreSQL, an SMTP server, restarts): make test runs it
# in the serial lane beside the parallel phase (conftest.py).
pytestmark = pytest.mark.mostly_waits

CLUB = "riverside-fc"
STREAM = f"CLUB_{CLUB}"
NAMES = [f"Player {n:02d}" for n in range(1, 15)]


def last_list(url: str, date_id: str):
    """(headers, body) of the last message the club's stream holds for the date, or None."""
    async def read():
        nc = await nats.connect(url, connect_timeout=5, allow_reconnect=False)
        try:
            js = nc.jetstream()
            try:
                message = await js.get_last_msg(STREAM, f"club.{CLUB}.dates.{date_id}")
            except Exception:
                return None
            return message.headers or {}, message.data
        finally:
            await nc.close()
    return asyncio.run(read())


def publish(url: str, subject: str, body: bytes, headers: dict):
    async def send():
        nc = await nats.connect(url, connect_timeout=5, allow_reconnect=False)
        try:
            await nc.jetstream().publish(subject, body, headers=headers)
        finally:
            await nc.close()
    asyncio.run(send())


def wait_until(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.1)


def verified(key: Ed25519PublicKey, headers: dict, body: bytes) -> bool:
    try:
        key.verify(base64.b64decode(headers.get("Gather-Signature", "")), CLUB.encode() + b"\n" + body)
        return True
    except Exception:
        return False


@pytest.fixture(scope="module")
def nats_server():
    server = NatsServer().start()
    try:
        yield server
    finally:
        server.cleanup()


def test_each_dates_list_is_published_signed_and_a_forged_one_is_replaced(nats_server, club_factory):
    club = club_factory(instances=2, extra_args=("--nats", nats_server.url, "--club", CLUB))
    week = Week(club, capacity=14, names=NAMES)
    key = Ed25519PublicKey.from_public_bytes(base64.b64decode(week.organiser("GET", "/club/api/club")["clubKey"]))
    assert "Club key (the venue's --club-key): " in club.printed()

    for name in NAMES[:10]:
        week.answer(name, "in")
    week.answer(NAMES[10], "in", guests=1)
    week.answer(NAMES[11], "in", guests=1)
    week.answer(NAMES[12], "in")  # 15 seats asked of 14: waiting
    started = time.monotonic()

    def complete():
        found = last_list(nats_server.url, week.date_id)
        if found is None:
            return None
        listed = json.loads(found[1])
        return found if len(listed["confirmed"]) == 12 and len(listed["waiting"]) == 1 else None
    headers, body = wait_until(complete, 10, "the date's list on the club's stream")
    assert time.monotonic() - started < 10
    assert headers.get("Nats-Rollup") == "sub"
    assert verified(key, headers, body), "signed with the club's key over NAME + newline + body"
    listed = json.loads(body)
    assert listed["type"] == "clubDate" and listed["club"] == CLUB and listed["date"] == week.date_id
    assert listed["title"] == "Sunday 7-a-side" and listed["place"] == "Riverside"
    assert listed["durationMinutes"] == 60 and listed["status"] == "scheduled"
    assert [entry["name"] for entry in listed["confirmed"]] == NAMES[:12]
    assert [entry["guests"] for entry in listed["confirmed"]] == [0] * 10 + [1, 1]
    assert [entry["memberId"] for entry in listed["confirmed"]] == [week.ids[n] for n in NAMES[:12]]
    assert listed["waiting"] == [{"memberId": week.ids[NAMES[12]], "name": NAMES[12], "guests": 0, "position": 1}]
    assert listed["offered"] == []
    assert listed["seq"] >= club.now() - 60_000, "seq = max(last + 1, club clock ms)"

    # A forged rollup (another key) takes the subject; a restarted instance checks at its
    # connection and publishes the club's own list again, with a higher seq.
    forged = dict(listed, confirmed=[], seq=listed["seq"] + 10)
    forged_body = json.dumps(forged).encode()
    other = Ed25519PrivateKey.generate()
    publish(nats_server.url, f"club.{CLUB}.dates.{week.date_id}", forged_body,
            {"Nats-Rollup": "sub", "Gather-Signature": base64.b64encode(
                other.sign(CLUB.encode() + b"\n" + forged_body)).decode()})
    assert last_list(nats_server.url, week.date_id)[1] == forged_body
    club.restart_instance(1)

    def own_again():
        found = last_list(nats_server.url, week.date_id)
        return found if found and verified(key, *found) else None
    headers, body = wait_until(own_again, 10, "the club's own list back on the subject")
    again = json.loads(body)
    assert again["seq"] > listed["seq"] and len(again["confirmed"]) == 12


def hub_conf(uplink_port: int) -> str:
    """nats-server tells a leaf the hub's own leaf address and the leaf dials it next time:
    `advertise` names the proxy instead, as a real hub advertises its public address."""
    return f"""
server_name: hub
jetstream {{ domain: hub, store_dir: "STORE_DIR" }}
leafnodes {{ listen: "127.0.0.1:LEAF_PORT", advertise: "127.0.0.1:{uplink_port}" }}
"""


def leaf_conf(uplink_port: int) -> str:
    return f"""
server_name: venue-riverside
jetstream {{ domain: riverside, store_dir: "STORE_DIR" }}
leafnodes {{
  remotes = [ {{ url: "nats-leaf://127.0.0.1:{uplink_port}" }} ]
  reconnect: 1
}}
"""


class Uplink:
    """The leaf's link to the hub through `UplinkProxy`, run on an event loop of its own thread."""

    def __init__(self, hub_leaf_port: int, port: int):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        clean = Faults(delay=0, jitter=0, stall_chance=0, cut_every=0)
        self.proxy = self.call(UplinkProxy(hub_leaf_port, clean).start(port))

    def call(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(15)

    def cut(self, seconds: float):
        self.loop.call_soon_threadsafe(self.proxy.cut_now, seconds)

    def close(self):
        self.call(self.proxy.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


async def signed_in_v2(server: GatherServer, username: str) -> Live:
    """A gather.v2 connection logged in as `username`, past its first snapshot."""
    live = await Live.connect(server, subprotocols=("gather.v2",))
    await live.next()
    session = await live.login(username)
    assert session["type"] == "session", session
    return live


async def holding(live: Live, condition, timeout: float = 5):
    """Reads on until `condition()` holds of what `live` has read (at once when it already does)."""
    if not condition():
        await live.until(lambda _: condition(), timeout)


def held_lists(server: GatherServer) -> dict:
    """The club lists the venue keeps in its SQLite (date id -> (seq, list)), read-only."""
    connection = sqlite3.connect(f"file:{server.data_dir}/gather.sqlite?mode=ro", uri=True, timeout=5)
    try:
        return {row[0]: (row[1], json.loads(row[2]))
                for row in connection.execute("SELECT date_id, seq, body FROM club_dates")}
    finally:
        connection.close()


def test_the_list_reaches_the_laptop_survives_a_cut_uplink_and_a_restart_and_makes_the_gather(club_factory, browsers):
    uplink_port = free_port()
    hub = NatsServer(config=hub_conf(uplink_port)).start()
    uplink = Uplink(hub.leaf_port, uplink_port)
    leaf = NatsServer(config=leaf_conf(uplink.proxy.port)).start()
    venue = None
    try:
        club = club_factory(instances=1, extra_args=("--nats", hub.url, "--club", CLUB))
        week = Week(club, capacity=14, names=NAMES)
        key = week.organiser("GET", "/club/api/club")["clubKey"]
        for name in NAMES[:10]:
            week.answer(name, "in")
        week.answer(NAMES[10], "in", guests=1)
        week.answer(NAMES[11], "in", guests=1)
        week.answer(NAMES[12], "in")

        venue = GatherServer(extra_args=("--nats", leaf.url, "--venue", "riverside", "--club", CLUB,
                                         "--club-key", key)).start()
        started = time.monotonic()

        def complete():
            held = held_lists(venue).get(week.date_id)
            return held if held and len(held[1]["confirmed"]) == 12 and len(held[1]["waiting"]) == 1 else None
        seq, listed = wait_until(complete, 10, "the date's list in the venue's SQLite")
        assert listed["club"] == CLUB and [e["name"] for e in listed["confirmed"]] == NAMES[:12]
        assert venue.health()["clubDropped"] == 0

        # A change while the uplink is up reaches the laptop within 10 s.
        week.answer(NAMES[12], "in", guests=1)
        changed = time.monotonic()
        seq, listed = wait_until(lambda: (held := held_lists(venue)[week.date_id]) and held[0] > seq and held,
                                 10, "the changed list in the venue's SQLite")
        print(f"a change on the laptop after {time.monotonic() - changed:.2f} s")
        assert listed["waiting"][0]["guests"] == 1

        # A forged list (another key) on the hub's stream reaches the mirror: dropped, counted, nothing changes.
        forged = dict(listed, confirmed=listed["confirmed"][:2], seq=seq + 1000)
        forged_body = json.dumps(forged).encode()
        publish(hub.url, f"club.{CLUB}.dates.{week.date_id}", forged_body,
                {"Nats-Rollup": "sub", "Gather-Signature": base64.b64encode(
                    Ed25519PrivateKey.generate().sign(CLUB.encode() + b"\n" + forged_body)).decode()})
        wait_until(lambda: venue.health()["clubDropped"] >= 1, 10, "the forged list counted")
        assert held_lists(venue)[week.date_id][0] == seq, "the forged list changed nothing"

        # The uplink cut before Sunday: a late change at the club stays at the club; the venue keeps its list.
        uplink.cut(600)
        time.sleep(0.5)
        week.answer(NAMES[13], "in")
        time.sleep(2)
        assert held_lists(venue)[week.date_id][0] == seq
        venue.stop()
        venue.start()
        assert held_lists(venue)[week.date_id][0] == seq, "kept across a restart"

        # "Select players" on the organiser's phone (390 px) offers Sunday's list; one tap makes the gather.
        async def register():
            await (await signed_in(venue, "captain")).close()
        asyncio.run(register())
        phone = browsers(venue, 390, 844).login("captain", PASSWORD)
        phone.click("#show-players")
        phone.click("#select-toggle")
        day = datetime.fromtimestamp(listed["startsAt"] / 1000, ZoneInfo("Europe/Madrid")).strftime("%A")
        offer = f"From {day}'s list (12 in, 2 guests)"
        phone.wait(lambda: phone.text("#club-lists button") == offer, what=f"the button {offer!r}")
        box = phone.find("#club-lists button").rect
        assert box["width"] >= MINIMUM and box["height"] >= MINIMUM, box
        assert phone.scroll_width() <= 390 and phone.axe() == []
        phone.screenshot("organiser-select-from-sunday-list-390.png")
        phone.click("#club-lists button")
        phone.wait(lambda: phone.find("#gather").is_displayed(), what="the gather made from the list")
        phone.screenshot("organiser-gather-from-sunday-list-390.png")

        async def check():
            live = await Live.connect(venue)
            try:
                await live.next()
                await live.login("captain")
                state = live.snapshot
                again = await live.command({"kind": "selectFromClubDate", "date": week.date_id, "pitch": 1})
                assert again["type"] == "rejected" and again["code"] == "conflict", again
                missing = await live.command({"kind": "selectFromClubDate", "date": "no-such-date", "pitch": 1})
                assert missing["type"] == "rejected" and missing["code"] == "not_found", missing
                # The organisers' state carries the lists (§21.3), on gather.v1 (this `live`) and gather.v2
                # alike, with each member now linked to the player the gather made; spectators never see them.
                await holding(live, lambda: "clubDates" in (live.snapshot or {}))
                lists_v1 = live.snapshot["clubDates"]
                organiser_v2 = await signed_in_v2(venue, "captain")
                spectator = await Live.connect(venue, subprotocols=("gather.v2",))
                try:
                    await spectator.next()
                    await holding(organiser_v2, lambda: "clubDates" in (organiser_v2.snapshot or {}))
                    lists_v2 = organiser_v2.snapshot["clubDates"]
                    assert spectator.snapshot is not None and "clubDates" not in spectator.snapshot
                    assert not any("clubDates" in json.dumps(m) for m in spectator.messages)
                finally:
                    await spectator.close()
                    await organiser_v2.close()
                return state, lists_v1, lists_v2
            finally:
                await live.close()
        state, lists_v1, lists_v2 = asyncio.run(check())
        gather = next(p for p in state["pitches"] if p["id"] == 1)["gather"]
        players = {player["id"]: player for player in state["players"]}
        chosen = [players[i] for i in gather["bench"]]
        expected = NAMES[:11] + [f"{NAMES[10]}'s guest 1", NAMES[11], f"{NAMES[11]}'s guest 1"]
        assert [p["name"] for p in chosen] == expected
        assert [p.get("memberId") for p in chosen] == [week.ids[n] for n in NAMES[:11]] + [None, week.ids[NAMES[11]], None]
        assert gather["clubDate"] == week.date_id
        by_member = {p["memberId"]: p["id"] for p in chosen if p.get("memberId")}
        for lists in (lists_v1, lists_v2):
            shown = next(entry for entry in lists if entry["date"] == week.date_id)
            assert shown["seq"] == seq and [e["name"] for e in shown["confirmed"]] == NAMES[:12]
            assert shown["linked"] == by_member, shown["linked"]
    finally:
        for part in (venue, leaf, hub):
            if part is not None:
                part.cleanup()
        uplink.close()
