"""The club's rig and deploy file on their own, without the club server: the private PostgreSQL
(made and run by the `postgres` user when root, a password over TCP for the role `gather`, data
kept across an immediate shutdown, stopped by PID with nothing left running) and nginx from
deploy/nginx/gather-club.conf (it starts with upstreams that are down; in front of two plain
upstreams it spreads requests, replaces a phone's X-Forwarded-For, passes the Host and scheme,
refuses a body far over 16 KiB with 413, and upgrades /club/live with its subprotocol)."""
import asyncio
import json
import os
import pwd
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from websockets.asyncio.client import connect
from websockets.asyncio.server import serve

from club_nginx import ClubNginx
from club_postgres import PostgresCluster, _pid_alive
from clublib import request


def psql_over_tcp(cluster: PostgresCluster, database: str, sql: str, password: str) -> subprocess.CompletedProcess:
    url = cluster.url(database).replace(cluster.password, password)
    return subprocess.run([os.path.join(cluster.bin, "psql"), "-X", "-q", "-At", url, "-c", sql],
                          capture_output=True, text=True, timeout=30)


def test_the_private_cluster_runs_as_postgres_keeps_committed_data_and_stops_by_pid():
    cluster = PostgresCluster()
    try:
        cluster.start()
        owner = pwd.getpwuid(os.stat(f"/proc/{cluster.pid}").st_uid).pw_name
        assert owner == ("postgres" if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name)
        database = cluster.create_database()
        made = psql_over_tcp(cluster, database, "CREATE TABLE t (x int); INSERT INTO t VALUES (42); "
                                                "SELECT current_user", cluster.password)
        assert made.returncode == 0 and made.stdout.strip() == "gather", made
        assert psql_over_tcp(cluster, database, "SELECT 1", "wrong-password").returncode != 0
        cluster.restart("immediate")
        kept = psql_over_tcp(cluster, database, "SELECT x FROM t", cluster.password)
        assert kept.stdout.strip() == "42", kept
        pid, root = cluster.pid, cluster.root
    finally:
        cluster.cleanup()
    assert not _pid_alive(pid) and not os.path.exists(root)


class Echo(BaseHTTPRequestHandler):
    """A plain upstream that answers with what nginx sent it (not the club: the file is tested)."""
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        seen = {"port": self.server.server_address[1], **{k: self.headers.get(k) for k in
                                                          ("Host", "X-Forwarded-For", "X-Forwarded-Proto")}}
        raw = json.dumps(seen).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


def test_nginx_from_the_deploy_file_starts_spreads_forwards_caps_bodies_and_upgrades_club_live():
    down = ClubNginx([1, 2])  # nothing listens there: nginx starts all the same and answers 502
    try:
        down.start()
        assert request(down.base_url, "GET", "/club/api/club")[0] == 502
    finally:
        down.cleanup()

    upstreams = [ThreadingHTTPServer(("127.0.0.1", 0), Echo) for _ in range(2)]
    for upstream in upstreams:
        threading.Thread(target=upstream.serve_forever, daemon=True).start()
    nginx = ClubNginx([u.server_address[1] for u in upstreams])
    try:
        nginx.start()
        ports = set()
        for _ in range(4):
            status, seen = request(nginx.base_url, "POST", "/club/api/x", {"id": "a"},
                                   headers={"X-Forwarded-For": "203.0.113.9"})
            assert status == 200 and seen["X-Forwarded-For"] == "127.0.0.1", seen
            assert seen["Host"] == f"127.0.0.1:{nginx.port}" and seen["X-Forwarded-Proto"] == "http", seen
            ports.add(seen["port"])
        assert ports == {u.server_address[1] for u in upstreams}
        assert request(nginx.base_url, "POST", "/club/api/x", " " * (16 * 1024 + 200))[0] == 200
        assert request(nginx.base_url, "POST", "/club/api/x", " " * (64 * 1024))[0] == 413
    finally:
        nginx.cleanup()
        for upstream in upstreams:
            upstream.shutdown()
            upstream.server_close()

    async def upgraded():
        async def handler(ws):
            await ws.send(json.dumps({"subprotocol": ws.subprotocol, "path": ws.request.path}))
        async with serve(handler, "127.0.0.1", 0, subprotocols=["club.v1"]) as server:
            port = server.sockets[0].getsockname()[1]
            front = ClubNginx([port, port])
            try:
                front.start()
                async with connect(f"ws://127.0.0.1:{front.port}/club/live", subprotocols=["club.v1"],
                                   open_timeout=10) as ws:
                    assert ws.subprotocol == "club.v1"
                    return json.loads(await asyncio.wait_for(ws.recv(), 5))
            finally:
                front.cleanup()
    assert asyncio.run(upgraded()) == {"subprotocol": "club.v1", "path": "/club/live"}
