"""A match played at the venue, and followers that time every version they hold: shared by the
tests where something between the pitch and the followers breaks (a hub node, a relay behind
nginx, the uplink, the venue's leaf).

Times are `time.monotonic()` of this process: the organiser's press and the follower's arrival
are read on the same clock.
"""
from __future__ import annotations

import asyncio
import json
import random
import ssl
import time
from dataclasses import dataclass, field

import jsonpatch
import websockets

from gatherlib import Live, pitch_gather

V2 = ("gather.v2",)


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile (`fraction` in 0–1) of `values`, which must not be empty."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(fraction * len(ordered) + 0.5)) - 1))]


# MARK: - The match at the venue

@dataclass
class Press:
    version: int
    pressed_at: float
    ack_seconds: float


class Match:
    """An organiser's match: two players, kick-off, then goals. Each goal's version, when it was
    pressed and how long its ack took."""

    def __init__(self, organiser: Live):
        self.organiser = organiser
        self.presses: list[Press] = []

    async def kick_off(self):
        for name in ("Ann", "Ben"):
            await self._acked({"kind": "addPlayer", "name": name})
        ids = [player["id"] for player in self.organiser.snapshot["players"]][-2:]
        await self._acked({"kind": "createGather", "playerIds": ids})
        await self._acked({"kind": "assign", "playerId": ids[0], "to": "A"})
        await self._acked({"kind": "assign", "playerId": ids[1], "to": "B"})
        await self._acked({"kind": "startGather"})

    async def goal(self, team: str = "A") -> Press:
        started = time.monotonic()
        reply = await self._acked({"kind": "score", "team": team, "delta": 1})
        press = Press(reply["version"], started, time.monotonic() - started)
        self.presses.append(press)
        return press

    async def play(self, seconds: float, every: float, stop_when=None) -> list[Press]:
        """Goals every `every` seconds for `seconds` (alternating teams), on the clock."""
        begun = time.monotonic()
        played = []
        while time.monotonic() - begun < seconds:
            if stop_when is not None and stop_when():
                break
            due = begun + len(played) * every
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            played.append(await self.goal("AB"[len(self.presses) % 2]))
        return played

    @property
    def score(self) -> dict:
        state = self.organiser.snapshot
        return pitch_gather(state, state["pitches"][0]["id"])["score"]

    async def _acked(self, action: dict) -> dict:
        await self.organiser.wait_snapshot(self.organiser.version)
        reply = await self.organiser.command(action)
        assert reply["type"] == "ack", (action, reply)
        await self.organiser.wait_snapshot(reply["version"], timeout=10)
        return reply


# MARK: - A follower that times every version

@dataclass
class Visit:
    """One connection of a follower: where, when it opened and closed, and the first state it was
    offered there."""
    url: str
    opened_at: float
    held_before: int | None
    first_offer: int | None = None
    first_offer_kind: str | None = None
    closed_at: float | None = None


