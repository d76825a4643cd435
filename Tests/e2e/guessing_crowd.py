"""A guessing crowd, run as its own process so that the organiser the test measures is not queued
behind a hundred busy sockets in the test's own event loop: `addresses` loopback addresses from
127.0.0.2, `per_address` connections each, every connection sending a wrong-password login again
as soon as the last one is answered, for `seconds`. Prints "ready" once every connection is open,
waits for a line on stdin to start, and prints the answers it got as one JSON line at the end.
Loopback only; bounded in time and connections.

    python3 guessing_crowd.py PORT CA_PATH USERNAME SECONDS [ADDRESSES] [PER_ADDRESS]
"""
from __future__ import annotations

import asyncio
import json
import ssl
import sys
import time
import uuid

import websockets

WRONG = "not the password"  # long enough to reach the password check


async def guess(ws, username: str, stop: float, answers: dict):
    while time.monotonic() < stop:
        request_id = uuid.uuid4().hex
        try:
            await ws.send(json.dumps({"type": "login", "id": request_id, "username": username, "password": WRONG}))
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), max(0.1, stop + 30 - time.monotonic())))
                if message["type"] == "session" or (message["type"] == "error" and message.get("id") == request_id):
                    break
        except (TimeoutError, asyncio.TimeoutError, websockets.ConnectionClosed):
            answers["no answer"] = answers.get("no answer", 0) + 1
            return
        key = "session" if message["type"] == "session" else message.get("code", message["type"])
        answers[key] = answers.get(key, 0) + 1


async def crowd(port: int, ca_path: str, username: str, seconds: float, addresses: int, per_address: int):
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
    stop = time.monotonic() + seconds
    await asyncio.gather(*(guess(ws, username, stop, answers) for ws in sockets))
    await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
    print(json.dumps(answers), flush=True)


if __name__ == "__main__":
    port, ca_path, username, seconds = int(sys.argv[1]), sys.argv[2], sys.argv[3], float(sys.argv[4])
    addresses = int(sys.argv[5]) if len(sys.argv) > 5 else 50
    per_address = int(sys.argv[6]) if len(sys.argv) > 6 else 2
    asyncio.run(crowd(port, ca_path, username, seconds, addresses, per_address))
