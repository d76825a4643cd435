"""Tools of a stranger on the same Wi-Fi, for test_abuse.py: raw HTTP over TLS or plain, clients
from other loopback addresses (Linux routes all of 127.0.0.0/8 to lo, so each stands in for
another phone), and readings of the server process and its /metrics. Loopback only."""
from __future__ import annotations

import asyncio
import os
import resource
import select
import socket
import ssl
import time
import uuid

import websockets

from gatherlib import GatherServer, Live, phone_address

H2C_SETTINGS = "AAMAAABkAARAAAAAAAIAAAAA"
# The client connection preface of RFC 9113 §3.4 followed by an empty SETTINGS frame.
H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"


def h2c_request(port: int, path: str = "/") -> bytes:
    return (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: h2c\r\n"
            f"HTTP2-Settings: {H2C_SETTINGS}\r\nConnection: Upgrade, HTTP2-Settings\r\n\r\n").encode()


def open_socket(port: int, tls: ssl.SSLContext | None = None, source: str = "127.0.0.1", timeout: float = 5):
    raw = socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(source, 0))
    return tls.wrap_socket(raw, server_hostname="127.0.0.1") if tls else raw


def read_until_quiet(sock, seconds: float) -> tuple[bytes, bool]:
    """Everything the server sends within `seconds`; and whether it closed the connection."""
    received = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        sock.settimeout(max(0.05, min(0.5, deadline - time.monotonic())))
        try:
            chunk = sock.recv(65536)
        except (TimeoutError, socket.timeout):
            continue
        except (ssl.SSLError, OSError):
            return received, True
        if not chunk:
            return received, True
        received += chunk
    return received, False


def split_http_response(data: bytes) -> tuple[str, dict, bytes, bytes]:
    """(status line, lower-cased headers, body by Content-Length, bytes after the body)."""
    head, separator, rest = data.partition(b"\r\n\r\n")
    assert separator, f"no complete HTTP head in {data[:200]!r}"
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    return lines[0], headers, rest[:length], rest[length:]


def count_closed(sockets: list) -> int:
    """How many of these plain sockets the server has closed (readable, and at end of file)."""
    closed = 0
    for start in range(0, len(sockets), 256):
        batch = sockets[start:start + 256]
        readable, _, _ = select.select(batch, [], [], 0.2)
        for sock in readable:
            try:
                if sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"":
                    closed += 1
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                closed += 1
    return closed


def looks_like_http2(data: bytes) -> bool:
    """An HTTP/2 server's first bytes are a SETTINGS frame: a 9-byte header of type 0x4 on stream 0."""
    return len(data) >= 9 and data[3] == 0x04 and data[5:9] == b"\x00\x00\x00\x00"


# MARK: - WebSocket clients from other addresses

async def connect_from(server: GatherServer, source: str, **kwargs) -> Live:
    return await Live.connect(server, source=source, **kwargs)


async def login_reply(live: Live, username: str, password: str, timeout: float = 30) -> dict:
    request_id = uuid.uuid4().hex
    await live.send({"type": "login", "id": request_id, "username": username, "password": password})
    return await live.session_reply(request_id, timeout=timeout)


def outcome(reply: dict) -> str:
    """`session`, or the error's code."""
    return "session" if reply["type"] == "session" else reply.get("code", reply["type"])


async def organiser_connections(server: GatherServer, username: str, count: int) -> list[Live]:
    """`count` connections logged in as one new organiser, each from its own loopback address
    (the token bucket is per connection, and one address's connections share a budget)."""
    first = await Live.connect(server, source=phone_address(0))
    await first.next()
    session = await first.register(username)
    assert session["role"] == "organiser", session
    connections = [first]
    for index in range(count - 1):
        other = await Live.connect(server, source=phone_address(index + 1))
        await other.next()
        await other.send({"type": "resume", "id": f"resume-{index}", "token": session["token"]})
        assert (await other.session_reply(f"resume-{index}"))["role"] == "organiser"
        connections.append(other)
    return connections


async def burst(live: Live, actions: list[dict], timeout: float = 30) -> list[dict]:
    """Sends every command at once (as fast as the socket takes them), then reads all the replies."""
    ids = [uuid.uuid4().hex for _ in actions]
    for command_id, action in zip(ids, actions):
        await live.send({"type": "command", "id": command_id, "base": live.version, "action": action})
    replies = {}
    deadline = time.monotonic() + timeout
    while len(replies) < len(ids):
        message = await live.next(max(0.1, deadline - time.monotonic()))
        if message.get("id") in ids and message["type"] in ("ack", "rejected"):
            replies[message["id"]] = message
    return [replies[command_id] for command_id in ids]


async def close_all(connections):
    await asyncio.gather(*(c.close() for c in connections), return_exceptions=True)


# MARK: - Readings of the server

def metrics(server: GatherServer) -> dict[str, float]:
    status, _, body = server.get("/metrics")
    assert status == 200, status
    values = {}
    for line in body.decode().splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            values[name] = float(value)
    return values


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def raise_open_file_limit(wanted: int = 4096):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, wanted), hard))


def timed_page_load(server: GatherServer, path: str = "/") -> tuple[int, float]:
    started = time.monotonic()
    status, _, body = server.get(path)
    assert body, "an empty page"
    return status, time.monotonic() - started


def process_cpu_seconds(pid: int) -> float:
    """User plus system CPU time the process has used, from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def thread_cpu_seconds(pid: int) -> dict[str, float]:
    """CPU time per thread name of the process (libdispatch names the KDF's threads after their
    queue's root, `…utility-qos`), from /proc/PID/task/*/stat."""
    seconds: dict[str, float] = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as stat:
                data = stat.read()
        except OSError:
            continue
        name = data[data.index("(") + 1:data.rindex(")")]
        fields = data.rsplit(")", 1)[1].split()
        seconds[name] = seconds.get(name, 0) + (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return seconds
