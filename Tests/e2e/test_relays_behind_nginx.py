"""nginx in front of the relays (deploy/nginx/gather-relays.conf; README "Following from
anywhere"): a real nginx terminating TLS with the club's certificate and proxying the pages and
/live's WebSocket upgrades to two relays, 500 followers through it as phones would come (each
from its own address, with the page's Origin, verifying the club's CA). A relay is killed -9:
its followers reconnect through nginx to the other and never go back; press → follower through
nginx is reported.

nginx runs as an unprivileged configuration: a prefix folder of its own (`-p`), the deploy file
filled in for loopback (`-c`), `daemon off`, its pid and logs in that folder. Not marked `timing`:
it asserts what followers see, not how fast (the latencies it prints are for the report)."""
import asyncio
import http.client
import json
import os
import resource
import signal
import socket
import ssl
import subprocess
import tempfile
import time

from follow_support import Match, TimedFollower, lags, never_went_back, percentile, summary
from gatherlib import phone_address, run, signed_in
from hub_support import Certificates, deployed, free_port
from natslib import V2, NatsServer, RelayProcess, running, venue_server, wait_for

NGINX = os.environ.get("NGINX_BIN", "nginx")
FOLLOWERS = 500
GOAL_EVERY = 1.0


class Nginx:
    """A real nginx from deploy/nginx/gather-relays.conf, on a loopback port, in a folder of its own."""

    def __init__(self, certs: Certificates, relay_ports: list[int]):
        self._tmp = tempfile.TemporaryDirectory(prefix="gather-nginx-")
        self.prefix = self._tmp.name
        self.port = free_port()
        os.makedirs(os.path.join(self.prefix, "temp"))
        allowed_files = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        temp_paths = "".join(f"\n    {kind}_temp_path temp/{kind};" for kind in
                             ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        self.conf = os.path.join(self.prefix, "nginx.conf")
        self.error_log = os.path.join(self.prefix, "error.log")
        with open(self.conf, "w") as handle:
            handle.write(deployed("../nginx/gather-relays.conf", {
                "pid /run/gather-relays-nginx.pid;": f"pid {self.prefix}/nginx.pid;",
                "error_log /var/log/nginx/gather-relays-error.log warn;": f"error_log {self.error_log} warn;",
                "listen 443 ssl;": f"listen 127.0.0.1:{self.port} ssl;",
                "CHANGE-ME-relay-1.internal:8080": f"127.0.0.1:{relay_ports[0]}",
                "CHANGE-ME-relay-2.internal:8080": f"127.0.0.1:{relay_ports[1]}",
                "CHANGE-ME-live.example.org": "127.0.0.1",
                "/etc/ssl/CHANGE-ME-live-fullchain.pem": certs.cert_file,
                "/etc/ssl/private/CHANGE-ME-live-key.pem": certs.key_file,
                # Debian's nginx keeps its buffers' files in /var/lib/nginx: here, in the prefix.
                "http {": "http {" + temp_paths,
                # This machine may not allow 40,000 open files: as many as it allows.
                "worker_rlimit_nofile 40000;": f"worker_rlimit_nofile {min(40000, allowed_files)};",
            }))
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 15) -> "Nginx":
        self.process = subprocess.Popen([NGINX, "-p", self.prefix, "-c", self.conf, "-e", self.error_log,
                                         "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"nginx did not start: {self.errors()}")
                time.sleep(0.1)

    def errors(self) -> str:
        try:
            with open(self.error_log) as handle:
                return handle.read()[-200000:]
        except OSError:
            return ""

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)  # fast shutdown: master and workers
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.process = None

    def cleanup(self):
        self.stop()
        self._tmp.cleanup()


def https_get(port: int, certs: Certificates, path: str) -> tuple[int, bytes]:
    context = ssl.create_default_context(cafile=certs.ca_file)
    connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def test_500_followers_through_nginx_a_relay_killed_its_followers_move_to_the_other_and_never_go_back():
    certs = Certificates()
    nginx = None
    with NatsServer() as broker:
        server = venue_server(broker.url)
        relays = [RelayProcess(broker.url, extra_args=("--max-connections-per-address", "20000")) for _ in range(2)]
        with running(server, *relays, relay_signal=signal.SIGKILL):
            try:
                nginx = Nginx(certs, [relay.port for relay in relays]).start()

                async def scenario():
                    # The pages and each relay's health through nginx, verified against the club's CA.
                    status, body = https_get(nginx.port, certs, "/healthz")
                    assert status == 200 and json.loads(body)["venue"] == "riverside"
                    status, body = https_get(nginx.port, certs, "/")
                    assert status == 200 and b"<html" in body.lower()

                    ann = await signed_in(server, "ann", subprotocols=V2)
                    match = Match(ann)
                    await match.kick_off()
                    context = ssl.create_default_context(cafile=certs.ca_file)
                    url = f"wss://127.0.0.1:{nginx.port}/live"
                    followers = [TimedFollower([url], ssl_context=context, origin=f"https://127.0.0.1:{nginx.port}",
                                               source=phone_address(index)) for index in range(FOLLOWERS)]
                    stop = asyncio.Event()
                    ends = time.monotonic() + 150
                    tasks = []
                    for index, follower in enumerate(followers):  # as a crowd arrives: 50 at a time
                        tasks.append(asyncio.create_task(follower.run(stop, ends)))
                        if index % 50 == 49:
                            await asyncio.sleep(0.2)
                    await wait_for(lambda: all(f.version == ann.version for f in followers), 60,
                                   "500 followers through nginx to hold the kick-off", interval=0.2)
                    spread = [relay.health()["spectators"] for relay in relays]
                    assert sum(spread) == FOLLOWERS and min(spread) > 0, spread

                    before = await match.play(6, GOAL_EVERY)
                    await wait_for(lambda: all(f.version == ann.version for f in followers), 15, "the goals")
                    steady = [lag for f in followers for lag in lags(before, f)]
                    visits_at_kill = {id(f): len(f.visits) for f in followers}

                    relays[0].stop(signal.SIGKILL)
                    killed_at = time.monotonic()
                    after = await match.play(15, GOAL_EVERY)
                    await wait_for(lambda: all(f.version == ann.version for f in followers), 40,
                                   "every follower to hold the last goal after the kill", interval=0.2)
                    await wait_for(lambda: relays[1].health()["spectators"] == FOLLOWERS, 20,
                                   "every follower on the relay left")
                    for _ in range(3):  # nginx passes the dead relay over
                        status, body = https_get(nginx.port, certs, "/healthz")
                        assert status == 200 and json.loads(body)["spectators"] == FOLLOWERS
                    stop.set()
                    await asyncio.gather(*tasks)

                    moved = [f for f in followers if len(f.visits) > visits_at_kill[id(f)]]
                    back_after = [f.visits[visits_at_kill[id(f)]].opened_at - killed_at for f in moved]
                    offers = [(f.visits[visits_at_kill[id(f)]].held_before, f.visits[visits_at_kill[id(f)]].first_offer)
                              for f in moved]
                    after_kill = [lag for f in followers for lag in lags(after, f)]
                    first_reached = [min(lags([press], f)[0] for f in followers) for press in before]
                    print(f"through nginx, {FOLLOWERS} followers on 2 relays (one Python process reads all 500 "
                          f"TLS connections): " + summary("press -> follower", steady) + "; "
                          + summary("press -> first follower", first_reached))
                    print(f"relay killed: {len(moved)} followers moved; reconnected through nginx after "
                          f"p50 {percentile(back_after, 0.5):.2f} s, max {max(back_after):.2f} s "
                          f"({sum(f.connect_failures for f in moved)} failed attempts); first state offered "
                          f"there >= the one held in {sum(o is None or o >= h for h, o in offers)}/{len(offers)}; "
                          + summary("press -> follower in the 15 s after", after_kill))
                    assert 0 < len(moved) < FOLLOWERS
                    for follower in followers:
                        assert never_went_back(follower) and not follower.gaps, (follower.held, follower.gaps)
                        assert not follower.offered_older, follower.offered_older
                    # None: caught up by the query with nothing to send (the relay held no newer version)
                    assert all(offered is None or offered >= held for held, offered in offers), offers
                    # The relay left took them all in without refusing any at accept (nginx would
                    # have taken it out of its rotation for that).
                    assert not [line for line in relays[1].errors + relays[1].output if "refusing connections" in line]
                    await ann.close()
                run(scenario())
            finally:
                if nginx is not None:
                    nginx.cleanup()
                certs.cleanup()
