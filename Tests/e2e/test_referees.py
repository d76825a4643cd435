"""Referees: one pitch, one phone (docs/PROTOCOL.md §20), against the real binary over verified wss.

One server for the file. Its wall clock runs under libfaketime (Debian `faketime`) with an offset
read from a file, so a test moves the server's time two hours on to see a one-hour link expire;
monotonic clocks are left alone (`FAKETIME_DONT_FAKE_MONOTONIC`), so timers and TLS keep working.
"""
import asyncio
import os
import re
import shutil
import sqlite3
import tempfile
import time
import uuid

import pytest

import gatherlib
from gatherlib import GatherServer, Live, phone_address, run, signed_in
from tournament_support import acked, create_action, rejected

FAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
CODE = re.compile(r"^/organiser\.html#referee=([A-Za-z0-9_-]{22})$")


class FakeClockServer(GatherServer):
    """`gather serve` started through `sh -c exec`: spawned straight from Python (posix_spawn) with
    libfaketime preloaded, the binary read no arguments at all (its `--public` was the default)."""

    def start(self, timeout: float = 30) -> "GatherServer":
        saved = gatherlib.BINARY
        gatherlib.BINARY = self.wrapper
        try:
            return super().start(timeout)
        finally:
            gatherlib.BINARY = saved


@pytest.fixture(scope="module")
def venue():
    if not os.path.exists(FAKETIME):
        pytest.skip("libfaketime is missing: apt-get install faketime (make test's TEST_PACKAGES installs it)")
    folder = tempfile.mkdtemp(prefix="gather-referees-")
    clock = os.path.join(folder, "clock")
    with open(clock, "w") as file:
        file.write("+0\n")
    wrapper = os.path.join(folder, "gather")
    with open(wrapper, "w") as file:
        file.write(f'#!/bin/sh\nexec "{gatherlib.BINARY}" "$@"\n')
    os.chmod(wrapper, 0o755)
    env = {"LD_PRELOAD": FAKETIME, "FAKETIME_TIMESTAMP_FILE": clock, "FAKETIME_NO_CACHE": "1",
           "FAKETIME_DONT_FAKE_MONOTONIC": "1"}
    server = FakeClockServer(spectator_door=True, env=env)
    server.wrapper = wrapper
    server.clock_file = clock
    server.links = {}
    server.start()
    try:
        yield server
    finally:
        server.stop()
        server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


def move_clock(server, offset):
    with open(server.clock_file, "w") as clock:
        clock.write(offset + "\n")


async def referee(server, url, source=None):
    """A phone that opens the link: connected, past its snapshot, signed in (or the refusal)."""
    phone = await Live.connect(server, source=source)
    await phone.next()
    request = uuid.uuid4().hex
    await phone.send({"type": "referee", "id": request, "code": CODE.match(url).group(1)})
    return phone, await phone.session_reply(request)


async def told(live, predicate, timeout=5):
    """The newest `referees` message this client has read that satisfies `predicate`, or the next one."""
    for message in reversed(live.messages):
        if message["type"] == "referees":
            if predicate(message):
                return message
            break
    return await live.until(lambda m: m["type"] == "referees" and predicate(m), timeout)


async def create_link(ann, **fields):
    reply = await ann.command({"kind": "createRefereeLink", **fields})
    assert reply["type"] == "ack", reply
    assert set(reply["result"]) == {"id", "url"}, reply
    assert CODE.match(reply["result"]["url"]), reply
    return reply["result"]


