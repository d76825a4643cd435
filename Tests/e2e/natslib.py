"""A real `nats-server` (JetStream on, a temporary store) for the relay tests, and a small
reader of the venue's stream through nats-py (an independent NATS client, not our code).

The server listens on a port of its choosing (`-p -1`), which it prints; a restart reuses that
port and the store, as an operator restarting it would.
"""
from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import subprocess
import tempfile
import threading
import time

import nats

from gatherlib import GatherServer, Live, TemporaryProcess, spawn_until_ready, stop_process, wait_ready

NATS_SERVER = os.environ.get("NATS_SERVER_BIN", "nats-server")
V2 = ("gather.v2",)
VENUE = "riverside"


class NatsServer(TemporaryProcess):
    def __init__(self, config: str | None = None):
        self._tmp = tempfile.TemporaryDirectory(prefix="gather-nats-")
        self.store = os.path.join(self._tmp.name, "js")
        self.port = -1
        self.config = config
        self.process: subprocess.Popen | None = None
        self.log: list[str] = []
        # A leaf listener's port (config `LEAF_PORT`, -1 at first), kept across restarts.
        self.leaf_port = -1

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self, timeout: float = 15) -> "NatsServer":
        args = [NATS_SERVER, "-a", "127.0.0.1", "-p", str(self.port)]
        if not self.config:
            args += ["-js", "-sd", self.store]
        else:  # the configuration has its own jetstream block, with STORE_DIR
            path = os.path.join(self._tmp.name, "server.conf")
            with open(path, "w") as handle:
                handle.write(self.config.replace("STORE_DIR", self.store).replace("LEAF_PORT", str(self.leaf_port)))
            args += ["-c", path]
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        ready = threading.Event()

        def pump(stream):
            for line in stream:
                self.log.append(line.rstrip("\n"))
                found = re.search(r"Listening for client connections on [^:]+:(\d+)", line)
                if found:
                    self.port = int(found.group(1))
                leaf = re.search(r"Listening for leafnode connections on [^:]+:(\d+)", line)
                if leaf:
                    self.leaf_port = int(leaf.group(1))
                if "Server is ready" in line:
                    ready.set()
        threading.Thread(target=pump, args=(self.process.stderr,), daemon=True).start()
        try:
            wait_ready(self.process, ready, timeout, 0.05, lambda: f"nats-server did not start: {self.log[-5:]}")
        except RuntimeError:
            self.process = None
            raise
        return self

    def stop(self, sig: int = signal.SIGTERM):
        if self.process is None:
            return
        stop_process(self.process, sig)
        self.process = None


async def read_subject(url: str, stream: str, subject: str, count: int | None = None, timeout: float = 5,
                       **connect) -> list:
    """Every message the stream holds for `subject`, in order (an ordered consumer from the start)."""
    nc = await nats.connect(url, connect_timeout=5, allow_reconnect=False, **connect)
    try:
        js = nc.jetstream()
        info = await js.stream_info(stream)
        total = count if count is not None else info.state.messages
        sub = await js.subscribe(subject, stream=stream, ordered_consumer=True,
                                 deliver_policy=nats.js.api.DeliverPolicy.ALL)
        out = []
        while len(out) < total:
            out.append(await sub.next_msg(timeout=timeout))
        await sub.unsubscribe()
        return out
    finally:
        await nc.close()


async def wait_for(predicate, timeout: float, what: str, interval: float = 0.05):
    """Polls `predicate` (sync or async) until true, at most `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        await asyncio.sleep(interval)


class RelayProcess:
    """One real `gather relay` on loopback, reading a venue's stream from `nats_url`."""

    def __init__(self, nats_url: str, venue: str = "riverside", extra_args: tuple[str, ...] = (),
                 env: dict | None = None, venue_key: str | None = None):
        from gatherlib import BINARY, PUBLIC
        self.args = [BINARY, "relay", "--host", "127.0.0.1", "--port", "0", "--public", PUBLIC,
                     "--nats", nats_url, "--venue", venue, *extra_args]
        self.env = env
        # The venue's public key (`--venue-key`); `running` fills it from the venue's /healthz.
        self.venue_key = venue_key
        self.port = 0
        self.process: subprocess.Popen | None = None
        self.output: list[str] = []
        self.errors: list[str] = []

    def start(self, timeout: float = 30) -> "RelayProcess":
        def on_line(line: str) -> bool:
            if line.startswith("gather: listening on port"):
                self.port = int(line.rsplit(" ", 1)[1])
                return True
            return False
        args = self.args + (["--venue-key", self.venue_key] if self.venue_key else [])
        self.process = spawn_until_ready(args, on_line, self.output, self.errors, timeout, "gather relay",
                                         env={**os.environ, **self.env} if self.env else None)
        return self

    def stop(self, sig: int = signal.SIGINT) -> int | None:
        if self.process is None:
            return None
        code = stop_process(self.process, sig)
        self.process = None
        return code

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop(signal.SIGKILL)

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/live"

    def get(self, path: str) -> tuple[int, bytes]:
        import http.client
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def health(self) -> dict:
        import json
        status, body = self.get("/healthz")
        assert status == 200, status
        return json.loads(body)


