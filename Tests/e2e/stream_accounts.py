"""The venue and its relays on one nats-server with accounts, as deploy/nats/one-server.conf is
documented (README "Followers beyond the Wi-Fi"): the venue's account with `gather serve`'s user,
the relays' account with its own mirror of the venue's stream and a user per relay. Filled in with
test passwords and a temporary store; every process real (nats-server, `gather serve`, `gather
nats mirror --for-relays`, `gather relay`). The attacker of these tests holds the venue's NATS
user (`attacker`) or a relay's (`relay_user`), as issue 41 found them handed out."""
from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import time

import nats

from gatherlib import BINARY, GatherServer, Live
from natslib import NatsServer, RelayProcess, V2, VENUE, venue_key, wait_for

HERE = os.path.dirname(os.path.abspath(__file__))
DEPLOY = os.path.join(HERE, "..", "..", "deploy", "nats")
VENUE_PASSWORD = "venue-secret-5c2e"
RELAYS_ADMIN_PASSWORD = "relays-admin-secret-0b7d"
RELAY_PASSWORD = "relay-secret-77f1"
STATE = f"gather.{VENUE}.state"
TICKS = f"gather.{VENUE}.ticks"
STREAM = f"GATHER_{VENUE}"


def one_server_conf() -> str:
    """deploy/nats/one-server.conf, on the test's loopback port and store, with test passwords."""
    with open(os.path.join(DEPLOY, "one-server.conf")) as handle:
        text = handle.read()
    for old, new in {"listen: 0.0.0.0:4222": "", "/var/lib/gather-nats": "STORE_DIR",
                     "CHANGE-ME-venue-password": VENUE_PASSWORD, "CHANGE-ME-relays-admin-password": RELAYS_ADMIN_PASSWORD,
                     "CHANGE-ME-relay-password": RELAY_PASSWORD}.items():
        assert old in text, old
        text = text.replace(old, new)
    return text


def accounts_server() -> NatsServer:
    return NatsServer(config=one_server_conf())


def venue(broker: NatsServer, data_dir: str | None = None) -> GatherServer:
    """`gather serve` as the venue's user (not started)."""
    return GatherServer(data_dir=data_dir, extra_args=("--nats", broker.url, "--venue", VENUE, "--nats-user", "gather"),
                        env={"GATHER_NATS_PASSWORD": VENUE_PASSWORD})


def relays_mirror(broker: NatsServer, timeout: float = 20) -> None:
    """`gather nats mirror --for-relays` as the relays' operator, retried while the venue's stream
    is not there yet."""
    # GATHER_MIRROR_BIN: another build makes the mirror (to run these tests against a `gather`
    # from before --for-relays, and see them fail on what they test rather than on the set-up).
    binary = os.environ.get("GATHER_MIRROR_BIN", BINARY)
    deadline = time.monotonic() + timeout
    while True:
        result = subprocess.run([binary, "nats", "mirror", "--hub", broker.url, "--nats-user", "relays-admin",
                                 "--venue", VENUE, "--for-relays"], capture_output=True, text=True, timeout=30,
                                env={**os.environ, "GATHER_NATS_PASSWORD": RELAYS_ADMIN_PASSWORD})
        if result.returncode == 0:
            return
        assert time.monotonic() < deadline, result.stderr
        time.sleep(0.5)


def relay(broker: NatsServer, server: GatherServer) -> RelayProcess:
    """A relay as the relays' user, reading the relays' mirror (not started)."""
    return RelayProcess(broker.url, extra_args=("--nats-user", "relay"), env={"GATHER_NATS_PASSWORD": RELAY_PASSWORD},
                        venue_key=venue_key(server))


@contextlib.contextmanager
def venue_and_relays(count: int = 1):
    """The accounts' nats-server, the venue, the relays' mirror and `count` relays, all started;
    yields (broker, server, relays)."""
    with accounts_server() as broker:
        server = venue(broker).start()
        relays: list[RelayProcess] = []
        try:
            relays_mirror(broker)
            relays = [relay(broker, server).start() for _ in range(count)]
            yield broker, server, relays
        finally:
            for one in relays:
                one.stop()
            server.cleanup()


async def as_venue_user(broker: NatsServer):
    """A NATS connection with the venue's own credentials (what issue 41's attacker held)."""
    return await nats.connect(broker.url, user="gather", password=VENUE_PASSWORD, connect_timeout=5,
                              allow_reconnect=False)


async def as_relay_user(broker: NatsServer, **options):
    return await nats.connect(broker.url, user="relay", password=RELAY_PASSWORD, connect_timeout=5,
                              allow_reconnect=False, inbox_prefix=b"_INBOX.relay", **options)


async def follower_of(one: RelayProcess, timeout: float = 15) -> Live:
    """A gather.v2 follower of a relay, once it holds a snapshot."""
    client = await Live.connect(None, subprotocols=V2, url=one.ws_url)
    await client.until(lambda m: m["type"] == "snapshot", timeout)
    return client


async def read_for(client: Live, seconds: float) -> list[dict]:
    """Everything `client` receives in the next `seconds`."""
    seen: list[dict] = []
    deadline = time.monotonic() + seconds
    while (remaining := deadline - time.monotonic()) > 0:
        try:
            seen.append(await client.next(remaining))
        except (asyncio.TimeoutError, TimeoutError):
            break
    return seen


async def stream_last(broker: NatsServer):
    """The venue stream's last message on the state subject, read as the venue's user."""
    nc = await as_venue_user(broker)
    try:
        return await nc.jetstream().get_last_msg(STREAM, STATE)
    finally:
        await nc.close()


__all__ = ["accounts_server", "venue", "relays_mirror", "relay", "venue_and_relays", "as_venue_user", "as_relay_user",
           "follower_of", "read_for", "stream_last", "wait_for", "STATE", "TICKS", "STREAM", "VENUE"]
