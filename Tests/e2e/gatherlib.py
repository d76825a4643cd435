"""Start the real `gather` binary and talk gather.v1 (or gather.v2) to it over verified wss.

Shared by every end-to-end test: no mocks, `--port 0` (the server picks a free loopback port
and prints it), temporary data and certificate folders, and a client that trusts only the CA
the server generated.
"""
from __future__ import annotations

import asyncio
import atexit
import http.client
import json
import os
import shutil
import signal
import ssl
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path

import jsonpatch
import websockets

ROOT = Path(__file__).resolve().parents[2]
BINARY = os.environ.get("GATHER_BIN", str(ROOT / ".build" / "debug" / "gather"))
PUBLIC = str(ROOT / "Public")
INVITE = "TESTCODE1"
PASSWORD = "correct horse battery"


# MARK: - Child processes (shared with natslib's nats-server and relay)

def stop_process(process: subprocess.Popen, sig: int, timeout: float = 10) -> int:
    """Sends `sig` unless the process has exited, waits up to `timeout` s, then kills it; its exit code."""
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
    return process.returncode


def wait_ready(process: subprocess.Popen, ready: threading.Event, timeout: float, interval: float, failure):
    """Waits for `ready` at most `timeout` s; a process that exits or is late is killed and
    `RuntimeError(failure())` raised, `failure` giving the last lines it printed."""
    deadline = time.monotonic() + timeout
    while not ready.wait(interval):
        if process.poll() is not None or time.monotonic() > deadline:
            stop_process(process, signal.SIGKILL)
            raise RuntimeError(failure())


def spawn_until_ready(args: list[str], on_line, output: list[str], errors: list[str], timeout: float, what: str,
                      interval: float = 0.05, **popen) -> subprocess.Popen:
    """Starts `args` with stdout and stderr copied line by line into `output` and `errors`;
    returns once `on_line` (seeing each stdout line) says the process is ready."""
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)
    ready = threading.Event()

    def pump(stream, sink, watch):
        for line in stream:
            sink.append(line.rstrip("\n"))
            if watch and on_line(line):
                ready.set()
    threading.Thread(target=pump, args=(process.stdout, output, True), daemon=True).start()
    threading.Thread(target=pump, args=(process.stderr, errors, False), daemon=True).start()
    wait_ready(process, ready, timeout, interval, lambda: f"{what} did not start: {errors[-5:]} {output[-5:]}")
    return process


class TemporaryProcess:
    """A child process with a temporary folder of its own (`self._tmp`): `with` starts it, and on
    the way out it is killed and the folder removed. Subclasses give `start()` and `stop(sig)`."""

    def cleanup(self):
        self.stop(signal.SIGKILL)
        self._tmp.cleanup()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.cleanup()


# The certificates the first server of this test process generated, given to every later server
# that was not handed a folder of its own: Chromium trusts a server by its key's SPKI pin, fixed
# when Chromium starts, so servers sharing one key let one browser serve many tests
# (pages_support's pool), and no server spends its start-up making keys.
_SHARED_CERTIFICATES: str | None = None


def _keep_certificates(cert_dir: str):
    global _SHARED_CERTIFICATES
    if _SHARED_CERTIFICATES is not None or not os.path.exists(os.path.join(cert_dir, "server.pem")):
        return
    kept = tempfile.mkdtemp(prefix="gather-e2e-certs-")
    atexit.register(shutil.rmtree, kept, True)
    for name in os.listdir(cert_dir):
        shutil.copy2(os.path.join(cert_dir, name), kept)
    _SHARED_CERTIFICATES = kept


