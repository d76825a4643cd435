"""The spectator door (PROTOCOL.md "The spectator port"): plain HTTP for watching, never for
organising — pages and live state flow out, nothing sent in can change the state."""
import asyncio
import http.client
import json
import os
import random
import socket
import ssl

import pytest
import websockets

from gatherlib import INVITE, PASSWORD, GatherServer, Live, run, signed_in

WATCHING = ("/", "/scoreboard.html", "/trust.html", "/ca.pem", "/qr.svg", "/api/history.json", "/healthz",
            "/js/live.js")


@pytest.fixture(scope="module")
def server():
    with GatherServer(spectator_door=True) as running:
        yield running


def plain_get(server, path):
    connection = http.client.HTTPConnection("127.0.0.1", server.spectator_port, timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def door_url(server):
    return f"ws://127.0.0.1:{server.spectator_port}/live"


# MARK: - HTTP

def test_watching_is_served_over_plain_http(server):
    for path in WATCHING:
        status, _, body = plain_get(server, path)
        assert status == 200, path
        assert body, path
    assert plain_get(server, "/ca.pem")[2] == open(server.ca_path, "rb").read()
    assert plain_get(server, "/")[1]["content-type"].startswith("text/html")


def test_the_organiser_page_sends_you_to_tls_and_metrics_stay_private(server):
    status, headers, _ = plain_get(server, "/organiser.html")
    assert status == 308
    assert headers["location"] == f"https://127.0.0.1:{server.port}/organiser.html"
    assert plain_get(server, "/metrics")[0] != 200
    status, _, body = server.get("/metrics")
    assert status == 200 and b"gather_state_version" in body


def test_each_port_speaks_only_its_own_language(server):
    # TLS on the door: no handshake.
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    with pytest.raises((ssl.SSLError, ConnectionError, OSError)):
        with socket.create_connection(("127.0.0.1", server.spectator_port), timeout=5) as raw:
            with context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
                tls.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                assert tls.recv(100)
    # Plain HTTP on the TLS port: no page.
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as raw:
        raw.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        raw.settimeout(5)
        try:
            answer = raw.recv(4096)
        except (ConnectionError, TimeoutError, socket.timeout):
            answer = b""
    assert not answer.startswith(b"HTTP/"), answer[:80]


# MARK: - The live endpoint through the door

def test_the_door_streams_both_subprotocols_and_refuses_to_sign_in(server):
    async def scenario():
        ann = await signed_in(server, "ann")
        old = await Live.connect(server, url=door_url(server))
        new = await Live.connect(server, url=door_url(server), subprotocols=("gather.v2",))
        assert (old.messages[0]["protocol"], new.messages[0]["protocol"]) == ("gather.v1", "gather.v2")
        first_old, first_new = await old.next(), await new.next()
        assert first_old["type"] == first_new["type"] == "snapshot"
        assert "gather" in first_old["state"] and "gather" not in first_new["state"]

        reply = await ann.command({"kind": "addPlayer", "name": "Seen through the door"})
        assert reply["type"] == "ack"
        for client in (old, new):
            state = await client.wait_snapshot(reply["version"])
            assert "Seen through the door" in [p["name"] for p in state["players"]]
        assert any(m["type"] == "patch" for m in new.messages)

        token = next(m["token"] for m in ann.messages if m["type"] == "session")
        attempts = [{"type": "login", "id": "l", "username": "ann", "password": PASSWORD},
                    {"type": "register", "id": "g", "username": "door", "password": PASSWORD, "inviteCode": INVITE},
                    {"type": "resume", "id": "r", "token": token}]
        for client in (old, new):
            for attempt in attempts:
                await client.send(attempt)
                answer = await client.until(lambda m: m.get("id") == attempt["id"] or m["type"] == "session")
                assert answer["type"] == "error" and answer["code"] == "tls_required", (attempt["type"], answer)
                assert f"https://127.0.0.1:{server.port}" in answer["message"], answer
            command = await client.command({"kind": "addPlayer", "name": "Sneaky"})
            assert command["type"] == "rejected" and command["code"] == "forbidden", command
        assert ann.version == reply["version"] and server.health()["version"] == reply["version"]
        for client in (ann, old, new):
            await client.close()
    run(scenario())


# MARK: - Fuzz

TYPES = ["register", "login", "resume", "logout", "command", "snapshot", "patch", "ack", "hello", ""]
KINDS = ["addPlayer", "editPlayer", "removePlayer", "createGather", "assign", "renameTeam", "startGather", "score",
         "setTimer", "startTimer", "pauseTimer", "resetTimer", "endGather", "cancelGather", "addPitch", "renamePitch",
         "removePitch", "cancelGoal", "setScorer", "balanceTeams", "nonsense"]
FIELDS = ["name", "playerId", "playerIds", "to", "team", "delta", "minutes", "seconds", "pitch", "seq", "assistId",
          "skill", "position", "age", "favouriteTeam"]


def random_value(rng, depth=0):
    choice = rng.randrange(8 if depth < 2 else 5)
    if choice == 0:
        return rng.choice([0, 1, -1, 2, 99, 100, 2**31, -2**63, 10**30])
    if choice == 1:
        return "".join(rng.choice("aZ9 _-=é⚽\u202e\x00\"\\") for _ in range(rng.randrange(0, 40)))
    if choice == 2:
        return rng.choice([None, True, False, 1.5, "A", "B", "bench", "out"])
    if choice == 3:
        return rng.randrange(0, 5)
    if choice == 4:
        return rng.choice(["beginner", "goalkeeper", "Pitch 2", ""])
    if choice == 5:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    return {rng.choice(FIELDS): random_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))}


