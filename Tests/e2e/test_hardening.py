"""Issue 5: only organisers write; every bad input gets a clear answer; the server stays up."""
import asyncio
import contextlib
import json
import os
import resource
import socket
import ssl
import subprocess
import threading
import time
import warnings

import pytest
import websockets

import rawws
from gatherlib import phone_address, PASSWORD, GatherServer, Live, run


@pytest.fixture(scope="module")
def server():
    with GatherServer() as running:
        yield running


def test_malformed_messages_get_errors_with_their_id_and_the_connection_stays_usable(server):
    async def scenario():
        live = await Live.connect(server)
        await live.next()
        cases = [
            ("{not json", "bad_json", None),
            ("[1, 2, 3]", "bad_message", None),
            ('{"id": "m1"}', "bad_message", "m1"),
            ('{"type": 7, "id": "m2"}', "bad_message", "m2"),
            ('{"type": "dance", "id": "m3"}', "unknown_type", "m3"),
            ('{"type": "command", "base": 0, "action": {"kind": "startTimer"}}', "bad_message", None),
            ('{"type": "logout", "id": ""}', "bad_message", None),
            ('{"type": "logout", "id": 12}', "bad_message", None),
            ("[" * 100 + "]" * 100, "bad_json", None),
        ]
        for text, code, message_id in cases:
            await live.ws.send(text)
            error = await live.until(lambda m: m["type"] == "error")
            assert error["code"] == code, (text, error)
            assert error.get("id") == message_id, (text, error)
            assert error["message"].endswith("."), error
        await live.send({"type": "logout", "id": "still-here"})
        assert (await live.session_reply("still-here"))["role"] == "spectator"
        await live.close()
    run(scenario())


def test_a_spectator_command_is_forbidden_and_changes_nothing(server):
    async def scenario():
        live = await Live.connect(server)
        snapshot = await live.next()
        reply = await live.command({"kind": "addPlayer", "name": "Mallory"}, base=snapshot["version"])
        assert reply["type"] == "rejected" and reply["code"] == "forbidden"
        assert server.health()["version"] == snapshot["version"]
    run(scenario())


def test_every_action_field_is_checked(server):
    async def scenario():
        live = await Live.connect(server)
        await live.next()
        assert (await live.register("checker"))["role"] == "organiser"
        bad_actions = [
            {"kind": "addPlayer"}, {"kind": "addPlayer", "name": ""}, {"kind": "addPlayer", "name": "x" * 51},
            {"kind": "addPlayer", "name": "Ann", "age": 0}, {"kind": "addPlayer", "name": "Ann", "age": "31"},
            {"kind": "addPlayer", "name": "Ann", "skill": "legend"}, {"kind": "addPlayer", "name": "Ann", "position": 3},
            {"kind": "addPlayer", "name": "Ann", "favouriteTeam": "y" * 51}, {"kind": "editPlayer", "playerId": "1"},
            {"kind": "createGather", "playerIds": [1]}, {"kind": "createGather", "playerIds": [1, 1]},
            {"kind": "assign", "playerId": 1, "to": "C"}, {"kind": "renameTeam", "team": "C", "name": "x"},
            {"kind": "score", "team": "A", "delta": 2}, {"kind": "setTimer", "minutes": 60, "seconds": 0},
            {"kind": "setTimer", "minutes": 1, "seconds": -1}, {"kind": "setTimer", "minutes": 1.5, "seconds": 0},
            {"kind": "launchRocket"}, "not an object", None,
        ]
        version = live.version
        for action in bad_actions:
            reply = await live.command(action)
            assert reply["type"] == "rejected" and reply["code"] == "invalid", (action, reply)
            assert reply["version"] == version
        for base in (-1, version + 1, "0", 1.5, None):
            message = {"type": "command", "id": f"base-{base}", "action": {"kind": "addPlayer", "name": "Ann"}}
            if base is not None:
                message["base"] = base
            await live.send(message)
            reply = await live.reply(f"base-{base}")
            assert reply["type"] == "rejected" and reply["code"] == "invalid", (base, reply)
        assert server.health()["version"] == version
    run(scenario())


def test_five_failed_logins_lock_the_username_for_a_minute_right_password_included(server):
    async def scenario():
        live = await Live.connect(server)
        await live.next()
        assert (await live.register("locked"))["role"] == "organiser"
        await live.send({"type": "logout", "id": "out"})
        await live.session_reply("out")
        for attempt in range(5):
            other = await Live.connect(server)
            reply = await other.login("locked", "wrong password")
            assert reply["code"] == "unauthorized", reply
            await other.close()
        reply = await live.login("locked", PASSWORD)
        assert reply["type"] == "error" and reply["code"] == "rate_limited", reply
    run(scenario())


@pytest.fixture()
def fresh_server():
    """The lockout test above leaves 127.0.0.1 locked out of logins for a minute."""
    with GatherServer() as running:
        yield running