class GatherServer(TemporaryProcess):
    """One real `gather serve` process on loopback. Without a `cert_dir` it starts with the
    certificates the first such server of this test process generated (`fresh_certificates`:
    its own, as a first start on a new machine makes them)."""

    def __init__(self, data_dir: str | None = None, cert_dir: str | None = None, port: int | None = None,
                 invite_code: str | None = INVITE, extra_args: tuple[str, ...] = (), spectator_door: bool = False,
                 env: dict | None = None, fresh_certificates: bool = False):
        self._tmp = tempfile.TemporaryDirectory(prefix="gather-e2e-")
        self.data_dir = data_dir or os.path.join(self._tmp.name, "data")
        self.cert_dir = cert_dir or os.path.join(self._tmp.name, "certs")
        self.shares_certificates = cert_dir is None and not fresh_certificates
        # 0 until the first start: the server picks a free port and prints it; a restart on the
        # same folders reuses it, so pages and clients find the server where it was.
        self.port = port or 0
        # None leaves --invite-code out: the code then comes from `env` or the server makes one up.
        self.invite_code = invite_code
        self.env = env
        self.arguments: list[str] = []
        self.extra_args = extra_args
        # The plain-HTTP spectator door is off unless a test needs it; then the server picks a
        # free port (`auto`) and prints it, like the TLS one.
        self.spectator_door = spectator_door
        self.spectator_port = 0
        # Session tokens by username, kept by the helpers that sign an organiser in again (a
        # restart on the same folders keeps them valid, as it keeps the phones' sessions).
        self.organiser_tokens: dict[str, str] = {}
        self.process: subprocess.Popen | None = None
        self.output: list[str] = []
        self.errors: list[str] = []

    # MARK: - Lifecycle

    def start(self, timeout: float = 30) -> "GatherServer":
        invite = ["--invite-code", self.invite_code] if self.invite_code is not None else []
        args = [BINARY, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--data-dir", self.data_dir,
                "--cert-dir", self.cert_dir, "--public", PUBLIC, *invite,
                "--spectator-port", "auto" if self.spectator_door else "0", *self.extra_args]
        self.arguments = args
        self.output, self.errors = [], []
        if self.shares_certificates and _SHARED_CERTIFICATES and not os.path.exists(self.cert_dir):
            os.makedirs(self.cert_dir, mode=0o700)
            for name in os.listdir(_SHARED_CERTIFICATES):
                shutil.copy2(os.path.join(_SHARED_CERTIFICATES, name), self.cert_dir)
        def on_line(line: str) -> bool:
            if line.startswith("gather: spectator port"):
                self.spectator_port = int(line.rsplit(" ", 1)[1])
            if line.startswith("gather: listening on port"):
                self.port = int(line.rsplit(" ", 1)[1])
                return True
            return False
        self.process = spawn_until_ready(args, on_line, self.output, self.errors, timeout, "gather", interval=0.1,
                                         cwd=self._tmp.name, env={**os.environ, **self.env} if self.env else None)
        if self.shares_certificates:
            _keep_certificates(self.cert_dir)
        return self

    def stop(self, sig: int = signal.SIGINT, timeout: float = 10) -> int | None:
        if self.process is None:
            return None
        code = stop_process(self.process, sig, timeout)
        self.process = None
        return code

    # MARK: - HTTP over verified TLS

    @property
    def ca_path(self) -> str:
        return os.path.join(self.cert_dir, "ca.pem")

    def ssl_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=self.ca_path)
        context.check_hostname = True
        return context

    @property
    def base_url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"wss://127.0.0.1:{self.port}/live"

    def get(self, path: str, headers: dict | None = None) -> tuple[int, dict, bytes]:
        connection = http.client.HTTPSConnection("127.0.0.1", self.port, context=self.ssl_context(), timeout=10)
        try:
            connection.request("GET", path, headers=headers or {})
            response = connection.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            connection.close()

    def health(self) -> dict:
        status, _, body = self.get("/healthz")
        assert status == 200
        return json.loads(body)


