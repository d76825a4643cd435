"""A bad uplink between a venue's leaf node and the hub, for the tests: a TCP proxy on loopback
that delays, stalls, throttles and cuts what passes through it, bytes untouched (the leaf's TLS
goes through as it is).

Our own because these machines' kernel has no `netem` (`tc qdisc ... netem` is "unknown").

What a pitch-side 4G router does to the leaf link, each configurable:
- every chunk is delayed `delay` ± `jitter` seconds (order kept, as TCP keeps it);
- now and then (`stall_chance` per chunk) a direction of a connection stalls for `stall`
  seconds, as a lost packet's retransmission holds everything behind it;
- the whole link carries at most `rate_bits` bits per second each way (shared by its
  connections, as the router's uplink is);
- every `cut_every` seconds it cuts every connection (reset) and refuses new ones (reset at
  once) for `cut_for` seconds.

Bounded: loopback only, at most `max_connections` at once, chunks of at most 16 KiB, at most
`queue_chunks` chunks waiting per direction (the reader waits when full), and `stop()` ends every
task it started.

    python3 uplink_proxy.py --target 127.0.0.1:7422 --port 17422   # by hand, Ctrl-C to stop
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import threading
import time
from dataclasses import dataclass, field, replace

CHUNK = 16 * 1024


@dataclass
class Faults:
    delay: float = 0.150
    jitter: float = 0.050
    stall_chance: float = 0.02
    stall: tuple[float, float] = (0.2, 1.0)
    rate_bits: int = 2_000_000
    cut_every: float = 30.0
    cut_for: float = 10.0
    max_connections: int = 16
    queue_chunks: int = 256


@dataclass
class Pacer:
    """The link's rate cap in one direction: when the next byte may leave."""
    rate_bits: int
    free_at: float = 0.0

    def departure(self, ready_at: float, size: int) -> float:
        start = max(ready_at, self.free_at)
        self.free_at = start + size * 8 / self.rate_bits
        return start


@dataclass
class Record:
    """What the proxy did, for the test's report (monotonic seconds)."""
    cuts: list[tuple[float, float]] = field(default_factory=list)
    stalls: int = 0
    connections: int = 0
    refused: int = 0
    bytes_up: int = 0
    bytes_down: int = 0