@pytest.mark.timing
@pytest.mark.mostly_waits
def test_commands_beyond_the_token_bucket_are_rate_limited(fresh_server):
    server = fresh_server

    async def scenario():
        live = await Live.connect(server)
        await live.next()
        assert (await live.register("flooder"))["role"] == "organiser"
        started = time.monotonic()
        for i in range(150):
            await live.send({"type": "command", "id": f"flood-{i}", "base": live.version,
                             "action": {"kind": "addPlayer", "name": f"F{i}"}})
        sent_in = time.monotonic() - started
        codes = []
        while len(codes) < 150:
            message = await live.next(timeout=10)
            if message.get("id", "").startswith("flood-"):
                codes.append(message.get("code", message["type"]))
        answered_in = time.monotonic() - started
        # Bursts of 100, then 20 a second: every command was judged before its answer arrived, so
        # whatever this machine's speed, no more than this many can have been let in.
        allowed = 100 + 20 * answered_in + 1
        assert answered_in < 2.4, f"too slow to tell the limit apart ({answered_in:.2f} s)"
        assert codes.count("ack") <= allowed, (codes.count("ack"), sent_in, answered_in)
        assert codes.count("rate_limited") >= max(1, 150 - allowed), (codes, sent_in, answered_in)
        assert set(codes) == {"ack", "rate_limited"}, codes
        # A limited command changed nothing: exactly the acknowledged players exist.
        state = await live.wait_snapshot(live.version)
        assert len([p for p in state["players"] if p["name"].startswith("F")]) == codes.count("ack")
    run(scenario())


def test_no_secret_reaches_the_logs():
    with GatherServer(extra_args=("--log-level", "trace")) as server:
        async def scenario():
            live = await Live.connect(server)
            await live.next()
            session = await live.register("secretive", "my-very-secret-pw")
            token = session["token"]
            await live.login("secretive", "another-wrong-pw")
            other = await Live.connect(server)
            await other.send({"type": "resume", "id": "r", "token": token})
            await other.session_reply("r")
            return token
        token = run(scenario())
        server.stop()
        logs = "\n".join(server.output + server.errors)
        for secret in ("my-very-secret-pw", "another-wrong-pw", token, "$scrypt$"):
            assert secret not in logs, f"{secret[:6]}… appeared in the logs"


@contextlib.contextmanager
def tls_control_listener(server):
    """`openssl s_server` with the server's own certificate and key, allowing everything
    (TLS 1.1, CBC suites, SECLEVEL 0) on a free loopback port (`-www`: it answers by itself,
    never waiting on its stdin): the control that shows each
    client below CAN negotiate what it asks for, so a refusal by our server is its policy."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    control = subprocess.Popen(
        ["openssl", "s_server", "-cert", os.path.join(server.cert_dir, "server.pem"),
         "-key", os.path.join(server.cert_dir, "server-key.pem"), "-accept", f"127.0.0.1:{port}",
         "-cipher", "DEFAULT:@SECLEVEL=0", "-www"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            line = control.stdout.readline()
            if not line or "ACCEPT" in line:
                break
        assert control.poll() is None, "openssl s_server did not start"
        yield port
    finally:
        control.kill()
        control.wait(timeout=5)


def weak_client(tls11=False, cipher=None):
    """A client at OpenSSL security level 0, so it really offers what it is told to."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        if tls11:
            context.set_ciphers("DEFAULT:@SECLEVEL=0")
            context.minimum_version = ssl.TLSVersion.TLSv1_1
            context.maximum_version = ssl.TLSVersion.TLSv1_1
        else:
            context.maximum_version = ssl.TLSVersion.TLSv1_2
            context.set_ciphers(f"{cipher}:@SECLEVEL=0")
    return context


def tls_handshake(port, context):
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
        with context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            return tls.version(), tls.cipher()[0]


def test_old_tls_and_weak_ciphers_are_refused(server):
    assert tls_handshake(server.port, server.ssl_context())[0] in ("TLSv1.2", "TLSv1.3")
    attempts = {"TLS 1.1": weak_client(tls11=True)}
    # CBC suites the server's ECDSA certificate could negotiate if the policy let it.
    for cipher in ("ECDHE-ECDSA-AES128-SHA", "ECDHE-ECDSA-AES256-SHA384"):
        attempts[cipher] = weak_client(cipher=cipher)
    with tls_control_listener(server) as control_port:
        for name, context in attempts.items():
            version, cipher = tls_handshake(control_port, context)
            assert version == ("TLSv1.1" if name == "TLS 1.1" else "TLSv1.2"), (name, version)
            if name != "TLS 1.1":
                assert cipher == name
    for name, context in attempts.items():
        with pytest.raises(ssl.SSLError):
            tls_handshake(server.port, context)
            pytest.fail(f"{name} was accepted")


def test_http2_is_not_offered(server):
    context = server.ssl_context()
    context.set_alpn_protocols(["h2", "http/1.1"])
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as raw:
        with context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            assert tls.selected_alpn_protocol() in (None, "http/1.1")


def test_the_connection_limit_is_a_clear_refusal():
    with GatherServer(extra_args=("--max-connections", "3")) as server:
        async def scenario():
            clients = [await Live.connect(server) for _ in range(3)]
            with pytest.raises(websockets.exceptions.InvalidStatus) as refused:
                await Live.connect(server)
            assert refused.value.response.status_code == 503
            await clients[0].close()
            await asyncio.sleep(0.5)
            again = await Live.connect(server)
            await again.close()
        run(scenario())


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])