def test_a_referee_scores_its_own_pitch_and_nothing_else(venue):
    async def scenario():
        watcher = await Live.connect(venue, url=f"ws://127.0.0.1:{venue.spectator_port}/live")
        tls_watcher = await Live.connect(venue)
        ann = await signed_in(venue, "ann")
        await acked(ann, {"kind": "addPitch", "name": "Back pitch"})
        await acked(ann, create_action(["Reds", "Blues", "Greens", "Golds"], groups=2, advance=1))
        await acked(ann, {"kind": "addPlayer", "name": "Zed"})

        # Fields checked before anything is made.
        await rejected(ann, {"kind": "createRefereeLink", "pitch": 2, "hours": 25}, "invalid", reason="referee_hours_rule")
        await rejected(ann, {"kind": "createRefereeLink", "pitch": 9}, "not_found")
        version = ann.version
        made = await create_link(ann, pitch=2)
        # A resent id is the same link, with the same address.
        again = await ann.command({"kind": "createRefereeLink", "pitch": 2},
                                  command_id=next(m["id"] for m in ann.messages if m.get("result") == made))
        assert again["result"] == made, again
        assert ann.version == version, "a link is not a change of the shared state"
        listed = await told(ann, lambda m: True)
        assert listed["referees"] == [{"id": made["id"], "pitch": 2, "label": "Back pitch referee",
                                       "expiresAt": listed["referees"][0]["expiresAt"]}]
        venue.links["back"] = made

        # Over the plain door a code is not even read.
        over_plain = await Live.connect(venue, url=f"ws://127.0.0.1:{venue.spectator_port}/live")
        await over_plain.send({"type": "referee", "id": "r", "code": CODE.match(made["url"]).group(1)})
        refusal = await over_plain.until(lambda m: m.get("id") == "r")
        assert (refusal["type"], refusal["code"]) == ("error", "tls_required"), refusal

        phone, session = await referee(venue, made["url"])
        assert session["role"] == "referee" and session["pitch"] == 2, session
        assert session["label"] == "Back pitch referee" and len(session["token"]) >= 16, session
        venue.links["back_token"] = session["token"]
        connected = await told(ann, lambda m: m["connected"] == [made["id"]])
        assert connected["referees"][0]["id"] == made["id"]

        # Pitch 2's first unplayed match, then a goal and the clock without naming the pitch.
        first = min((m for m in ann.snapshot["tournament"]["matches"] if m["pitch"] == 2),
                    key=lambda m: (m["plannedAt"], m["id"]))
        later = [m for m in ann.snapshot["tournament"]["matches"] if m["pitch"] == 2 and m["id"] != first["id"]]
        on_one = next(m for m in ann.snapshot["tournament"]["matches"] if m["pitch"] == 1)
        await phone.wait_snapshot(ann.version)
        for match in later[:1] + [on_one]:
            await rejected(phone, {"kind": "startMatch", "match": match["id"]}, "forbidden", reason="referee_pitch_only")
        await acked(phone, {"kind": "startMatch", "match": first["id"]})
        goal = await acked(phone, {"kind": "score", "team": "A", "delta": 1})
        await acked(phone, {"kind": "startTimer"})
        gather = next(p for p in phone.snapshot["pitches"] if p["id"] == 2)["gather"]
        assert gather["score"] == {"A": 1, "B": 0}, gather
        assert any(e["kind"] == "goal" and e["by"] == "Back pitch referee" for e in gather["events"]), gather["events"]

        # Anything else, or another pitch: forbidden, nothing changed.
        await rejected(phone, {"kind": "score", "pitch": 1, "team": "A", "delta": 1}, "forbidden",
                       reason="referee_pitch_only", params={"pitch": "Back pitch"})
        await rejected(phone, {"kind": "removePlayer", "playerId": 1}, "forbidden", reason="referee_pitch_only")
        await rejected(phone, {"kind": "cancelTournament"}, "forbidden", reason="referee_pitch_only")
        await rejected(phone, {"kind": "cancelGather"}, "forbidden", reason="referee_pitch_only")
        refused_link = await phone.command({"kind": "createRefereeLink", "pitch": 2})
        assert (refused_link["type"], refused_link["code"]) == ("rejected", "forbidden"), refused_link

        # The activity names the referee where an organiser's name stands.
        await ann.send({"type": "activity", "id": "act", "limit": 5})
        activity = await ann.until(lambda m: m.get("id") == "act")
        by_version = {item["version"]: item for item in activity["items"]}
        assert by_version[goal["version"]]["organiser"] == "Back pitch referee", activity

        await ann.wait_snapshot(phone.version)
        for spectator in (watcher, tls_watcher):
            await spectator.wait_snapshot(phone.version)
            assert not any(m["type"] == "referees" for m in spectator.messages), "a spectator was told about links"
            assert all("referees" not in (m.get("state") or {}) for m in spectator.messages)
        assert not any(m["type"] == "referees" for m in phone.messages), "a referee was told about links"
        for client in (watcher, tls_watcher, ann, phone, over_plain):
            await client.close()
    run(scenario())


def test_three_phones_per_link_and_logout_frees_a_place(venue):
    async def scenario():
        url = venue.links["back"]["url"]
        phones = []
        for _ in range(2):
            phone, session = await referee(venue, url)
            assert session["role"] == "referee", session
            phones.append(phone)
        fourth, refusal = await referee(venue, url)
        assert (refusal["type"], refusal["code"], refusal["reason"]) == ("error", "in_use", "referee_sessions_full"), refusal
        await phones[0].send({"type": "logout", "id": "out"})
        ended = await phones[0].until(lambda m: m["type"] == "session")
        assert ended["role"] == "spectator", ended
        request = uuid.uuid4().hex
        await fourth.send({"type": "referee", "id": request, "code": CODE.match(url).group(1)})
        assert (await fourth.session_reply(request))["role"] == "referee"
        for client in phones + [fourth]:
            await client.close()
    run(scenario())


