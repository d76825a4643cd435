"""Helpers for the tests of the signed stream: checking the venue's `Gather-Signature` with an
independent Ed25519 (PyPI `cryptography`, not our code), and forging messages as an attacker
who may publish on the venue's subjects would (unsigned, or signed with a key of their own)."""
from __future__ import annotations

import base64
import json

import nats
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

STATE = "gather.riverside.state"
TICKS = "gather.riverside.ticks"


def verifies(venue_key: str, epoch: str, body: bytes, signature: str | None) -> bool:
    """True when `signature` is the venue key's signature of `epoch + "\\n" + body`."""
    if not signature:
        return False
    key = Ed25519PublicKey.from_public_bytes(base64.b64decode(venue_key))
    try:
        key.verify(base64.b64decode(signature), epoch.encode() + b"\n" + body)
        return True
    except InvalidSignature:
        return False


class Forger:
    """An attacker with publish rights on the venue's subjects and a key of their own."""

    def __init__(self, nats_url: str):
        self.nats_url = nats_url
        self.key = Ed25519PrivateKey.generate()

    def signature(self, epoch: str, body: bytes) -> str:
        return base64.b64encode(self.key.sign(epoch.encode() + b"\n" + body)).decode()

    async def publish_state(self, message: dict, epoch: str, rollup: bool = False) -> None:
        """Into the venue's JetStream stream, as the venue's own messages are stored."""
        body = json.dumps(message).encode()
        headers = {"Gather-Signature": self.signature(epoch, body)}
        if rollup:
            headers["Nats-Rollup"] = "sub"
        nc = await nats.connect(self.nats_url, connect_timeout=5, allow_reconnect=False)
        try:
            await nc.jetstream().publish(STATE, body, headers=headers)
        finally:
            await nc.close()

    async def publish_ticks(self, body: bytes, epoch: str) -> None:
        nc = await nats.connect(self.nats_url, connect_timeout=5, allow_reconnect=False, max_outstanding_pings=5)
        try:
            await nc.publish(TICKS, body, headers={"Gather-Signature": self.signature(epoch, body)})
            await nc.flush()
        finally:
            await nc.close()