@pytest.mark.timing
def test_a_stalled_client_does_not_delay_200_others_and_costs_bounded_memory():
    with GatherServer() as server:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))

        async def scenario():
            # The stalled client: a raw TLS socket that completes the handshake and never reads again.
            status, _, stalled, _ = rawws.handshake(server)
            assert " 101 " in status
            stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            watchers = [await Live.connect(server, source=phone_address(i)) for i in range(200)]
            await asyncio.gather(*(w.next() for w in watchers))
            organiser = await Live.connect(server)
            await organiser.next()
            assert (await organiser.register("stress"))["role"] == "organiser"
            memory_before = rss_kb(server.process.pid)
            # Long names make every snapshot big, so the stalled socket's buffers fill quickly.
            lags = []
            for i in range(100):
                sent = time.monotonic()
                reply = await organiser.command({"kind": "addPlayer", "name": f"Player {i} " + "x" * 40})
                assert reply["type"] == "ack", reply
                await asyncio.gather(*(w.wait_snapshot(reply["version"], timeout=10) for w in watchers))
                lags.append(time.monotonic() - sent)
                await asyncio.sleep(0.05)
            memory_after = rss_kb(server.process.pid)
            stalled.close()
            return lags, memory_before, memory_after
        lags, before, after = run(scenario())
        lags.sort()
        print(f"200 watchers + 1 stalled: p50 {lags[50]*1000:.1f} ms, max {lags[-1]*1000:.1f} ms, "
              f"RSS {before} → {after} KB")
        assert lags[-1] < 2.0, "a stalled client delayed the others"
        assert after - before < 64 * 1024, "memory grew without bound"


def test_a_silent_connection_is_pinged_then_closed_while_a_live_one_stays():
    with GatherServer(extra_args=("--ping-interval", "1")) as server:
        status, _, silent, rest = rawws.handshake(server)
        assert status.startswith("HTTP/1.1 101")
        watched = {}

        def watch_silent():  # reads everything the server sends, answers nothing (not even pings)
            started = time.monotonic()
            watched["opcodes"], watched["closed"] = rawws.watch(silent, rest, seconds=8)
            watched["seconds"] = time.monotonic() - started

        watcher = threading.Thread(target=watch_silent)
        watcher.start()

        async def answering_client_survives():
            live = await Live.connect(server)  # the websockets library answers pings by itself
            await asyncio.sleep(4)
            await live.send({"type": "hello", "id": "still-here"})
            reply = await live.until(lambda m: m.get("id") == "still-here")
            await live.close()
            return reply

        reply = run(answering_client_survives())
        watcher.join(10)
        silent.close()
        assert reply["type"] == "error" and reply["code"] == "unknown_type"
        assert 0x9 in watched["opcodes"], f"no ping was sent to a silent connection (frames {watched['opcodes']})"
        assert watched["closed"], "a connection that never answered a ping was not closed"
        assert watched["seconds"] < 8


def test_a_client_that_stops_reading_is_closed_after_the_stall_timeout():
    with GatherServer(extra_args=("--stall-timeout", "2")) as server:
        status, _, stalled, _ = rawws.handshake(server)
        assert " 101 " in status

        async def flood():
            # Four organisers (the rate limit is per connection) make big snapshots and many of
            # them: more bytes than the kernel buffers between the server and the stalled socket.
            organisers = [await Live.connect(server) for _ in range(4)]
            for index, organiser in enumerate(organisers):
                await organiser.next()
                assert (await organiser.register(f"flood{index}"))["role"] == "organiser"

            async def work(organiser, actions):
                for action in actions:
                    while True:
                        reply = await organiser.command(action)
                        if reply["type"] == "ack":
                            break
                        assert reply.get("code") == "rate_limited", reply
                        await asyncio.sleep(0.2)

            team = "F" * 50
            await asyncio.gather(*(work(o, [{"kind": "addPlayer", "name": f"{i:03d} " + "n" * 45, "favouriteTeam": team}
                                            for i in range(index, 200, 4)]) for index, o in enumerate(organisers)))
            started = time.monotonic()
            renames = 0
            while time.monotonic() - started < 20 and server.health()["connections"] > 4:
                await asyncio.gather(*(work(o, [{"kind": "editPlayer", "playerId": index + 1,
                                                 "name": f"renamed {renames} " + "r" * 30}]) for index, o in enumerate(organisers)))
                renames += 1
            for organiser in organisers:
                await organiser.close()
            return renames

        renames = run(flood())
        assert server_closed(server, wait=8), f"still open after {renames} rounds of renames"
        stalled.close()
        assert any("stopped reading" in line for line in server.output + server.errors), \
            "the server did not say why it closed the connection"


def server_closed(server, wait: float = 0) -> bool:
    """True once the server counts no live connection (the stalled one was the last)."""
    deadline = time.monotonic() + wait
    while True:
        if server.health()["connections"] == 0:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.2)
