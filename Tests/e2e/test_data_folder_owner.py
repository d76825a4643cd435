"""One owner per data folder, and the laptop's admin socket held to one deadline (docs/PROTOCOL.md
"The laptop's admin socket"): a second `gather serve` on a served folder is refused, the CLI never
writes round a running server, a slow admin client cannot hold the admin thread, and a password
reset carries a password (the server hashes it), never a hash."""
import asyncio
import json
import os
import re
import socket
import subprocess
import threading
import time

import pytest

from gatherlib import BINARY, PASSWORD, PUBLIC, GatherServer, Live, run
from test_organisers import ask, cli, organiser


def second_serve(server: GatherServer) -> subprocess.CompletedProcess:
    """`gather serve` on `server`'s data folder, on ports of its own; bounded in time."""
    return subprocess.run([BINARY, "serve", "--host", "127.0.0.1", "--port", "0", "--spectator-port", "0",
                           "--data-dir", server.data_dir, "--cert-dir", server.cert_dir, "--public", PUBLIC,
                           "--invite-code", server.invite_code], capture_output=True, text=True, timeout=30)


def test_a_second_server_on_a_served_folder_is_refused_and_the_first_keeps_working():
    async def still_working(server):
        ann, _ = await organiser(server, "ann")
        assert (await ann.command({"kind": "addPlayer", "name": "Ann"}))["type"] == "ack"
        await ann.close()

    with GatherServer() as server:
        refused = second_serve(server)
        assert refused.returncode != 0, refused.stdout
        assert f"already served by PID {server.process.pid}" in refused.stderr, refused.stderr
        assert "listening on port" not in refused.stdout
        run(still_working(server))
        assert os.path.exists(os.path.join(server.data_dir, "admin.sock")), "the first server's socket stays"


def test_the_cli_refuses_when_the_running_server_has_no_socket_and_changes_nothing():
    async def scenario(server):
        ann, _ = await organiser(server, "ann")
        dave, _ = await organiser(server, "dave")
        socket_path = os.path.join(server.data_dir, "admin.sock")
        hidden = socket_path + ".moved"
        os.rename(socket_path, hidden)  # a clean-up script took it
        for args in (("remove", "dave"), ("make-owner", "dave"), ("reset-password", "dave"), ("list",)):
            refused = await asyncio.to_thread(cli, server, *args, check=False)
            assert refused.returncode == 1, (args, refused.stdout)
            assert f"served by PID {server.process.pid}" in refused.stderr, refused.stderr
            assert "admin socket" in refused.stderr and "nothing was changed" in refused.stderr, refused.stderr
            assert "Removed" not in refused.stdout and "New password" not in refused.stdout
        # Dave still organises, and still is an organiser.
        assert (await dave.command({"kind": "addPlayer", "name": "Dave"}))["type"] == "ack"
        listed = (await ask(ann, {"type": "organisers"}))["organisers"]
        assert [o["username"] for o in listed] == ["ann", "dave"]
        # With its socket back, the same command reaches the server and takes effect at once.
        os.rename(hidden, socket_path)
        assert "Removed dave" in (await asyncio.to_thread(cli, server, "remove", "dave")).stdout
        told = await dave.until(lambda m: m["type"] == "session" and m.get("reason") == "removed", 10)
        assert told["role"] == "spectator"
        await ann.close()
        await dave.close()

    with GatherServer() as server:
        run(scenario(server))


def test_the_cli_without_a_server_writes_directly_even_after_a_crash():
    async def seed(server):
        for name in ("ann", "dave"):
            live, _ = await organiser(server, name)
            await live.close()

    with GatherServer() as server:
        run(seed(server))
        server.stop(9)  # killed: a stale socket stays behind, the kernel's lock on the database does not
        assert os.path.exists(os.path.join(server.data_dir, "admin.sock"))
        assert "Removed dave" in cli(server, "remove", "dave").stdout
        rows = cli(server, "list").stdout.splitlines()[1:]
        assert [row.split()[0] for row in rows] == ["ann"]
        server.start()  # and a server starts on it as before


# MARK: - The admin socket

def raw_request(path: str, line: bytes, timeout: float = 10) -> dict:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(timeout)
        client.connect(path)
        client.sendall(line)
        received = b""
        while not received.endswith(b"\n"):
            chunk = client.recv(4096)
            if not chunk:
                break
            received += chunk
        return json.loads(received)


@pytest.mark.timing
@pytest.mark.mostly_waits
def test_a_slow_admin_client_is_dropped_at_the_deadline_and_the_laptop_is_served_meanwhile():
    with GatherServer() as server:
        path = os.path.join(server.data_dir, "admin.sock")
        dropped = {}

        def dribble():
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
                client.connect(path)
                client.settimeout(1.5)
                started = time.monotonic()
                for byte in b'{"request":"list"}'[:8]:  # one byte every 1.5 s: 12 s at most
                    try:
                        client.sendall(bytes([byte]))
                        answer = client.recv(4096)
                    except socket.timeout:
                        continue
                    except OSError:
                        answer = b""
                    dropped["after"] = time.monotonic() - started
                    dropped["answer"] = answer
                    return
        slow = threading.Thread(target=dribble, daemon=True)
        slow.start()
        time.sleep(0.5)
        started = time.monotonic()
        listed = cli(server, "list", check=False)
        served_after = time.monotonic() - started
        slow.join(15)
        assert "after" in dropped, "the slow client was never dropped"
        assert 1.5 <= dropped["after"] <= 3.5, dropped
        assert json.loads(dropped["answer"]) == {"ok": False, "message": (
            "The request was not complete within 2 seconds; nothing was done.")}
        assert listed.returncode == 0, listed.stderr
        assert served_after < 5, served_after  # the CLI gives up at 5 s: held past that, it fails
        # The server answers the slow client, then logs: the line may follow the answer by a moment.
        deadline = time.monotonic() + 2
        while "admin socket: dropped a request" not in "\n".join(server.output + server.errors) \
                and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "admin socket: dropped a request" in "\n".join(server.output + server.errors)


def test_a_reset_carries_a_password_the_server_hashes_and_never_a_hash():
    async def scenario(server):
        cid, _ = await organiser(server, "cid")
        await cid.close()
        path = os.path.join(server.data_dir, "admin.sock")
        # A hash of the caller's choosing (here a weak, made-up one) is not a request at all.
        planted = raw_request(path, b'{"request":"resetPassword","username":"cid","passwordHash":"$scrypt$ln=1$x$y"}\n')
        assert planted == {"ok": False, "message": "The request could not be read."}
        short = raw_request(path, b'{"request":"resetPassword","username":"cid","newPassword":"short"}\n')
        assert short["ok"] is False
        fresh = await Live.connect(server)
        await fresh.next()
        assert (await fresh.login("cid", PASSWORD))["role"] == "organiser", "the password is unchanged"
        # A password is hashed by the server and then logs in.
        chosen = raw_request(path, b'{"request":"resetPassword","username":"cid","newPassword":"chosen by laptop 7"}\n')
        assert chosen["ok"] is True, chosen
        await fresh.until(lambda m: m["type"] == "session" and m.get("reason") == "password_changed", 10)
        again = await Live.connect(server)
        await again.next()
        assert (await again.login("cid", "chosen by laptop 7"))["role"] == "organiser"
        for live in (fresh, again):
            await live.close()
        log = "\n".join(server.output + server.errors)
        assert "chosen by laptop 7" not in log and "reset-password cid" in log

    with GatherServer() as server:
        run(scenario(server))
