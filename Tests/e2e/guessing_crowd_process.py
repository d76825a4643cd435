"""Runs `guessing_crowd.py` as a process of its own for a test, so that the crowd's hundred
sockets and the organiser the test measures do not share one Python event loop."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from gatherlib import GatherServer

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "guessing_crowd.py")


class GuessingCrowd:
    def __init__(self, server: GatherServer, username: str, seconds: float, addresses: int = 50,
                 per_address: int = 2):
        self.arguments = [sys.executable, SCRIPT, str(server.port), server.ca_path, username, str(seconds),
                          str(addresses), str(per_address)]
        self.seconds = seconds
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> "GuessingCrowd":
        self.process = subprocess.Popen(self.arguments, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        ready = self.process.stdout.readline().strip()
        assert ready == "ready", f"the crowd did not connect: {ready!r}"
        return self

    def start(self) -> float:
        """Lets the crowd loose; returns when (time.monotonic) it began."""
        self.process.stdin.write("go\n")
        self.process.stdin.flush()
        return time.monotonic()

    def answers(self) -> dict[str, int]:
        """Waits for the crowd to finish; its answers counted by outcome."""
        out, _ = self.process.communicate(timeout=self.seconds + 60)
        return json.loads(out.strip().splitlines()[-1])

    def __exit__(self, *exc):
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


FLOOD_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "login_flood.py")


class LoginFlood(GuessingCrowd):
    """`login_flood.py` as a process of its own: every connection sends a wrong-password login (a
    new password each time) every `interval` seconds, answered or not."""

    def __init__(self, server: GatherServer, username: str, seconds: float, addresses: int = 50,
                 per_address: int = 2, interval: float = 0.05):
        super().__init__(server, username, seconds, addresses, per_address)
        self.arguments = [sys.executable, FLOOD_SCRIPT, str(server.port), server.ca_path, username, str(seconds),
                          str(addresses), str(per_address), str(interval)]