def test_a_wrong_code_counts_as_a_wrong_password(venue):
    async def scenario():
        source = phone_address(17)
        stranger = await Live.connect(venue, source=source)
        await stranger.next()
        for attempt in range(5):
            await stranger.send({"type": "referee", "id": f"w{attempt}", "code": "A" * 22 if attempt else "short"})
            refusal = await stranger.until(lambda m, a=attempt: m.get("id") == f"w{a}")
            assert (refusal["code"], refusal["reason"]) == ("unauthorized", "referee_code_wrong"), refusal
        # The address is locked out now: even the right code (and a password) waits.
        await stranger.send({"type": "referee", "id": "right", "code": CODE.match(venue.links["back"]["url"]).group(1)})
        assert (await stranger.until(lambda m: m.get("id") == "right"))["code"] == "rate_limited"
        await stranger.send({"type": "login", "id": "pw", "username": "ann", "password": "correct horse battery"})
        assert (await stranger.until(lambda m: m.get("id") == "pw"))["code"] == "rate_limited"
        await stranger.close()
    run(scenario())


def test_revoking_and_expiry_end_the_sessions_at_once(venue):
    async def scenario():
        ann = await Live.connect(venue)
        await ann.next()
        assert (await ann.login("ann"))["role"] == "organiser"
        front = await create_link(ann, pitch=1, label="Front ref")
        phone, session = await referee(venue, front["url"])
        assert session["label"] == "Front ref", session
        await told(ann, lambda m: front["id"] in m["connected"])

        # Revoked: the phone is told at once, its token and the code stop working.
        reply = await ann.command({"kind": "revokeRefereeLink", "id": front["id"]})
        assert reply["type"] == "ack", reply
        ended = await phone.until(lambda m: m["type"] == "session", timeout=5)
        assert (ended["role"], ended["reason"]) == ("spectator", "revoked"), ended
        assert (await phone.resume(session["token"]))["code"] == "unauthorized"
        listed = await told(ann, lambda m: all(r["id"] != front["id"] for r in m["referees"]))
        assert [r["id"] for r in listed["referees"]] == [venue.links["back"]["id"]]
        await rejected(ann, {"kind": "revokeRefereeLink", "id": front["id"]}, "not_found", reason="no_such_referee_link")
        _, again = await referee(venue, front["url"], source=phone_address(23))
        assert (again["type"], again["code"]) == ("error", "unauthorized"), again

        # Expired: an hour's link, and the server's clock two hours on.
        short = await create_link(ann, pitch=1, hours=1)
        phone2, session2 = await referee(venue, short["url"])
        assert abs(session2["expiresAt"] - time.time() * 1000 - 3_600_000) < 60_000, session2
        move_clock(venue, "+2h")
        await ann.send({"type": "activity", "id": "nudge", "limit": 1})
        ended = await phone2.until(lambda m: m["type"] == "session", timeout=5)
        assert (ended["role"], ended["reason"]) == ("spectator", "expired"), ended
        assert (await phone2.resume(session2["token"]))["code"] == "unauthorized"
        for client in (ann, phone, phone2):
            await client.close()
    run(scenario())


def test_a_restart_keeps_the_link_its_phones_and_only_the_codes_hash(venue):
    url = venue.links["back"]["url"]
    code = CODE.match(url).group(1)
    venue.stop()
    database = os.path.join(venue.data_dir, "gather.sqlite")
    with sqlite3.connect(database) as db:
        rows = db.execute("SELECT code_hash, pitch, label FROM referee_links").fetchall()
    assert [(pitch, label) for _, pitch, label in rows] == [(2, "Back pitch referee")], rows
    for name in os.listdir(venue.data_dir):
        if name.startswith("gather.sqlite"):
            with open(os.path.join(venue.data_dir, name), "rb") as file:
                assert code.encode() not in file.read(), f"the code itself is in {name}"
    venue.start()

    async def scenario():
        phone = await Live.connect(venue)
        await phone.next()
        resumed = await phone.resume(venue.links["back_token"])
        assert (resumed["role"], resumed["pitch"]) == ("referee", 2), resumed
        ann = await Live.connect(venue)
        await ann.next()
        assert (await ann.login("ann"))["role"] == "organiser"
        listed = await told(ann, lambda m: True)
        assert [r["id"] for r in listed["referees"]] == [venue.links["back"]["id"]], listed
        await acked(phone, {"kind": "score", "team": "B", "delta": 1})
        for client in (ann, phone):
            await client.close()
    run(scenario())
