"""A follower of `/club/live` (subprotocol `club.v1`) for tests that are otherwise plain HTTP.

It runs a `websockets` client on an event loop of its own thread, so a synchronous test can
make a change with `club.api(...)` and then wait, with a bound, for the `changed` message that
change causes: every message is kept with the monotonic time it arrived."""
from __future__ import annotations

import asyncio
import json
import threading
import time

import websockets

SUBPROTOCOL = "club.v1"


class LiveFollower:
    """`{"type": "follow", KIND: TOKEN}` on `url`; `following` (True once the server answered
    `{"type": "following"}`), `messages` [(arrival, message)], `close_code` once closed."""

    def __init__(self, url: str, token: str, kind: str, origin: str | None = None):
        assert kind in ("member", "organiser"), kind
        self.url, self.token, self.kind, self.origin = url, token, kind, origin
        self.messages: list[tuple[float, dict]] = []
        self.subprotocol: str | None = None
        self.close_code: int | None = None
        self._condition = threading.Condition()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True, name="club-live")
        self._ws = None
        self._reader = None

    # MARK: - Lifecycle

    def start(self, timeout: float = 10) -> "LiveFollower":
        """Connects and sends `follow`; returns without waiting for the answer (see `wait`)."""
        self._thread.start()
        try:
            asyncio.run_coroutine_threadsafe(self._connect(timeout), self._loop).result(timeout + 2)
        except BaseException:
            self.close()
            raise
        return self

    async def _connect(self, timeout: float):
        headers = {"Origin": self.origin} if self.origin else None
        self._ws = await websockets.connect(self.url, subprotocols=[SUBPROTOCOL], additional_headers=headers,
                                            open_timeout=timeout, close_timeout=5, max_size=2**20)
        self.subprotocol = self._ws.subprotocol
        await self._ws.send(json.dumps({"type": "follow", self.kind: self.token}))
        self._reader = asyncio.ensure_future(self._read())

    async def _read(self):
        try:
            async for raw in self._ws:
                arrival = time.monotonic()
                try:
                    message = json.loads(raw)
                except ValueError:
                    message = {"type": "<not json>", "raw": raw[:200]}
                with self._condition:
                    self.messages.append((arrival, message))
                    self._condition.notify_all()
        except websockets.ConnectionClosed:
            pass
        finally:
            with self._condition:
                self.close_code = self._ws.close_code if self._ws.close_code is not None else 1006
                self._condition.notify_all()

    def close(self):
        """Closes the socket and stops the thread, whatever state they are in (bounded)."""
        if self._thread.is_alive():
            if self._ws is not None:
                try:
                    asyncio.run_coroutine_threadsafe(self._ws.close(), self._loop).result(8)
                except Exception:  # already closed, or the server never answers the close
                    pass
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)
        if not self._thread.is_alive() and not self._loop.is_closed():
            self._loop.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # MARK: - Waiting, with a bound

    def wait(self, predicate, timeout: float, after: float = 0.0) -> tuple[float, dict]:
        """The first (arrival, message) that arrived after monotonic time `after` and satisfies
        `predicate`; `TimeoutError` after `timeout` s (or at once if the socket closed first)."""
        deadline = time.monotonic() + timeout
        with self._condition:
            while True:
                for arrival, message in self.messages:
                    if arrival >= after and predicate(message):
                        return arrival, message
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self.close_code is not None:
                    raise TimeoutError(f"no such message within {timeout} s on {self.url} "
                                       f"(closed: {self.close_code}); got {[m for _, m in self.messages][-5:]}")
                self._condition.wait(remaining)

    def following(self, timeout: float = 5) -> dict:
        """Waits for the server's `{"type": "following"}`; raises on anything else first."""
        _, message = self.wait(lambda m: True, timeout)
        assert message.get("type") == "following", message
        return message

    def changed(self, date_id: str, after: float, timeout: float = 1.0) -> float:
        """The arrival time of the first `changed` naming `date_id` since `after`."""
        arrival, _ = self.wait(lambda m: m.get("type") == "changed" and date_id in m.get("dates", []),
                               timeout, after)
        return arrival

    def wait_closed(self, timeout: float = 5) -> int:
        deadline = time.monotonic() + timeout
        with self._condition:
            while self.close_code is None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError("the server did not close the socket")
                self._condition.wait(remaining)
            return self.close_code
