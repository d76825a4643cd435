"""The laptop's admin channel under load and at its limits (docs/PROTOCOL.md "The laptop's admin
socket"; README "Options"): silent connections do not hold the laptop's request, a cap on the
connections answered at once refuses one more out loud, a name longer than any organiser's is
refused with the rule instead of "the running server did not answer", and the invite code can
come from a file or the environment, which other users' `ps` does not show."""
import asyncio
import json
import os
import re
import socket
import subprocess
import time

import pytest

from gatherlib import BINARY, PUBLIC, GatherServer, Live, run
from test_organisers import cli

CONNECTION_LIMIT = 16  # AdminSocketServer.connectionLimit


def silent(path: str) -> socket.socket:
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(5)
    client.connect(path)
    return client


def read_line(client: socket.socket) -> bytes:
    received = b""
    while not received.endswith(b"\n"):
        chunk = client.recv(4096)
        if not chunk:
            break
        received += chunk
    return received


@pytest.mark.timing
def test_silent_connections_do_not_hold_the_laptops_request_and_one_past_the_cap_is_told():
    with GatherServer() as server:
        path = os.path.join(server.data_dir, "admin.sock")
        quiet = [silent(path) for _ in range(10)]
        started = time.monotonic()
        listed = cli(server, "list", check=False)
        answered_after = time.monotonic() - started
        assert listed.returncode == 0, listed.stderr
        assert "No organisers yet" in listed.stdout
        assert answered_after < 1.5, f"held {answered_after:.1f} s behind 10 silent connections"

        # Up to the cap, every connection is being answered; one more is told so at once.
        for client in quiet:
            client.close()  # each of their threads ends at the close
        time.sleep(0.3)
        quiet = [silent(path) for _ in range(CONNECTION_LIMIT)]
        extra = silent(path)
        started = time.monotonic()
        refusal = json.loads(read_line(extra))
        assert time.monotonic() - started < 1.0
        assert refusal == {"ok": False, "message": f"The server is answering {CONNECTION_LIMIT} other admin requests; "
                           "nothing was done. Try again in a few seconds."}
        assert extra.recv(10) == b"", "and closed"
        # Each silent one is dropped at its 2 s deadline, and the laptop is served again.
        for client in quiet:
            assert json.loads(read_line(client))["message"].startswith("The request was not complete within 2 seconds")
            client.close()
        extra.close()
        assert cli(server, "list").returncode == 0
        assert "admin socket: refused a connection beyond the limit" in "\n".join(server.output + server.errors)


def test_a_name_longer_than_any_organisers_is_refused_with_the_rule():
    with GatherServer() as server:
        long_name = "x" * 5000
        for args in (("remove", long_name), ("make-owner", long_name), ("reset-password", long_name)):
            refused = cli(server, *args, check=False)
            assert refused.returncode != 0, refused.stdout
            assert "usernames are 3–32 characters (this one has 5000)" in refused.stderr, refused.stderr
            assert "did not answer" not in refused.stderr and "New password" not in refused.stdout
        assert "characters, letters, digits" in cli(server, "remove", "a b", check=False).stderr
        # A client of its own sending more than 4 KiB on the socket is told the cap, not just closed.
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(5)
            client.connect(os.path.join(server.data_dir, "admin.sock"))
            client.sendall(json.dumps({"request": "remove", "username": long_name}).encode() + b"\n")
            assert json.loads(read_line(client)) == {
                "ok": False, "message": "The request is longer than 4096 bytes; nothing was done."}
        assert cli(server, "list").returncode == 0


def test_the_invite_code_from_a_file_stays_out_of_ps(tmp_path):
    code_file = tmp_path / "invite"
    code_file.write_text("FromAFile-2026\n")
    os.chmod(code_file, 0o600)

    async def register(server, code):
        live = await Live.connect(server)
        await live.next()
        session = await live.register("filed", invite=code)
        await live.close()
        return session

    with GatherServer(invite_code=None, extra_args=("--invite-code-file", str(code_file))) as server:
        assert "  Invite code for organisers: FromAFile-2026" in server.output
        with open(f"/proc/{server.process.pid}/cmdline", "rb") as cmdline:
            shown = cmdline.read()
        assert b"--invite-code-file" in shown and b"FromAFile-2026" not in shown
        assert run(register(server, "fromafile-2026"))["role"] == "organiser"

    help_text = subprocess.run([BINARY, "serve", "--help"], capture_output=True, text=True, timeout=30).stdout
    flat = " ".join(help_text.split())
    assert "--invite-code-file" in flat and "GATHER_INVITE_CODE" in flat
    assert "--invite-code-file and GATHER_INVITE_CODE keep it out" in flat, flat

    def refused(*args: str) -> str:
        result = subprocess.run([BINARY, "serve", "--port", "0", "--spectator-port", "0", "--public", PUBLIC,
                                 "--data-dir", str(tmp_path / "data"), *args], capture_output=True, text=True, timeout=30)
        assert result.returncode != 0 and "listening" not in result.stdout, result.stdout
        return result.stderr
    assert "not both" in refused("--invite-code", "ABCDEFGH1", "--invite-code-file", str(code_file))
    assert "cannot be read: No such file or directory" in refused("--invite-code-file", str(tmp_path / "missing"))
    (tmp_path / "big").write_text("A" * 5000)
    assert "larger than 4096 bytes" in refused("--invite-code-file", str(tmp_path / "big"))
    (tmp_path / "blank").write_text("\n \n")
    assert "is empty" in refused("--invite-code-file", str(tmp_path / "blank"))
    (tmp_path / "spaced").write_text("two words here\n")
    assert "must be 8–64 letters" in refused("--invite-code-file", str(tmp_path / "spaced"))
    assert "not a regular file" in refused("--invite-code-file", str(tmp_path))
    assert not (tmp_path / "data").exists(), "nothing made for a refused start"
