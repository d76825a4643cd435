"""The club's test rig: a private PostgreSQL per pytest worker, real `gather club serve`
instances on a fresh database per test, and a real nginx in front of them built from
deploy/nginx/gather-club.conf, as a club deploys it (PROTOCOL.md, "The week").

Fixtures (imported by conftest.py, so every test file may ask for them):
- `club_postgres` (session): the worker's cluster (club_postgres.PostgresCluster).
- `club_factory` → `make(instances=2, time_zone=…, extra_args=())`: a started `Club`.
- `club`: two instances behind nginx, Europe/Madrid, `--test-clock`.

Everything started is stopped on every path (a fixture's finally, and the cluster at exit too);
every wait has a bound. nginx: club_nginx.py; the live socket: club_live.py."""
from __future__ import annotations

import http.client
import json
import re
import signal
import subprocess
import tempfile
import time
import uuid
from urllib.parse import urlsplit

import pytest

from club_live import LiveFollower
from club_nginx import ClubNginx
from club_postgres import PostgresCluster
from gatherlib import BINARY, PASSWORD, PUBLIC, spawn_until_ready, stop_process

LISTENING = "gather club: listening on port"
INVITE_LINE = re.compile(r"Invite code for organisers:\s*(\S+)")
TIME_ZONE = "Europe/Madrid"


def new_id() -> str:
    """A fresh client change id (1–64 of A-Za-z0-9-_)."""
    return uuid.uuid4().hex


def request(base_url: str, method: str, path: str, body=None, token: str | None = None,
            headers: dict | None = None, timeout: float = 15) -> tuple[int, object]:
    """One HTTP request; (status, the JSON body parsed, else its text). `body` that is bytes or
    str goes as it is (for malformed bodies), anything else as JSON."""
    parts = urlsplit(base_url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    sent = dict(headers or {})
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    payload = None
    if body is not None:
        payload = body if isinstance(body, (bytes, str)) else json.dumps(body)
        sent.setdefault("Content-Type", "application/json")
    try:
        connection.request(method, path, body=payload, headers=sent)
        response = connection.getresponse()
        raw = response.read()
    finally:
        connection.close()
    text = raw.decode("utf-8", errors="replace")
    try:
        return response.status, json.loads(text)
    except ValueError:
        return response.status, text


class ClubInstance:
    """One real `gather club serve` on loopback: `--port 0` at the first start (the port it
    prints is kept, so a restart comes back where nginx expects it)."""

    def __init__(self, postgres_url: str, time_zone: str, extra_args: tuple[str, ...] = ()):
        self._tmp = tempfile.TemporaryDirectory(prefix="gather-club-")
        self.postgres_url = postgres_url
        self.time_zone = time_zone
        self.extra_args = extra_args
        self.port = 0
        self.process: subprocess.Popen | None = None
        self.output: list[str] = []
        self.errors: list[str] = []

    def start(self, timeout: float = 60) -> "ClubInstance":
        args = [BINARY, "club", "serve", "--postgres", self.postgres_url, "--host", "127.0.0.1",
                "--port", str(self.port), "--public", PUBLIC, "--time-zone", self.time_zone, "--test-clock",
                *self.extra_args]
        self.output, self.errors = [], []

        def on_line(line: str) -> bool:
            if line.startswith(LISTENING):
                self.port = int(line.rsplit(" ", 1)[1])
                return True
            return False
        self.process = spawn_until_ready(args, on_line, self.output, self.errors, timeout, "gather club serve",
                                         interval=0.05, cwd=self._tmp.name)
        return self

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 10) -> int | None:
        if self.process is None:
            return None
        code = stop_process(self.process, sig, timeout)
        self.process = None
        return code

    def cleanup(self):
        self.stop(signal.SIGKILL)
        self._tmp.cleanup()

    def invite_code(self, timeout: float = 10) -> str:
        deadline = time.monotonic() + timeout
        while True:
            for line in list(self.output):
                found = INVITE_LINE.search(line)
                if found:
                    return found.group(1)
            if time.monotonic() > deadline:
                raise AssertionError(f"no invite code printed: {self.output[-10:]}")
            time.sleep(0.05)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


