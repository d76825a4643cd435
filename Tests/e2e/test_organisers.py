"""Organisers of a real group, end to end over the real binary (docs/PROTOCOL.md "Organisers of a
real group"): roles, the kept invite code, removal, ownership, passwords, logout everywhere, the
activity list, the laptop's `gather organisers` with the server running and stopped, and the
migration of databases written by the first two releases."""
import asyncio
import os
import re
import shutil
import sqlite3
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from gatherlib import BINARY, PASSWORD, GatherServer, Live, run

FIXTURES = Path(__file__).resolve().parents[1] / "Fixtures"


async def ask(live: Live, message: dict, timeout: float = 10) -> dict:
    """Sends an account message with a fresh id and returns its reply (`account`, `activity` or `error`)."""
    request_id = uuid.uuid4().hex[:12]
    await live.send({**message, "id": request_id})
    return await live.until(lambda m: m.get("id") == request_id and m["type"] in ("account", "activity", "error"),
                            timeout)


async def organiser(server: GatherServer, username: str, register: bool = True, password: str = PASSWORD,
                    invite: str | None = None) -> tuple[Live, dict]:
    live = await Live.connect(server)
    await live.next()
    if register:
        session = await live.register(username, invite=invite or server.invite_code)
    else:
        session = await live.login(username, password)
    assert session.get("role") == "organiser", session
    return live, session


def ended(reason: str):
    return lambda m: m["type"] == "session" and m.get("role") == "spectator" and m.get("reason") == reason


