"""Sunday's list on the laptop (issue 44; docs/PROTOCOL.md §20), against real processes: two
`gather club serve` instances on a private PostgreSQL with `--nats URL --club NAME`, and a real
`nats-server` with JetStream; the stream is read with nats-py and the signature checked with
`cryptography` (neither is our code).

- A date's list is on the club's stream within 10 s of an answer: subject
  `club.NAME.dates.DID`, one message per subject (rollup), signed over NAME + "\\n" + body with
  the key `GET /club/api/club` shows as `clubKey`; its `seq` rises with each change, whichever
  instance published it.
- A forged rollup on the subject (a list signed with another key) is replaced by the club's
  own list, with a higher `seq`, when an instance checks at its (re)connection.
"""
from __future__ import annotations

import asyncio
import base64
import json
import time

import nats
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from natslib import NatsServer
from test_club_pages import Week

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
