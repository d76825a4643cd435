"""A real `nats-server` (JetStream on, a temporary store) for the relay tests, and a small
reader of the venue's stream through nats-py (an independent NATS client, not our code).

The server listens on a port of its choosing (`-p -1`), which it prints; a restart reuses that
port and the store, as an operator restarting it would.
"""
from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import tempfile
import threading
import time

import nats

NATS_SERVER = os.environ.get("NATS_SERVER_BIN", "nats-server")


class NatsServer:
    def __init__(self, config: str | None = None):
        self._tmp = tempfile.TemporaryDirectory(prefix="gather-nats-")
        self.store = os.path.join(self._tmp.name, "js")
        self.port = -1
        self.config = config
        self.process: subprocess.Popen | None = None
        self.log: list[str] = []

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self, timeout: float = 15) -> "NatsServer":
        args = [NATS_SERVER, "-a", "127.0.0.1", "-p", str(self.port), "-js", "-sd", self.store]
        if self.config:
            path = os.path.join(self._tmp.name, "server.conf")
            with open(path, "w") as handle:
                handle.write(self.config.replace("STORE_DIR", self.store))
            args += ["-c", path]
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        ready = threading.Event()

        def pump(stream):
            for line in stream:
                self.log.append(line.rstrip("\n"))
                found = re.search(r"Listening for client connections on [^:]+:(\d+)", line)
                if found:
                    self.port = int(found.group(1))
                if "Server is ready" in line:
                    ready.set()
        threading.Thread(target=pump, args=(self.process.stderr,), daemon=True).start()
        deadline = time.monotonic() + timeout
        while not ready.wait(0.05):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop(signal.SIGKILL)
                raise RuntimeError(f"nats-server did not start: {self.log[-5:]}")
        return self

    def stop(self, sig: int = signal.SIGTERM):
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.process = None

    def cleanup(self):
        self.stop(signal.SIGKILL)
        self._tmp.cleanup()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.cleanup()


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