class Club:
    """N instances on one fresh database, nginx in front. `base_url` is nginx's."""

    def __init__(self, cluster: PostgresCluster, instances: int = 2, time_zone: str = TIME_ZONE,
                 extra_args: tuple[str, ...] = ()):
        self.cluster = cluster
        self.time_zone = time_zone
        self.database = cluster.create_database()
        self.instances = [ClubInstance(cluster.url(self.database), time_zone, extra_args) for _ in range(instances)]
        self.nginx: ClubNginx | None = None
        self.invite: str | None = None
        self.owner_token: str | None = None

    def start(self) -> "Club":
        # One after the other: the first start stores the club and makes the invite code.
        for instance in self.instances:
            instance.start()
        self.invite = self.instances[0].invite_code()
        self.nginx = ClubNginx([instance.port for instance in self.instances]).start()
        return self

    def cleanup(self):
        for part in [self.nginx, *self.instances]:
            if part is not None:
                try:
                    part.cleanup()
                except Exception:  # the rest is stopped all the same
                    pass
        try:
            self.cluster.drop_database(self.database)
        except RuntimeError:  # a cluster that did not come back: it is removed at the session's end
            pass

    def printed(self) -> str:
        """Everything every instance printed (stdout and stderr) since its last start."""
        return "\n".join(line for i in self.instances for line in (*i.output, *i.errors))

    def assert_no_secret_printed(self):
        """The database password (in `--postgres URL`) never appears in what the instances print."""
        assert self.cluster.password not in self.printed(), "the PostgreSQL password was printed"

    @property
    def base_url(self) -> str:
        return self.nginx.base_url

    # MARK: - The API

    def api(self, method: str, path: str, body=None, token: str | None = None, base: str | None = None,
            headers: dict | None = None) -> tuple[int, object]:
        """(status, JSON) of `method path` through nginx, or through `base` (an instance's base_url)."""
        return request(base or self.base_url, method, path, body, token, headers)

    def register_owner(self, username: str = "owner", password: str = PASSWORD) -> str:
        """Registers the club's first organiser with the invite code the first instance printed."""
        status, body = self.api("POST", "/club/api/register", {"id": new_id(), "username": username,
                                                               "password": password, "inviteCode": self.invite})
        assert status == 200 and body.get("owner") is True and body.get("token"), (status, body)
        self.owner_token = body["token"]
        return self.owner_token

    def advance(self, ms: int) -> int:
        """Moves the club's clock (every instance's) forward by `ms`; the club's new `now`."""
        status, body = self.api("POST", "/club/api/test/clock", {"id": new_id(), "advanceMs": ms})
        assert status == 200 and isinstance(body.get("now"), int), (status, body)
        return body["now"]

    def now(self) -> int:
        """The club's clock (moved by 1 ms: the endpoint is the only way to read it)."""
        return self.advance(1)

    # MARK: - Restarts and followers

    def restart_instance(self, index: int, sig: int = signal.SIGKILL):
        """Stops instance `index` (killed -9 by default: as a crash) and starts it on its port."""
        self.instances[index].stop(sig)
        self.instances[index].start()

    def restart_postgres(self, mode: str = "immediate"):
        """Stops the cluster (`immediate`: as a crash; `fast`: cleanly) and starts it again."""
        self.cluster.restart(mode)

    def live(self, token: str, kind: str, base: str | None = None) -> LiveFollower:
        """A started follower of `/club/live` through nginx (or `base`), with the page's Origin."""
        origin = base or self.base_url
        url = "ws" + origin[len("http"):] + "/club/live"
        return LiveFollower(url, token, kind, origin=origin).start()


@pytest.fixture(scope="session")
def club_postgres():
    cluster = PostgresCluster()
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.cleanup()


@pytest.fixture()
def club_factory(club_postgres):
    made: list[Club] = []

    def make(instances: int = 2, time_zone: str = TIME_ZONE, extra_args: tuple[str, ...] = ()) -> Club:
        rig = Club(club_postgres, instances, time_zone, extra_args)
        made.append(rig)
        return rig.start()
    try:
        yield make
    finally:
        for rig in made:
            rig.cleanup()


@pytest.fixture()
def club(club_factory):
    return club_factory()