def fuzz_message(rng, token, version):
    """A message of any type with random fields; now and then the real credentials and a
    plausible command, so the door is tested against what an attacker could actually hold."""
    message = {}
    if rng.random() < 0.95:
        message["type"] = rng.choice(TYPES)
    if rng.random() < 0.8:
        message["id"] = rng.choice([f"f{rng.randrange(10**6)}", "", "x" * 70, 7])
    kind = message.get("type")
    if kind == "command":
        message["base"] = rng.choice([version, 0, -1, version + 5, "1", None])
        action = {"kind": rng.choice(KINDS)}
        action.update({rng.choice(FIELDS): random_value(rng) for _ in range(rng.randrange(0, 4))})
        message["action"] = action if rng.random() < 0.9 else random_value(rng)
    elif kind in ("login", "register"):
        message["username"] = rng.choice(["ann", "door", random_value(rng)])
        message["password"] = rng.choice([PASSWORD, random_value(rng)])
        message["inviteCode"] = rng.choice([INVITE, random_value(rng)])
    elif kind == "resume":
        message["token"] = rng.choice([token, token[:-1], random_value(rng)])
    for _ in range(rng.randrange(0, 3)):
        message[rng.choice(FIELDS + ["state", "version", "role"])] = random_value(rng)
    if rng.random() < 0.05:
        return rng.choice(["{", "[]", "null", "{\"type\": \"login\",}", json.dumps([message])])
    return json.dumps(message)


async def drain(client, seconds, into=None):
    """Reads whatever arrives until `seconds` pass without a message."""
    try:
        while True:
            message = await client.next(timeout=seconds)
            if into is not None:
                into.append(message)
    except (TimeoutError, asyncio.TimeoutError, websockets.exceptions.ConnectionClosed):
        pass


def test_three_hundred_random_messages_through_the_door_change_nothing(server):
    seed = int(os.environ.get("GATHER_FUZZ_SEED", random.randrange(2**32)))  # printed on failure, to replay
    rng = random.Random(seed)

    async def scenario():
        ann = await signed_in(server, "fuzzed")
        token = next(m["token"] for m in ann.messages if m["type"] == "session")
        await ann.command({"kind": "addPlayer", "name": "Before the fuzz"})
        before = server.health()["version"]
        await ann.wait_snapshot(before)

        door = [await Live.connect(server, url=door_url(server)),
                await Live.connect(server, url=door_url(server), subprotocols=("gather.v2",))]
        answers = []

        readers = [asyncio.create_task(drain(client, 30, answers)) for client in door]
        for number in range(300):
            await door[number % 2].ws.send(fuzz_message(rng, token, before))
            if number % 25 == 24:
                await asyncio.sleep(0.05)
        await asyncio.sleep(1.0)
        for client in door:
            assert client.ws.state is websockets.protocol.State.OPEN, "an error must never close the connection"
        for reader in readers:
            reader.cancel()

        kinds = {m["type"] for m in answers}
        assert "ack" not in kinds, f"seed {seed}: {kinds}"
        # A spectator's logout is answered with `session` as a spectator; nothing more.
        sessions = [m for m in answers if m["type"] == "session"]
        assert all(m == {"type": "session", "role": "spectator"} for m in sessions), f"seed {seed}: {sessions}"
        codes = {m["code"] for m in answers if m["type"] in ("error", "rejected")}
        assert codes <= {"tls_required", "forbidden", "rate_limited", "bad_json", "bad_message", "unknown_type"}, \
            f"seed {seed}: {codes}"
        assert "tls_required" in codes and "forbidden" in codes
        assert server.health()["version"] == before, f"seed {seed}: the state changed"
        await drain(ann, seconds=0.5)
        assert ann.version == before and not any(m["type"] == "snapshot" and m["version"] > before
                                                 for m in ann.messages), f"seed {seed}"
        fresh = await Live.connect(server)
        assert (await fresh.next())["version"] == before
        for client in (ann, fresh, *door):
            await client.close()
        return len(answers)
    answered = run(scenario())
    print(f"fuzz seed {seed}: 300 messages, {answered} answers, version unchanged")
