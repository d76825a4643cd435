"""The data folder guards its own database and admin socket (docs/PROTOCOL.md "One owner per data
folder" and "The laptop's admin socket"): the lock is on the database file itself, so deleting
`gather.lock` and `admin.sock` lets neither a second server nor the CLI in; the server refuses a
folder another user owns or others can write; the CLI sends nothing to a socket whose listener is
not the folder's owner. The other user is a real one (`nobody`), its listener a real process."""
import asyncio
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import pytest

from gatherlib import BINARY, PUBLIC, GatherServer, run, stop_process
from test_organisers import ask, cli, organiser

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="another user's files and processes need root to set up")


def serve(data_dir: str, cert_dir: str, timeout: float = 20) -> subprocess.CompletedProcess:
    """`gather serve` on `data_dir`, bounded: one that starts (today's bug) is stopped and its
    output returned with its code as None, so the assertion says what happened."""
    process = subprocess.Popen([BINARY, "serve", "--host", "127.0.0.1", "--port", "0", "--spectator-port", "0",
                                "--data-dir", data_dir, "--cert-dir", cert_dir, "--public", PUBLIC,
                                "--invite-code", "TESTCODE1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = process.communicate(timeout=timeout)
        return subprocess.CompletedProcess(process.args, process.returncode, out, err)
    except subprocess.TimeoutExpired:
        stop_process(process, signal.SIGINT)
        out, err = process.communicate()
        return subprocess.CompletedProcess(process.args, None, out, err)


# The test's own Python may live where `nobody` cannot reach (pyenv under /root); Debian's can.
OTHER_USERS_PYTHON = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable

LISTENER = r"""
import socket, sys
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(sys.argv[1])
server.listen(4)
print("listening", flush=True)
server.settimeout(30)
connection, _ = server.accept()
connection.settimeout(3)
heard = b""
try:
    while True:
        chunk = connection.recv(65536)
        if not chunk:
            break
        heard += chunk
except socket.timeout:
    pass
print(f"heard {len(heard)} bytes: {heard!r}", flush=True)
"""


# MARK: - Point 6: the database file itself is locked

def test_deleting_the_lock_file_and_the_socket_lets_neither_a_second_server_nor_the_cli_in():
    async def scenario(server):
        ann, _ = await organiser(server, "ann")
        alice, _ = await organiser(server, "alice")
        for name in ("gather.lock", "admin.sock"):
            path = os.path.join(server.data_dir, name)
            if os.path.exists(path):
                os.unlink(path)
        second = await asyncio.to_thread(serve, server.data_dir, server.cert_dir)
        assert second.returncode == 1, (second.returncode, second.stdout[-300:], second.stderr[-300:])
        assert f"already served by PID {server.process.pid}" in second.stderr, second.stderr
        assert "listening on port" not in second.stdout
        removal = await asyncio.to_thread(cli, server, "remove", "alice", check=False)
        assert removal.returncode == 1, (removal.stdout, removal.stderr)
        assert f"served by PID {server.process.pid}" in removal.stderr, removal.stderr
        assert "nothing was changed" in removal.stderr and "Removed" not in removal.stdout
        # A backup takes no lock of ours: it still reads the served database.
        copy = os.path.join(os.path.dirname(server.data_dir), "copy.sqlite")
        backup = await asyncio.to_thread(subprocess.run, [BINARY, "backup", copy, "--data-dir", server.data_dir],
                                         capture_output=True, text=True, timeout=60)
        assert backup.returncode == 0 and os.path.getsize(copy) > 0, backup.stderr
        # Alice still commands the one server, and still is an organiser of it.
        assert (await alice.command({"kind": "addPlayer", "name": "Alice"}))["type"] == "ack"
        listed = (await ask(ann, {"type": "organisers"}))["organisers"]
        assert [o["username"] for o in listed] == ["ann", "alice"]
        await ann.close()
        await alice.close()

    with GatherServer() as server:
        run(scenario(server))
        server.stop()
        # Stopped, the folder is free again: the CLI works on the database, a server starts.
        assert "Removed alice" in cli(server, "remove", "alice").stdout
        server.start()


def test_the_cli_sends_nothing_to_a_socket_of_the_same_user_that_is_not_the_serving_process():
    async def scenario(server):
        alice, _ = await organiser(server, "alice")
        socket_path = os.path.join(server.data_dir, "admin.sock")
        os.unlink(socket_path)  # the serving process's socket gone, another process of the same user in its place
        listener = subprocess.Popen([sys.executable, "-c", LISTENER, socket_path], stdout=subprocess.PIPE, text=True)
        try:
            assert listener.stdout.readline().strip() == "listening"
            removal = await asyncio.to_thread(cli, server, "remove", "alice", check=False)
            heard = await asyncio.to_thread(lambda: listener.communicate(timeout=15)[0])
        finally:
            stop_process(listener, signal.SIGKILL)
        assert removal.returncode == 1, (removal.stdout, removal.stderr)
        assert f"is answered by PID {listener.pid}, but the data folder {server.data_dir} is served by PID " \
            f"{server.process.pid}; nothing was sent" in removal.stderr, removal.stderr
        assert "heard 0 bytes" in heard, heard
        assert (await alice.command({"kind": "addPlayer", "name": "Alice"}))["type"] == "ack", "alice still organises"
        await alice.close()

    with GatherServer() as server:
        run(scenario(server))


def test_a_database_moved_behind_a_symbolic_link_is_served_and_locked_the_same(tmp_path):
    data, elsewhere = tmp_path / "data", tmp_path / "other-disk"
    with GatherServer(data_dir=str(data)):
        pass
    elsewhere.mkdir(mode=0o700)
    os.rename(data / "gather.sqlite", elsewhere / "gather.sqlite")
    os.symlink(elsewhere / "gather.sqlite", data / "gather.sqlite")
    with GatherServer(data_dir=str(data)) as server:
        os.unlink(data / "admin.sock")
        second = serve(str(data), server.cert_dir)
        assert second.returncode == 1 and f"already served by PID {server.process.pid}" in second.stderr, second.stderr


# MARK: - Point 7: whose folder, whose socket

@pytest.fixture
def shared_root():
    """A temporary folder other users can reach into (0755), removed afterwards."""
    root = tempfile.mkdtemp(prefix="gather-e2e-owner-")
    os.chmod(root, 0o755)
    yield root
    shutil.rmtree(root, ignore_errors=True)


@as_root
def test_the_server_refuses_a_data_folder_another_user_owns(shared_root):
    nobody = pwd.getpwnam("nobody")
    data = os.path.join(shared_root, "data")
    os.mkdir(data, 0o700)
    os.chown(data, nobody.pw_uid, nobody.pw_gid)
    refused = serve(data, os.path.join(shared_root, "certs"))
    assert refused.returncode == 1, (refused.returncode, refused.stderr[-400:])
    assert f"belongs to user nobody (uid {nobody.pw_uid})" in refused.stderr, refused.stderr
    assert f"chown -R root {data}" in refused.stderr, refused.stderr
    assert "listening on port" not in refused.stdout
    assert os.listdir(data) == [], "nothing is made in a folder refused"


@as_root
@pytest.mark.parametrize("mode", [0o777, 0o770, 0o757])
def test_the_server_refuses_a_data_folder_other_users_can_write(shared_root, mode):
    data = os.path.join(shared_root, "data")
    os.mkdir(data)
    os.chmod(data, mode)
    refused = serve(data, os.path.join(shared_root, "certs"))
    assert refused.returncode == 1, (refused.returncode, refused.stderr[-400:])
    assert f"can write to the data folder {data} (mode {mode:o})" in refused.stderr, refused.stderr
    assert f"chmod 700 {data}" in refused.stderr
    assert os.listdir(data) == []
    # Made private as told, the same folder serves.
    os.chmod(data, 0o700)
    with GatherServer(data_dir=data) as server:
        assert server.health()["status"] == "ok"




@as_root
@pytest.mark.parametrize("command", [("reset-password", "alice"), ("list",)])
def test_the_cli_sends_nothing_to_a_socket_another_user_listens_on(shared_root, command):
    nobody = pwd.getpwnam("nobody")
    data = os.path.join(shared_root, "data")
    os.mkdir(data)
    os.chmod(data, 0o777)  # left writable: another user got a listener of theirs in as admin.sock
    socket_path = os.path.join(data, "admin.sock")
    listener = subprocess.Popen([OTHER_USERS_PYTHON, "-c", LISTENER, socket_path], stdout=subprocess.PIPE, text=True,
                                user=nobody.pw_uid, group=nobody.pw_gid, extra_groups=[], cwd=shared_root)
    try:
        assert listener.stdout.readline().strip() == "listening"
        assert os.stat(socket_path).st_uid == nobody.pw_uid
        asked = cli(data, *command, check=False)
        heard = listener.communicate(timeout=15)[0]
    finally:
        stop_process(listener, signal.SIGKILL)
    assert asked.returncode == 1, (asked.stdout, asked.stderr)
    assert f"held by user nobody (uid {nobody.pw_uid}), not by the data folder's owner user root (uid 0)" \
        in asked.stderr, asked.stderr
    assert "nothing was sent" in asked.stderr and f"chmod 700 {data}" in asked.stderr
    assert "New password" not in asked.stdout
    assert "heard 0 bytes" in heard, heard