class UplinkProxy:
    def __init__(self, target_port: int, faults: Faults | None = None, target_host: str = "127.0.0.1",
                 seed: int | None = None):
        assert target_host.startswith("127.") or target_host == "::1", "loopback only"
        self.target = (target_host, target_port)
        self.faults = replace(faults) if faults else Faults()  # a copy: heal() changes it
        self.random = random.Random(seed)
        self.record = Record()
        self.port = 0
        self._server: asyncio.base_events.Server | None = None
        self._tasks: set[asyncio.Task] = set()
        self._writers: set[asyncio.StreamWriter] = set()
        self._pacers = {"up": Pacer(self.faults.rate_bits), "down": Pacer(self.faults.rate_bits)}
        self._down_until = 0.0
        self._started_at = 0.0

    @property
    def link_up(self) -> bool:
        return time.monotonic() >= self._down_until

    async def start(self, port: int = 0) -> "UplinkProxy":
        self._server = await asyncio.start_server(self._accepted, "127.0.0.1", port, limit=CHUNK)
        self.port = self._server.sockets[0].getsockname()[1]
        self._started_at = time.monotonic()
        if self.faults.cut_every > 0 and self.faults.cut_for > 0:
            self._spawn(self._cut_on_schedule())
        return self

    async def stop(self):
        if self._server is not None:
            self._server.close()
            self._server = None
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    def heal(self):
        """No more cuts, stalls or delay from now on: the link as it is when the router recovers."""
        for task in list(self._tasks):
            if task.get_coro().__name__ == "_cut_on_schedule":
                task.cancel()
        self._down_until = 0.0
        self.faults.delay = self.faults.jitter = self.faults.stall_chance = 0.0

    def cut_now(self, seconds: float):
        """Cuts every connection and refuses new ones for `seconds`."""
        now = time.monotonic()
        self._down_until = now + seconds
        self.record.cuts.append((now, now + seconds))
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    # MARK: - Inside

    def _spawn(self, coroutine) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._finished)
        return task

    def _finished(self, task: asyncio.Task):
        self._tasks.discard(task)
        if not task.cancelled():
            task.exception()  # a reset connection ends its pipes: expected, not reported

    async def _cut_on_schedule(self):
        up_for = self.faults.cut_every - self.faults.cut_for
        while True:
            await asyncio.sleep(max(0.0, up_for))
            self.cut_now(self.faults.cut_for)
            await asyncio.sleep(self.faults.cut_for)

    async def _accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        if not self.link_up or len(self._writers) >= 2 * self.faults.max_connections:
            self.record.refused += 1
            writer.transport.abort()
            return
        try:
            upstream_reader, upstream_writer = await asyncio.wait_for(
                asyncio.open_connection(*self.target, limit=CHUNK), 5)
        except (OSError, asyncio.TimeoutError):
            writer.transport.abort()
            return
        if not self.link_up:
            writer.transport.abort()
            upstream_writer.transport.abort()
            return
        self.record.connections += 1
        self._writers.update((writer, upstream_writer))
        up = self._spawn(self._pipe(reader, upstream_writer, "up"))
        down = self._spawn(self._pipe(upstream_reader, writer, "down"))
        # One side gone: the other goes too, as a cut link takes both.
        done, _ = await asyncio.wait({up, down}, return_when=asyncio.FIRST_COMPLETED)
        for task in (up, down):
            task.cancel()
        for side in (writer, upstream_writer):
            self._writers.discard(side)
            side.transport.abort()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, direction: str):
        queue: asyncio.Queue = asyncio.Queue(self.faults.queue_chunks)
        sender = self._spawn(self._send(queue, writer, direction))
        try:
            held_until = 0.0
            while True:
                data = await reader.read(CHUNK)
                if not data:
                    break
                now = time.monotonic()
                ready = now + max(0.0, self.random.uniform(self.faults.delay - self.faults.jitter,
                                                           self.faults.delay + self.faults.jitter))
                if self.random.random() < self.faults.stall_chance:
                    self.record.stalls += 1
                    held_until = ready + self.random.uniform(*self.faults.stall)
                ready = max(ready, held_until)
                await queue.put((ready, data))
            await queue.put(None)
            await sender
        finally:
            sender.cancel()

    async def _send(self, queue: asyncio.Queue, writer: asyncio.StreamWriter, direction: str):
        pacer = self._pacers[direction]
        last = 0.0
        while True:
            item = await queue.get()
            if item is None:
                return
            ready, data = item
            leaves = pacer.departure(max(ready, last), len(data))
            last = leaves
            wait = leaves - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(data)
            await writer.drain()
            if direction == "up":
                self.record.bytes_up += len(data)
            else:
                self.record.bytes_down += len(data)


class UplinkProxyThread:
    """The proxy on an event loop of its own thread, so its timing does not depend on what the
    test's own loop is busy with. `with` starts and stops it."""

    def __init__(self, target_port: int, faults: Faults | None = None, seed: int | None = None):
        self.proxy = UplinkProxy(target_port, faults, seed=seed)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True, name="uplink-proxy")

    @property
    def port(self) -> int:
        return self.proxy.port

    @property
    def record(self) -> Record:
        return self.proxy.record

    def start(self, port: int = 0) -> "UplinkProxyThread":
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.proxy.start(port), self._loop).result(10)
        return self

    def heal(self):
        self._loop.call_soon_threadsafe(self.proxy.heal)

    def stop(self):
        if not self._thread.is_alive():
            return
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(self.proxy.stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    def cleanup(self):
        self.stop()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", required=True, help="127.0.0.1:PORT of the hub's leaf listener")
    parser.add_argument("--port", type=int, default=0, help="loopback port to listen on")
    parser.add_argument("--cut-every", type=float, default=30.0)
    parser.add_argument("--cut-for", type=float, default=10.0)
    arguments = parser.parse_args()
    host, port = arguments.target.rsplit(":", 1)

    async def serve():
        proxy = await UplinkProxy(int(port), Faults(cut_every=arguments.cut_every, cut_for=arguments.cut_for),
                                  target_host=host).start(arguments.port)
        print(f"uplink proxy on 127.0.0.1:{proxy.port} -> {arguments.target}", flush=True)
        try:
            await asyncio.Event().wait()
        finally:
            await proxy.stop()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())


if __name__ == "__main__":
    main()
