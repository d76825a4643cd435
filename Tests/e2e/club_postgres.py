"""A private PostgreSQL cluster for the club's end-to-end tests, as DESIGN.md (release 5) asks.

PostgreSQL refuses to run as root, and `make test` runs as root: the cluster is made with
`initdb` as the `postgres` user (Debian's package creates it) in a temporary folder that user
owns, started with `pg_ctl` on a free loopback port (its Unix socket in that folder, mode 0700),
and stopped by the postmaster's PID. Run as any other user, the commands run as that user.

Speed over durability against a power cut, never against a crash of PostgreSQL itself:
`fsync=off` and `full_page_writes=off` (a machine that loses power loses a test run anyway), but
`synchronous_commit` stays on, so a commit's WAL has reached the kernel before its answer and an
immediate shutdown (the test that restarts PostgreSQL mid-week) loses nothing acknowledged.

The server connects over TCP as the role `gather` with a password (scram-sha-256), owner of the
test's database: the URL is the one a club's machine would give `gather club serve --postgres`.
"""
from __future__ import annotations

import atexit
import glob
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from urllib.parse import quote

ROLE = "gather"


def postgres_bin() -> str:
    """The folder of PostgreSQL's server programs: `GATHER_PG_BIN`, else Debian's newest."""
    if os.environ.get("GATHER_PG_BIN"):
        return os.environ["GATHER_PG_BIN"]
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if not found:
        raise RuntimeError("PostgreSQL is not installed (Debian: apt-get install postgresql; make test does it)")
    return os.path.dirname(found[-1])


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _pid_alive(pid: int) -> bool:
    """True while `pid` runs (a zombie left for a non-reaping init counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


PREFIX = "gather-club-pg-"


def sweep_abandoned(base: str):
    """Stops and removes the clusters of test processes that died without cleaning up (killed
    -9, or a machine's session ended): each folder names its owner's PID."""
    for root in glob.glob(os.path.join(base, PREFIX + "*")):
        try:
            with open(os.path.join(root, "owner.pid")) as handle:
                owner = int(handle.read())
        except (OSError, ValueError):
            continue
        if _pid_alive(owner):
            continue
        try:
            with open(os.path.join(root, "data", "postmaster.pid")) as handle:
                postmaster = int(handle.readline())
            if _pid_alive(postmaster) and "postgres" in open(f"/proc/{postmaster}/cmdline").read():
                os.kill(postmaster, signal.SIGQUIT)
        except (OSError, ValueError):
            pass
        shutil.rmtree(root, ignore_errors=True)


def stop_on_sigterm():
    """A SIGTERM (a CI run ended, `timeout`) ends the test run as Ctrl-C does, so the fixtures'
    and atexit's clean-up still run; Python's default would exit without them."""
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        def interrupt(signum, frame):
            raise KeyboardInterrupt(f"signal {signum}")
        signal.signal(signal.SIGTERM, interrupt)


class PostgresCluster:
    """One private cluster: `start()`, `create_database()` → a name, `url(name)`, `restart()`,
    `cleanup()` (stops it by PID and removes its folder; also run at exit, whatever happened)."""

    SIGNALS = {"smart": signal.SIGTERM, "fast": signal.SIGINT, "immediate": signal.SIGQUIT}

    def __init__(self):
        self.bin = postgres_bin()
        # The folder must be reachable by `postgres`: the system's temporary folder, not TMPDIR
        # when that lies in a home only root may enter.
        base = tempfile.gettempdir()
        if os.geteuid() == 0 and (os.stat(base).st_mode & 0o001) == 0:
            base = "/tmp"
        sweep_abandoned(base)
        self.root = tempfile.mkdtemp(prefix=PREFIX, dir=base)
        with open(os.path.join(self.root, "owner.pid"), "w") as handle:
            handle.write(str(os.getpid()))
        self.data = os.path.join(self.root, "data")
        self.log = os.path.join(self.root, "postgres.log")
        self.password = secrets.token_urlsafe(24)
        self.port = 0
        self.pid: int | None = None
        self.start_seconds = 0.0
        self._cleaned = False
        atexit.register(self.cleanup)
        stop_on_sigterm()

    # MARK: - Commands as the cluster's owner

    def _as_owner(self, args: list[str]) -> list[str]:
        return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args

    def _run(self, args: list[str], timeout: float = 60, input: str | None = None) -> subprocess.CompletedProcess:
        result = subprocess.run(self._as_owner(args), capture_output=True, text=True, timeout=timeout, input=input,
                                cwd=self.root)
        if result.returncode != 0:
            raise RuntimeError(f"{os.path.basename(args[0])} failed ({result.returncode}): "
                               f"{result.stderr[-2000:]} {result.stdout[-1000:]}")
        return result

    def psql(self, sql: str, database: str = "postgres") -> str:
        """Runs `sql` as the superuser over the cluster's Unix socket; its unaligned output."""
        return self._run([os.path.join(self.bin, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-At",
                          "-h", self.root, "-p", str(self.port), "-U", "postgres", "-d", database, "-c", sql],
                         timeout=30).stdout

    # MARK: - Lifecycle

    def start(self) -> "PostgresCluster":
        began = time.monotonic()
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
        os.chmod(self.root, 0o700)
        if not os.path.exists(self.data):
            self._run([os.path.join(self.bin, "initdb"), "-D", self.data, "-U", "postgres", "-E", "UTF8",
                       "--locale=C.UTF-8", "--no-sync", "--auth-local=trust", "--auth-host=scram-sha-256"])
        self._start_server()
        if not self.psql(f"SELECT 1 FROM pg_roles WHERE rolname = '{ROLE}'"):
            # The password goes through stdin, never a command line that `ps` shows.
            self._run([os.path.join(self.bin, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", self.root,
                       "-p", str(self.port), "-U", "postgres", "-d", "postgres"],
                      input=f"CREATE ROLE {ROLE} LOGIN PASSWORD '{self.password}';\n")
        self.start_seconds = time.monotonic() - began
        return self

    def _start_server(self, attempts: int = 3):
        """`pg_ctl start` on a free loopback port (the same port on a restart); a port taken
        between choosing it and binding it is chosen again."""
        for attempt in range(attempts):
            port = self.port or free_port()
            options = (f"-p {port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
                       f"-c full_page_writes=off -c max_connections=200")
            try:
                self._run([os.path.join(self.bin, "pg_ctl"), "start", "-w", "-t", "60", "-s", "-D", self.data,
                           "-l", self.log, "-o", options], timeout=90)
            except RuntimeError:
                if attempt + 1 == attempts or "could not bind" not in self.errors() or self.port:
                    raise RuntimeError(f"PostgreSQL did not start: {self.errors()[-3000:]}")
                continue
            self.port = port
            with open(os.path.join(self.data, "postmaster.pid")) as handle:
                self.pid = int(handle.readline())
            return

    def stop(self, mode: str = "fast", timeout: float = 30):
        """Stops the postmaster by its PID: `fast` (SIGINT: a clean shutdown), `immediate`
        (SIGQUIT: as a crash, recovered from the WAL at the next start); SIGKILL after `timeout`."""
        pid, self.pid = self.pid, None
        if pid is None or not _pid_alive(pid):
            return
        os.kill(pid, self.SIGNALS[mode])
        for sig, wait in ((None, timeout), (signal.SIGKILL, 10)):
            if sig is not None:
                os.kill(pid, sig)
            deadline = time.monotonic() + wait
            while _pid_alive(pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            if not _pid_alive(pid):
                return
        raise RuntimeError(f"PostgreSQL (pid {pid}) did not stop")

    def restart(self, mode: str = "fast"):
        """Stopped (as `mode` says) and started again on the same port and data."""
        self.stop(mode)
        self._start_server()

    def cleanup(self):
        if self._cleaned:
            return
        self._cleaned = True
        try:
            self.stop("immediate", timeout=15)
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def errors(self) -> str:
        try:
            with open(self.log, errors="replace") as handle:
                return handle.read()[-20000:]
        except OSError:
            return ""

    # MARK: - Databases

    def create_database(self) -> str:
        """A fresh database owned by the role `gather`, from `template0` (nothing of another test's)."""
        name = "club_" + uuid.uuid4().hex[:16]
        self.psql(f"CREATE DATABASE {name} OWNER {ROLE} TEMPLATE template0")
        return name

    def drop_database(self, name: str):
        if self.pid is not None:
            self.psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def url(self, database: str) -> str:
        return f"postgres://{ROLE}:{quote(self.password, safe='')}@127.0.0.1:{self.port}/{database}"