def cli(server_or_dir, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    data_dir = server_or_dir if isinstance(server_or_dir, str) else server_or_dir.data_dir
    result = subprocess.run([BINARY, "organisers", *args, "--data-dir", data_dir], capture_output=True, text=True,
                            timeout=60)
    if check:
        assert result.returncode == 0, (result.stdout, result.stderr)
    return result


# MARK: - Roles, the list, every error of the section

def test_the_first_account_owns_and_the_list_tells_who_is_online():
    async def scenario(server):
        ann, ann_session = await organiser(server, "ann")
        bob, bob_session = await organiser(server, "bob")
        assert ann_session["owner"] is True and bob_session["owner"] is False
        assert bob_session["inviteCode"] == server.invite_code
        version = bob.version
        reply = await ask(bob, {"type": "organisers"})
        assert reply["type"] == "account", reply
        listed = reply["organisers"]
        assert [o["username"] for o in listed] == ["ann", "bob"]
        assert [o["owner"] for o in listed] == [True, False]
        assert all(o["online"] and o["sessions"] == 1 for o in listed)
        assert all(abs(o["lastSeenAt"] - time.time() * 1000) < 10_000 for o in listed)
        assert listed[0]["createdAt"] <= listed[1]["createdAt"]
        await ann.close()
        reply = await ask(bob, {"type": "organisers"})
        ann_row = reply["organisers"][0]
        assert ann_row["online"] is False and ann_row["sessions"] == 1
        # Nothing here changes the gather's version.
        assert (await ask(bob, {"type": "activity"}))["items"] == []
        assert server.health()["version"] == version
        await bob.close()

    with GatherServer() as server:
        run(scenario(server))


def test_every_error_of_the_section_is_a_clear_sentence_and_changes_nothing():
    async def scenario(server):
        ann, _ = await organiser(server, "ann")
        bob, _ = await organiser(server, "bob")
        stranger = await Live.connect(server)
        await stranger.next()
        for kind in ("organisers", "rotateInvite", "removeOrganiser", "transferOwner", "changePassword",
                     "logoutEverywhere", "activity"):
            reply = await ask(stranger, {"type": kind, "username": "bob"})
            assert reply["type"] == "error" and reply["code"] == "forbidden", reply
        for kind, extra in (("rotateInvite", {}), ("removeOrganiser", {"username": "ann"}),
                            ("transferOwner", {"username": "bob"})):
            reply = await ask(bob, {"type": kind, **extra})
            assert reply["code"] == "forbidden" and "owner" in reply["message"], reply
        cases = [
            ({"type": "removeOrganiser", "username": "ann"}, "invalid", "yourself"),
            ({"type": "transferOwner", "username": "ANN"}, "invalid", "owner"),
            ({"type": "removeOrganiser", "username": "nobody"}, "not_found", "nobody"),
            ({"type": "transferOwner", "username": "nobody"}, "not_found", "nobody"),
            ({"type": "removeOrganiser"}, "invalid", "username"),
            ({"type": "changePassword", "currentPassword": PASSWORD, "newPassword": "short"}, "invalid", "8–128"),
            ({"type": "activity", "limit": 0}, "invalid", "1 to 200"),
            ({"type": "activity", "limit": 10_000}, "invalid", "1 to 200"),
            ({"type": "activity", "before": "x"}, "invalid", "before"),
        ]
        for message, code, fragment in cases:
            reply = await ask(ann, message)
            assert reply["type"] == "error" and reply["code"] == code, (message, reply)
            assert fragment in reply["message"], (message, reply)
        # A wrong current password is unauthorized, and counts: five lock the address.
        for _ in range(5):
            reply = await ask(bob, {"type": "changePassword", "currentPassword": "not my password",
                                    "newPassword": "a brand new one"})
            assert reply["code"] == "unauthorized", reply
        reply = await ask(bob, {"type": "changePassword", "currentPassword": PASSWORD, "newPassword": "a brand new one"})
        assert reply["code"] == "rate_limited", reply
        listed = (await ask(ann, {"type": "organisers"}))["organisers"]
        assert [(o["username"], o["owner"]) for o in listed] == [("ann", True), ("bob", False)]
        for live in (ann, bob, stranger):
            await live.close()
        # Over the plain-HTTP door, account messages are sent to TLS.
        door = await Live.connect(server, url=f"ws://127.0.0.1:{server.spectator_port}/live")
        await door.next()
        reply = await ask(door, {"type": "organisers"})
        assert reply["code"] == "tls_required", reply
        await door.close()

    with GatherServer(spectator_door=True) as server:
        run(scenario(server))


# MARK: - The invite code

def test_the_invite_code_survives_a_restart_and_rotation_stops_the_old_one_at_once():
    async def first(server, code):
        ann, session = await organiser(server, "ann", invite=code)
        assert session["inviteCode"] == code
        bob, bob_session = await organiser(server, "bob", invite=code)
        reply = await ask(ann, {"type": "rotateInvite"})
        new_code = reply["inviteCode"]
        assert new_code != code and re.fullmatch(r"[A-Z0-9]{8,64}", new_code), reply
        pushed = await bob.until(lambda m: m["type"] == "session")
        assert pushed["inviteCode"] == new_code and pushed["token"] == bob_session["token"] and pushed["owner"] is False
        assert "id" not in pushed
        own = await ann.until(lambda m: m["type"] == "session")
        assert own["inviteCode"] == new_code and own["owner"] is True
        late = await Live.connect(server)
        await late.next()
        refused = await late.register("cid", invite=code)
        assert refused["code"] == "bad_invite", refused
        accepted = await late.register("dee", invite=new_code)
        assert accepted["role"] == "organiser", accepted
        for live in (ann, bob, late):
            await live.close()
        return new_code

    async def after_restart(server, code, old):
        live = await Live.connect(server)
        await live.next()
        assert (await live.register("eve", invite=old))["code"] == "bad_invite"
        session = await live.register("eve", invite=code)
        assert session["inviteCode"] == code
        await live.close()

    with GatherServer(invite_code=None) as server:
        printed = re.search(r"Invite code for organisers: (\S+)", "\n".join(server.output)).group(1)
        new_code = run(first(server, printed))
        server.stop()
        server.start()
        assert f"Invite code for organisers: {new_code}" in "\n".join(server.output)
        run(after_restart(server, new_code, printed))
        # --invite-code replaces the kept code at start.
        server.stop()
        server.invite_code = "CHOSEN-CODE-9"
        server.start()
        async def replaced():
            live = await Live.connect(server)
            await live.next()
            assert (await live.register("fay", invite=new_code))["code"] == "bad_invite"
            assert (await live.register("fay", invite="CHOSEN-CODE-9"))["role"] == "organiser"
            await live.close()
        run(replaced())


# MARK: - Removing someone

def test_removal_ends_every_connection_at_once_and_the_name_stays_on_what_they_did():
    async def scenario(server):
        ann, _ = await organiser(server, "ann")
        phone, _ = await organiser(server, "bob")
        tablet, tablet_session = await organiser(server, "bob", register=False)
        for name in ("Ann", "Bob"):
            assert (await phone.command({"kind": "addPlayer", "name": name}))["type"] == "ack"
        await phone.command({"kind": "createGather", "playerIds": [1, 2]})
        await phone.command({"kind": "assign", "playerId": 1, "to": "A"})
        await phone.command({"kind": "assign", "playerId": 2, "to": "B"})
        await phone.command({"kind": "startGather"})
        goal = await phone.command({"kind": "score", "team": "A", "delta": 1, "playerId": 1})
        assert goal["type"] == "ack"
        version = goal["version"]
        token = tablet_session["token"]

        reply = await ask(ann, {"type": "removeOrganiser", "username": "BOB"})
        assert reply == {"type": "account", "id": reply["id"], "removed": "bob"}
        for live in (phone, tablet):
            message = await live.until(lambda m: m["type"] == "session", timeout=2)
            assert message == {"type": "session", "role": "spectator", "reason": "removed"}
        for live in (phone, tablet):
            rejected = await live.command({"kind": "score", "team": "A", "delta": 1})
            assert rejected["type"] == "rejected" and rejected["code"] == "forbidden", rejected
            refused = await ask(live, {"type": "organisers"})
            assert refused["code"] == "forbidden"
        again = await Live.connect(server)
        await again.next()
        assert (await again.login("bob"))["code"] == "unauthorized"
        await again.send({"type": "resume", "id": "r", "token": token})
        assert (await again.session_reply("r"))["code"] == "unauthorized"
        assert (await again.register("bob"))["code"] == "username_taken", "a removed name stays taken"
        state = await ann.wait_snapshot(version)
        events = state["gather"]["events"]
        assert [e["by"] for e in events if e["kind"] == "goal"] == ["bob"]
        items = (await ask(ann, {"type": "activity", "limit": 3}))["items"]
        assert items[0]["organiser"] == "bob" and items[0]["summary"] == "Added a goal for Team A (Ann)"
        assert items[0]["version"] == version and items[0]["kind"] == "score" and items[0]["pitch"] == 1
        listed = (await ask(ann, {"type": "organisers"}))["organisers"]
        assert [o["username"] for o in listed] == ["ann"]
        assert server.health()["version"] == version
        for live in (ann, phone, tablet, again):
            await live.close()

    with GatherServer() as server:
        run(scenario(server))


# MARK: - Ownership, passwords, logging out everywhere

def test_transfer_password_change_and_logout_everywhere():
    async def scenario(server):
        ann, _ = await organiser(server, "ann")
        bob, _ = await organiser(server, "bob")
        reply = await ask(ann, {"type": "transferOwner", "username": "bob"})
        assert reply["owner"] == "bob"
        assert (await bob.until(lambda m: m["type"] == "session"))["owner"] is True
        assert (await ann.until(lambda m: m["type"] == "session"))["owner"] is False
        assert (await ask(ann, {"type": "rotateInvite"}))["code"] == "forbidden"

        # bob changes his password from his phone; his laptop's session ends, the phone's stays.
        laptop, _ = await organiser(server, "bob", register=False)
        reply = await ask(bob, {"type": "changePassword", "currentPassword": PASSWORD,
                                "newPassword": "a much better secret"})
        assert reply["type"] == "account" and reply["sessionsEnded"] == 1, reply
        assert (await laptop.until(lambda m: m["type"] == "session"))["reason"] == "password_changed"
        assert (await bob.command({"kind": "addPlayer", "name": "Still in"}))["type"] == "ack"
        fresh = await Live.connect(server)
        await fresh.next()
        assert (await fresh.login("bob", PASSWORD))["code"] == "unauthorized"
        await fresh.close()
        fresh = await Live.connect(server)
        await fresh.next()
        assert (await fresh.login("bob", "a much better secret"))["role"] == "organiser"

        reply = await ask(fresh, {"type": "logoutEverywhere"})
        assert reply["sessionsEnded"] == 2, reply
        for live in (bob, fresh):
            assert (await live.until(lambda m: m["type"] == "session"))["reason"] == "logged_out"
        assert (await fresh.command({"kind": "addPlayer", "name": "No"}))["code"] == "forbidden"
        for live in (ann, bob, laptop, fresh):
            await live.close()

    with GatherServer() as server:
        run(scenario(server))


def test_activity_lists_who_did_what_newest_first_and_pages_back():
    async def scenario(server):
        ann, _ = await organiser(server, "ann")
        bob, _ = await organiser(server, "bob")
        for name in ("Ann", "Bob", "Cid"):
            await ann.command({"kind": "addPlayer", "name": name})
        await ann.command({"kind": "createGather", "playerIds": [1, 2, 3]})
        for pid, team in ((1, "A"), (2, "A"), (3, "B")):
            await ann.command({"kind": "assign", "playerId": pid, "to": team})
        await bob.wait_snapshot(ann.version)
        await bob.command({"kind": "renameTeam", "team": "A", "name": "Whites"})
        await ann.wait_snapshot(bob.version)
        await ann.command({"kind": "startGather"})
        await bob.wait_snapshot(ann.version)
        last = await bob.command({"kind": "score", "team": "A", "delta": 1, "playerId": 1, "assistId": 2})
        items = (await ask(ann, {"type": "activity", "limit": 3}))["items"]
        assert [(i["organiser"], i["summary"]) for i in items] == [
            ("bob", "Added a goal for Whites (Ann, assist Bob)"),
            ("ann", "Kicked off: Whites v Team B"),
            ("bob", "Renamed Team A to Whites"),
        ]
        assert [i["version"] for i in items] == [last["version"], last["version"] - 1, last["version"] - 2]
        assert all(abs(i["at"] - time.time() * 1000) < 30_000 for i in items)
        page = (await ask(ann, {"type": "activity", "before": items[-1]["version"], "limit": 200}))["items"]
        assert [i["version"] for i in page] == list(range(items[-1]["version"] - 1, 0, -1))
        assert page[-1]["summary"] == "Added Ann to the roster" and page[-1]["pitch"] is None
        assert len((await ask(ann, {"type": "activity"}))["items"]) == last["version"]
        await ann.close()
        await bob.close()

    with GatherServer() as server:
        run(scenario(server))


# MARK: - The laptop

@pytest.mark.timing
@pytest.mark.mostly_waits
def test_the_cli_on_a_running_server_turns_a_removed_phone_into_a_spectator_within_a_second():
    async def scenario(server):
        ann, _ = await organiser(server, "ann")
        phone, _ = await organiser(server, "bob")
        listed = await asyncio.create_subprocess_exec(BINARY, "organisers", "list", "--data-dir", server.data_dir,
                                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = await listed.communicate()
        assert listed.returncode == 0, err
        lines = out.decode().splitlines()
        assert lines[0].split() == ["USERNAME", "ROLE", "LAST", "SEEN", "SESSIONS"]
        assert lines[1].split()[:2] == ["ann", "owner"] and "online now" in lines[1]
        assert lines[2].split()[:2] == ["bob", "organiser"]

        started = time.monotonic()
        removal = await asyncio.create_subprocess_exec(BINARY, "organisers", "remove", "bob", "--data-dir",
                                                       server.data_dir, stdout=subprocess.PIPE,
                                                       stderr=subprocess.PIPE)
        async def phone_told():
            message = await phone.until(ended("removed"), timeout=10)
            return time.monotonic(), message

        async def cli_answered():
            out, err = await removal.communicate()
            return time.monotonic(), out, err
        (told_at, message), (answered_at, out, err) = await asyncio.gather(phone_told(), cli_answered())
        assert removal.returncode == 0, err
        assert "Removed bob" in out.decode()
        assert message == {"type": "session", "role": "spectator", "reason": "removed"}
        # The phone is a spectator by the time the laptop says so, give or take a second.
        assert told_at - answered_at < 1.0, (told_at - started, answered_at - started)
        assert told_at - started < 10
        assert (await phone.command({"kind": "addPlayer", "name": "X"}))["code"] == "forbidden"
        assert [o["username"] for o in (await ask(ann, {"type": "organisers"}))["organisers"]] == ["ann"]

        # reset-password prints the new password once; it works and every session ended.
        second, _ = await organiser(server, "cid")
        reset = await asyncio.create_subprocess_exec(BINARY, "organisers", "reset-password", "cid", "--data-dir",
                                                     server.data_dir, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        ending = await second.until(ended("password_changed"), timeout=10)
        out, err = await reset.communicate()
        assert reset.returncode == 0 and ending["reason"] == "password_changed", err
        password = re.search(r"New password for cid: (\S+)", out.decode()).group(1)
        assert len(password) >= 12
        assert password not in "\n".join(server.output + server.errors), "never logged"
        fresh = await Live.connect(server)
        await fresh.next()
        assert (await fresh.login("cid", password))["role"] == "organiser"

        made = await asyncio.create_subprocess_exec(BINARY, "organisers", "make-owner", "cid", "--data-dir",
                                                    server.data_dir, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        await made.communicate()
        assert (await fresh.until(lambda m: m["type"] == "session"))["owner"] is True
        assert (await ann.until(lambda m: m["type"] == "session"))["owner"] is False
        for live in (ann, phone, second, fresh):
            await live.close()

    with GatherServer() as server:
        socket_path = os.path.join(server.data_dir, "admin.sock")
        assert oct(os.stat(socket_path).st_mode & 0o777) == "0o600"
        run(scenario(server))
        server.stop()
        assert not os.path.exists(socket_path), "a stopped server leaves no socket behind"


def test_the_cli_with_the_server_stopped_applies_the_same_rules():
    async def seed(server):
        for name in ("ann", "bob", "cid"):
            live, _ = await organiser(server, name)
            await live.close()

    async def check(server, password):
        live = await Live.connect(server)
        await live.next()
        session = await live.login("bob", password)
        assert session["role"] == "organiser" and session["owner"] is True, session
        listed = (await ask(live, {"type": "organisers"}))["organisers"]
        assert [(o["username"], o["owner"]) for o in listed] == [("ann", False), ("bob", True)]
        await live.close()

    with GatherServer() as server:
        run(seed(server))
        server.stop()
        refused = cli(server, "remove", "ann", check=False)
        assert refused.returncode == 1 and "ann is the owner" in refused.stderr
        assert cli(server, "remove", "nobody", check=False).returncode == 1
        assert "bob is the owner now." in cli(server, "make-owner", "BOB").stdout
        assert "Removed cid" in cli(server, "remove", "cid").stdout
        printed = cli(server, "reset-password", "bob").stdout
        password = re.search(r"New password for bob: (\S+)", printed).group(1)
        table = cli(server, "list").stdout.splitlines()
        assert [line.split()[:2] for line in table[1:]] == [["ann", "organiser"], ["bob", "owner"]]
        server.start()
        run(check(server, password))


def test_the_cli_without_a_database_says_so():
    result = subprocess.run([BINARY, "organisers", "list", "--data-dir", "/nonexistent/gather-data"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 1 and "no database" in result.stderr


# MARK: - The migration of older databases

@pytest.mark.parametrize("fixture", ["release1.sqlite", "release2.sqlite"])
def test_a_database_of_an_earlier_release_keeps_everything_and_its_oldest_account_owns(fixture, tmp_path):
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    shutil.copyfile(FIXTURES / fixture, data / "gather.sqlite")
    before = sqlite3.connect(FIXTURES / fixture)
    version = before.execute("SELECT version FROM meta").fetchone()[0]
    accounts = [row[0] for row in before.execute("SELECT username FROM organisers ORDER BY created_at")]
    before.close()

    async def scenario(server):
        live = await Live.connect(server)
        first = await live.next()
        assert first["version"] == version
        session = await live.login(accounts[0])
        assert session["owner"] is True, session
        listed = (await ask(live, {"type": "organisers"}))["organisers"]
        assert [o["username"] for o in listed] == accounts
        assert [o["owner"] for o in listed] == [True] + [False] * (len(accounts) - 1)
        items = (await ask(live, {"type": "activity", "limit": 200}))["items"]
        assert [i["version"] for i in items] == list(range(version, 0, -1))
        assert all(i["summary"] for i in items)
        if len(accounts) > 1:
            other, _ = await organiser(server, accounts[1], register=False)
            assert other.messages[-1]["owner"] is False
            await other.close()
        await live.close()

    with GatherServer(data_dir=str(data)) as server:
        run(scenario(server))
