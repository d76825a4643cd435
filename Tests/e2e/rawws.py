"""A deliberately minimal WebSocket client over TLS, for frames a good library refuses to send
(invalid UTF-8, odd fragmentation) and for handshakes we want to inspect byte by byte."""
from __future__ import annotations

import base64
import os
import socket
import struct
import time


def handshake(server, path: str = "/live", subprotocol: str | None = "gather.v1", origin: str | None = None,
              host: str | None = None, socket_options: tuple[tuple[int, int, int], ...] = (), source: str | None = None):
    """Returns (status_line, headers_text, socket). The socket is left open on success.
    `socket_options` (level, option, value) are set before connecting, e.g. a small receive buffer;
    `source` is the loopback address to connect from (another phone, as far as the server can tell)."""
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    raw.settimeout(10)
    # As browsers and asyncio do: without it the request, written right after TLS's Finished,
    # waits for the server's delayed ACK, 40 ms a handshake (49 ms against 4 ms on loopback).
    raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    for level, option, value in socket_options:
        raw.setsockopt(level, option, value)
    if source:
        raw.bind((source, 0))
    raw.connect(("127.0.0.1", server.port))
    sock = server.ssl_context().wrap_socket(raw, server_hostname="127.0.0.1")
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [f"GET {path} HTTP/1.1", f"Host: {host or f'127.0.0.1:{server.port}'}", "Upgrade: websocket",
             "Connection: Upgrade", f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
    if subprotocol:
        lines.append(f"Sec-WebSocket-Protocol: {subprotocol}")
    if origin:
        lines.append(f"Origin: {origin}")
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    head, rest = read_response_head(sock)
    text = head.decode("latin-1")
    status = text.split("\r\n", 1)[0]
    return status, text, sock, rest


def read_response_head(sock, timeout: float = 10) -> tuple[bytes, bytes]:
    """Reads an HTTP response head (bounded by `timeout`); returns (head, bytes after it)."""
    response = b""
    deadline = time.monotonic() + timeout
    while b"\r\n\r\n" not in response and time.monotonic() < deadline:
        chunk = sock.recv(4096)
        if not chunk:
            break
        response += chunk
    head, _, rest = response.partition(b"\r\n\r\n")
    return head, rest


def frame(opcode: int, payload: bytes, fin: bool = True) -> bytes:
    first = (0x80 if fin else 0) | opcode
    mask = os.urandom(4)
    length = len(payload)
    if length < 126:
        header = struct.pack("!BB", first, 0x80 | length)
    elif length < 65536:
        header = struct.pack("!BBH", first, 0x80 | 126, length)
    else:
        header = struct.pack("!BBQ", first, 0x80 | 127, length)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return header + mask + masked


def split_frames(buffer: bytes) -> tuple[list[tuple[int, bytes]], bytes]:
    """The complete server frames at the front of `buffer` as (opcode, payload), and the rest."""
    frames = []
    while len(buffer) >= 2:
        length = buffer[1] & 0x7F
        offset = 2
        if length == 126:
            if len(buffer) < 4:
                break
            length = struct.unpack("!H", buffer[2:4])[0]
            offset = 4
        elif length == 127:
            if len(buffer) < 10:
                break
            length = struct.unpack("!Q", buffer[2:10])[0]
            offset = 10
        if len(buffer) < offset + length:
            break
        frames.append((buffer[0] & 0x0F, buffer[offset:offset + length]))
        buffer = buffer[offset + length:]
    return frames, buffer


def read_close_code(sock, leftover: bytes = b"", timeout: float = 10) -> int | None:
    """Reads server frames until a close frame; returns its status code (None if the socket just ends)."""
    sock.settimeout(timeout)
    buffer = leftover
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        frames, buffer = split_frames(buffer)
        for opcode, payload in frames:
            if opcode == 0x8:
                return struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
        try:
            chunk = sock.recv(65536)
        except (TimeoutError, OSError):
            return None
        if not chunk:
            return None
        buffer += chunk
    return None


def watch(sock, leftover: bytes = b"", seconds: float = 5) -> tuple[list[int], bool]:
    """Reads server frames for up to `seconds` without answering anything (not even pings).
    Returns the opcodes seen, in order, and whether the server ended the connection."""
    buffer = leftover
    opcodes: list[int] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        frames, buffer = split_frames(buffer)
        opcodes += [opcode for opcode, _ in frames]
        sock.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            continue
        except OSError:
            return opcodes, True
        if not chunk:
            return opcodes, True
        buffer += chunk
    return opcodes, False
