"""A password-guessing flood, run as its own process (issue 41, point 8): `addresses` loopback
addresses from 127.0.0.2, `per_address` connections each, every connection sending a wrong-password
login (a new password each time) every `interval` seconds whether or not the last was answered, for
`seconds`. Prints "ready" once every connection is open, waits for a line on stdin to start, and
prints the answers it got, counted by outcome, as one JSON line at the end. Loopback only; bounded
in connections (at most 250 addresses x 4) and in time (at most 60 s).

    python3 login_flood.py PORT CA_PATH USERNAME SECONDS [ADDRESSES] [PER_ADDRESS] [INTERVAL]
"""
from __future__ import annotations

import asyncio
import json
import ssl
import sys
import time
import uuid

import websockets


async def read_answers(ws, answers: dict):
    try:
        async for raw in ws:
            message = json.loads(raw)
            if message["type"] == "session":
                answers["session"] = answers.get("session", 0) + 1
            elif message["type"] == "error":
                code = message.get("code", "error")
                answers[code] = answers.get(code, 0) + 1
    except websockets.ConnectionClosed:
        answers["closed"] = answers.get("closed", 0) + 1


async def guess(ws, username: str, stop: float, interval: float, sent: list):
    next_at = time.monotonic()
    while time.monotonic() < stop:
        try:
            await ws.send(json.dumps({"type": "login", "id": uuid.uuid4().hex, "username": username,
                                      "password": "guess-" + uuid.uuid4().hex}))
        except websockets.ConnectionClosed:
            return
        sent[0] += 1
        next_at += interval
        await asyncio.sleep(max(0, next_at - time.monotonic()))


async def flood(port: int, ca_path: str, username: str, seconds: float, addresses: int, per_address: int,
                interval: float):
    context = ssl.create_default_context(cafile=ca_path)
    url = f"wss://127.0.0.1:{port}/live"
    sockets = []
    for host in range(2, 2 + addresses):
        for _ in range(per_address):
            ws = await websockets.connect(url, ssl=context, subprotocols=["gather.v1"], max_size=2**22,
                                          open_timeout=20, local_addr=(f"127.0.0.{host}", 0))
            await ws.recv()  # welcome
            sockets.append(ws)
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    answers: dict[str, int] = {}
    sent = [0]
    readers = [asyncio.ensure_future(read_answers(ws, answers)) for ws in sockets]
    stop = time.monotonic() + seconds
    await asyncio.gather(*(guess(ws, username, stop, interval, sent) for ws in sockets))
    await asyncio.sleep(1)  # the last answers
    for reader in readers:
        reader.cancel()
    await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
    answers["sent"] = sent[0]
    print(json.dumps(answers), flush=True)


if __name__ == "__main__":
    port, ca_path, username, seconds = int(sys.argv[1]), sys.argv[2], sys.argv[3], float(sys.argv[4])
    addresses = int(sys.argv[5]) if len(sys.argv) > 5 else 50
    per_address = int(sys.argv[6]) if len(sys.argv) > 6 else 2
    interval = float(sys.argv[7]) if len(sys.argv) > 7 else 0.05
    assert 0 < seconds <= 60 and 1 <= addresses <= 250 and 1 <= per_address <= 4 and interval >= 0.01
    asyncio.run(flood(port, ca_path, username, seconds, addresses, per_address, interval))