def start_all(*processes):
    """Starts processes in parallel (each start waits for its ready line)."""
    errors = []

    def starter(process):
        try:
            process.start()
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)
    threads = [threading.Thread(target=starter, args=(process,)) for process in processes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    if errors:
        raise errors[0]
    return processes


def take_down(*parts):
    """Takes down, in order, what a test started: a relay is stopped, anything else cleaned up;
    None (a part the test never got to) is passed over."""
    for part in parts:
        if part is None:
            continue
        if isinstance(part, RelayProcess):
            part.stop()
        else:
            part.cleanup()


# MARK: - A venue and its relays (shared by the relay tests)

def venue_server(nats_url: str, *extra_args: str, **kwargs) -> GatherServer:
    """A `gather serve` publishing venue `VENUE` to `nats_url` (not started)."""
    return GatherServer(extra_args=("--nats", nats_url, "--venue", VENUE, *extra_args), **kwargs)


async def relay_client(relay: RelayProcess) -> Live:
    """A gather.v2 spectator on a relay's plain door."""
    return await Live.connect(None, subprotocols=V2, url=relay.ws_url)


@contextlib.contextmanager
def running(server: GatherServer, *relays: RelayProcess, relay_signal: int = signal.SIGINT):
    """Starts the venue, then its relays in parallel, given the venue's key; on the way out stops
    the relays with `relay_signal` and removes the venue's folders."""
    try:
        start_all(server)
        given_venue_key(server, *relays)
        start_all(*relays)
        yield
    finally:
        for relay in relays:
            relay.stop(relay_signal)
        server.cleanup()


@contextlib.contextmanager
def venue_and_relay(relay_signal: int = signal.SIGINT):
    """A fresh nats-server, a venue publishing to it and one relay following it, all started;
    yields (broker, server, relay) and takes them all down on the way out."""
    with NatsServer() as broker:
        server = venue_server(broker.url)
        relay = RelayProcess(broker.url)
        with running(server, relay, relay_signal=relay_signal):
            yield broker, server, relay


async def relay_follower(relay: RelayProcess) -> Live:
    """A relay spectator that already holds the relay's snapshot."""
    client = await relay_client(relay)
    await client.until(lambda m: m["type"] == "snapshot", 10)
    return client


async def slowest_ack(client: Live, count: int = 20) -> float:
    """Adds `count` players one at a time, each acked; the slowest round trip in seconds."""
    slowest = 0.0
    for index in range(count):
        started = time.monotonic()
        reply = await client.command({"kind": "addPlayer", "name": f"P{index}"})
        slowest = max(slowest, time.monotonic() - started)
        assert reply["type"] == "ack"
    return slowest


# MARK: - The venue's signing key (relays believe only what it signed)

def venue_key(server: GatherServer) -> str:
    """The venue's public key, as its /healthz shows it (base64 of 32 bytes)."""
    key = server.health()["venueKey"]
    assert isinstance(key, str) and len(key) == 44, key
    return key


def given_venue_key(server: GatherServer, *relays: RelayProcess) -> None:
    """Gives each relay without a key the running venue's."""
    key = venue_key(server)
    for relay in relays:
        if relay.venue_key is None:
            relay.venue_key = key


def provide_venue_key(data_dir: str) -> str:
    """Puts a venue signing key (PKCS#8 PEM, mode 0600) in a data folder before the venue's first
    start, as a restored backup would, so a relay can be started before the venue; returns the
    public key in base64. The venue keeps a key it finds."""
    import base64
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    key = Ed25519PrivateKey.generate()
    os.makedirs(data_dir, mode=0o700, exist_ok=True)  # the server refuses a folder others can write
    path = os.path.join(data_dir, "venue-key.pem")
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return base64.b64encode(raw).decode()