@dataclass
class TimedFollower:
    """A gather.v2 spectator following as the pages do: it holds a state and takes a patch whose
    `from` is the version it holds and a snapshot at least as new (an older one is ignored, so
    the state never goes back); when the connection drops it reconnects with the pages' backoff
    (500 ms doubling to 10 s, ×0.5–1.5 jitter), to `urls` in turn.

    Records when it first held each version, the snapshots it was offered, the link notices, and
    every visit (connection). Reads state messages only; the state itself is kept only with
    `keep_state` (jsonpatch costs CPU with hundreds of followers)."""
    urls: list[str]
    ssl_context: ssl.SSLContext | None = None
    origin: str | None = None
    source: str | None = None
    keep_state: bool = False

    held: list[tuple[int, float]] = field(default_factory=list)
    state: dict | None = None
    snapshots: list[tuple[float, int]] = field(default_factory=list)
    offered_older: list[tuple[int, int]] = field(default_factory=list)
    gaps: list[tuple[int, int]] = field(default_factory=list)
    links: list[tuple[float, bool]] = field(default_factory=list)
    visits: list[Visit] = field(default_factory=list)
    epoch: str | None = None
    connect_failures: int = 0

    @property
    def version(self) -> int | None:
        return self.held[-1][0] if self.held else None

    def first_at_least(self, version: int) -> float | None:
        """When it first held `version` or a later one (None: never)."""
        for held, at in self.held:
            if held >= version:
                return at
        return None

    def url_to_open(self, index: int) -> str:
        url = self.urls[index % len(self.urls)]
        # Resume by patches where the server knows how (the catch-up query); a server that does
        # not ignores the query and sends a snapshot.
        if self.epoch is not None and self.held:
            url += f"?epoch={self.epoch}&version={self.held[-1][0]}"
        return url

    async def run(self, stop: asyncio.Event, deadline: float):
        """Follows until `stop` is set or `deadline` (monotonic) passes."""
        attempt = 0
        while not stop.is_set() and time.monotonic() < deadline:
            url = self.url_to_open(len(self.visits) + self.connect_failures)
            try:
                headers = {"Origin": self.origin} if self.origin else None
                extra = {"local_addr": (self.source, 0)} if self.source else {}
                ws = await websockets.connect(url, ssl=self.ssl_context, subprotocols=list(V2),
                                              additional_headers=headers, open_timeout=10, max_size=2**22,
                                              ping_interval=None, **extra)
            except (OSError, asyncio.TimeoutError, websockets.exceptions.WebSocketException):
                self.connect_failures += 1
                attempt += 1
                await self._back_off(attempt, stop)
                continue
            visit = Visit(url, time.monotonic(), self.version)
            self.visits.append(visit)
            try:
                await self._read(ws, visit, stop, deadline)
                if visit.first_offer is not None:
                    attempt = 0
            finally:
                visit.closed_at = time.monotonic()
                await ws.close()
            if not stop.is_set():
                attempt += 1
                await self._back_off(attempt, stop)

    async def _back_off(self, attempt: int, stop: asyncio.Event):
        delay = min(10.0, 0.5 * 2 ** min(attempt - 1, 5)) * (0.5 + random.random())
        try:
            await asyncio.wait_for(stop.wait(), delay)
        except asyncio.TimeoutError:
            pass

    async def _read(self, ws, visit: Visit, stop: asyncio.Event, deadline: float):
        stopping = asyncio.ensure_future(stop.wait())
        try:
            while time.monotonic() < deadline:
                receiving = asyncio.ensure_future(ws.recv())
                done, _ = await asyncio.wait({receiving, stopping}, timeout=max(0.1, deadline - time.monotonic()),
                                             return_when=asyncio.FIRST_COMPLETED)
                if receiving not in done:
                    receiving.cancel()
                    return
                try:
                    raw = receiving.result()
                except websockets.exceptions.ConnectionClosed:
                    return
                self._take(json.loads(raw), visit)
        finally:
            stopping.cancel()

    def _take(self, message: dict, visit: Visit):
        now = time.monotonic()
        kind = message.get("type")
        if kind == "welcome":
            self.epoch = message.get("epoch", self.epoch)
        elif kind == "snapshot":
            if visit.first_offer is None:
                visit.first_offer, visit.first_offer_kind = message["version"], "snapshot"
            self.epoch = message.get("epoch", self.epoch)
            self.snapshots.append((now, message["version"]))
            if self.version is not None and message["version"] < self.version:
                self.offered_older.append((self.version, message["version"]))
                return
            if self.keep_state:
                self.state = message["state"]
            if self.version is None or message["version"] > self.version:
                self.held.append((message["version"], now))
        elif kind == "patch":
            if visit.first_offer is None:
                visit.first_offer, visit.first_offer_kind = message["version"], "patch"
            if self.version is not None and message["from"] == self.version:
                if self.keep_state:
                    self.state = jsonpatch.apply_patch(self.state, message["ops"])
                self.held.append((message["version"], now))
            elif self.version is not None and message["from"] > self.version:
                self.gaps.append((self.version, message["from"]))
        elif kind == "link":
            self.links.append((now, bool(message.get("live"))))


def lags(presses: list[Press], follower: TimedFollower) -> list[float]:
    """Press → held, seconds, for each press the follower reached (a version it skipped counts as
    reached when it first held a later one)."""
    out = []
    for press in presses:
        at = follower.first_at_least(press.version)
        if at is not None:
            out.append(at - press.pressed_at)
    return out


def never_went_back(follower: TimedFollower) -> bool:
    versions = [version for version, _ in follower.held]
    return versions == sorted(versions)


def summary(name: str, values: list[float]) -> str:
    if not values:
        return f"{name}: none"
    return (f"{name}: n={len(values)} p50={percentile(values, 0.5) * 1000:.0f} ms "
            f"p99={percentile(values, 0.99) * 1000:.0f} ms max={max(values) * 1000:.0f} ms")

