"""nginx in front of the club's instances, built from deploy/nginx/gather-club.conf as a club
fills it in: its TLS lines replaced by a plain loopback listener (the instances' links and the
pages are tested over plain HTTP), a prefix folder of its own, its pid and logs there. nginx
cannot listen on port 0: a free port is chosen."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import tempfile
import time

from club_postgres import free_port
from gatherlib import ROOT, stop_process

NGINX = os.environ.get("NGINX_BIN", "nginx")
NGINX_CONF = ROOT / "deploy" / "nginx" / "gather-club.conf"


class ClubNginx:
    """A real nginx from deploy/nginx/gather-club.conf in a prefix folder of its own: the TLS
    lines replaced by a plain loopback listener (nginx cannot take port 0: a free port)."""

    def __init__(self, upstream_ports: list[int]):
        assert len(upstream_ports) >= 1
        self._tmp = tempfile.TemporaryDirectory(prefix="gather-club-nginx-")
        self.prefix = self._tmp.name
        # As root nginx's workers run as www-data and keep large bodies and answers in files
        # under the prefix: they must be able to enter it.
        os.chmod(self.prefix, 0o711)
        os.makedirs(os.path.join(self.prefix, "temp"), mode=0o711)
        self.port = free_port()
        self.error_log = os.path.join(self.prefix, "error.log")
        self.conf = os.path.join(self.prefix, "nginx.conf")
        with open(self.conf, "w") as handle:
            handle.write(club_nginx_conf(self.prefix, self.port, free_port(), upstream_ports))
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 15) -> "ClubNginx":
        self.process = subprocess.Popen([NGINX, "-p", self.prefix, "-c", self.conf, "-e", self.error_log,
                                         "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"nginx did not start: {self.errors()}")
                time.sleep(0.05)

    def errors(self) -> str:
        try:
            with open(self.error_log) as handle:
                return handle.read()[-20000:]
        except OSError:
            return ""

    def stop(self):
        if self.process is not None:
            stop_process(self.process, signal.SIGTERM)  # fast shutdown: master and workers
        self.process = None

    def cleanup(self):
        self.stop()
        self._tmp.cleanup()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def club_nginx_conf(prefix: str, port: int, plain_port: int, upstream_ports: list[int]) -> str:
    """deploy/nginx/gather-club.conf filled in for loopback: every replaced line must be found,
    so the test follows the file."""
    text = NGINX_CONF.read_text()
    temp_paths = "".join(f"\n    {kind}_temp_path temp/{kind};" for kind in
                         ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    upstreams = "\n".join(f"        server 127.0.0.1:{p} max_fails=3 fail_timeout=10s;" for p in upstream_ports)
    replacements = {
        "pid /run/gather-club-nginx.pid;": f"pid {prefix}/nginx.pid;",
        "error_log /var/log/nginx/gather-club-error.log warn;": f"error_log {prefix}/error.log warn;",
        "http {": "http {" + temp_paths,
        "        server CHANGE-ME-club-1.internal:8444 max_fails=3 fail_timeout=10s;\n": upstreams + "\n",
        "        server CHANGE-ME-club-2.internal:8444 max_fails=3 fail_timeout=10s;\n": "",
        "listen 80;": f"listen 127.0.0.1:{plain_port};",
        "listen 443 ssl;": f"listen 127.0.0.1:{port};",
        "CHANGE-ME-club.example.org": "127.0.0.1",
        "ssl_certificate /etc/ssl/CHANGE-ME-club-fullchain.pem;": "",
        "ssl_certificate_key /etc/ssl/private/CHANGE-ME-club-key.pem;": "",
        "ssl_protocols TLSv1.2 TLSv1.3;": "",
        "ssl_session_cache shared:gather_club_tls:10m;": "",
    }
    for old, new in replacements.items():
        assert old in text, f"{old!r} is no longer in {NGINX_CONF}"
        text = text.replace(old, new)
    assert not [line for line in text.splitlines() if "CHANGE-ME" in line.split("#")[0]]
    return text