class Live:
    """A gather.v1 client: keeps the latest snapshot, and collects every message it reads.

    Offered gather.v2, it keeps the state up to date by applying each `patch` whose `from` is the
    version it holds (RFC 6902 through the PyPI `jsonpatch`, not our own code)."""

    def __init__(self, ws):
        self.ws = ws
        self.messages: list[dict] = []
        self.snapshot: dict | None = None
        self.version = 0

    @classmethod
    async def connect(cls, server: GatherServer, origin: str | None = None, source: str | None = None,
                      subprotocols: tuple[str, ...] = ("gather.v1",), url: str | None = None, **kwargs) -> "Live":
        """`url` defaults to the TLS endpoint; a `ws://` one (the spectator door) goes without TLS.
        `source` binds the client to a loopback address before connecting, as a phone has its
        own address on a LAN: tests that open many connections spread them with `phone_address`,
        so the server's per-address limits stay on."""
        headers = {"Origin": origin} if origin else None
        if source:
            kwargs["local_addr"] = (source, 0)
        url = url or server.ws_url
        context = server.ssl_context() if url.startswith("wss:") else None
        ws = await websockets.connect(url, ssl=context, subprotocols=list(subprotocols),
                                      additional_headers=headers, max_size=2**22, open_timeout=10, **kwargs)
        live = cls(ws)
        welcome = await live.next()
        assert welcome["type"] == "welcome", welcome
        return live

    async def next(self, timeout: float = 5) -> dict:
        raw = await asyncio.wait_for(self.ws.recv(), timeout)
        message = json.loads(raw)
        self.messages.append(message)
        if message["type"] == "snapshot":
            self.snapshot = message["state"]
            self.version = message["version"]
        elif message["type"] == "patch" and self.snapshot is not None and message["from"] == self.version:
            self.snapshot = jsonpatch.apply_patch(self.snapshot, message["ops"])
            self.version = message["version"]
        return message

    async def until(self, predicate, timeout: float = 5) -> dict:
        """Reads until a message satisfies `predicate`; returns it."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no matching message")
            message = await self.next(remaining)
            if predicate(message):
                return message

    async def reply(self, request_id: str, timeout: float = 10) -> dict:
        return await self.until(lambda m: m.get("id") == request_id and m["type"] in ("ack", "rejected", "error"),
                                timeout)

    async def session_reply(self, request_id: str, timeout: float = 10) -> dict:
        """`session` carries no id (docs/PROTOCOL.md); an `error` for the request does."""
        return await self.until(lambda m: m["type"] == "session" or (m["type"] == "error" and m.get("id") == request_id),
                                timeout)

    async def send(self, message: dict):
        await self.ws.send(json.dumps(message))

    async def register(self, username: str, password: str = PASSWORD, invite: str = INVITE) -> dict:
        request_id = uuid.uuid4().hex
        await self.send({"type": "register", "id": request_id, "username": username, "password": password,
                         "inviteCode": invite})
        return await self.session_reply(request_id)

    async def login(self, username: str, password: str = PASSWORD) -> dict:
        request_id = uuid.uuid4().hex
        await self.send({"type": "login", "id": request_id, "username": username, "password": password})
        return await self.session_reply(request_id)

    async def resume(self, token: str) -> dict:
        """Signs in with a saved session token, as a phone does after a reconnect: a SHA-256 on the
        server where `register` and `login` run scrypt (about 0.4 s of CPU)."""
        request_id = uuid.uuid4().hex
        await self.send({"type": "resume", "id": request_id, "token": token})
        return await self.session_reply(request_id)

    async def command(self, action: dict, base: int | None = None, command_id: str | None = None) -> dict:
        command_id = command_id or uuid.uuid4().hex
        await self.send({"type": "command", "id": command_id, "base": self.version if base is None else base,
                         "action": action})
        return await self.reply(command_id)

    async def wait_snapshot(self, version: int, timeout: float = 5) -> dict:
        if self.version >= version:
            return self.snapshot
        await self.until(lambda m: m["type"] in ("snapshot", "patch") and self.version >= version, timeout)
        return self.snapshot

    async def close(self):
        """Closes as a browser does, reading on until the server's close frame. A connection whose
        messages went unread has stopped reading from its socket (websockets pauses it past 16
        queued), so the server's close frame waits behind them and `ws.close()` alone gives up
        after its 10 s timeout with 1006: what was never read is read now and dropped."""
        async def drop_unread():
            try:
                async for _ in self.ws:
                    pass
            except (websockets.ConnectionClosed, websockets.ConcurrencyError):
                pass  # closed, or another task of the test is reading it already
        reader = asyncio.ensure_future(drop_unread())
        try:
            await self.ws.close()
        finally:
            reader.cancel()


def phone_address(index: int) -> str:
    """The loopback address of the index-th simulated phone: 127.0.1.1, 127.0.1.2, … (250 per /24)."""
    return f"127.0.{1 + index // 250}.{1 + index % 250}"


async def signed_in(server: GatherServer, username: str, **connect) -> Live:
    """A new connection, past its first snapshot, registered as organiser `username`."""
    live = await Live.connect(server, **connect)
    await live.next()
    session = await live.register(username)
    assert session.get("role") == "organiser", session
    return live


def pitch_gather(state: dict, pitch: int) -> dict | None:
    """The gather of pitch `pitch` in a state of either subprotocol."""
    return next(p for p in state["pitches"] if p["id"] == pitch)["gather"]


def run(coroutine):
    return asyncio.run(coroutine)
