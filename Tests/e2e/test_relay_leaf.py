"""The leaf link between a venue's laptop and the cloud hub (issue 22; PROTOCOL.md §16.3): the hub
authenticates the venue's leaf with a user whose permissions are scoped to the venue, in an
account of the venue's own, over TLS; passwords never reach the command line or the logs.

Real `nats-server` processes configured as deploy/nats/hub.conf and venue.conf say, a CA and a
certificate for 127.0.0.1 made here, the real `gather serve`, `gather nats mirror` and `gather
relay`, and a rogue leaf speaking the leaf protocol by hand (a laptop that ignores what the hub
told it)."""
import asyncio
import datetime
import ipaddress
import json
import os
import socket
import ssl
import subprocess
import tempfile

import nats
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from gatherlib import BINARY, GatherServer, Live, run, signed_in
from natslib import NatsServer, RelayProcess, read_subject, take_down, venue_key, wait_for
import pytest

# Mostly waiting on other processes (NATS, PostgreSQL, an SMTP server, restarts): make test runs it
# in the serial lane beside the parallel phase (conftest.py).
pytestmark = pytest.mark.mostly_waits

V2 = ("gather.v2",)
# The hub logs this once a venue's leaf has passed TLS and authentication (2.9.10).
LINKED = 'to account "RIVERSIDE"'
LEAF_PASSWORD = "leaf-secret-71c2"
ADMIN_PASSWORD = "admin-secret-5e0a"
RELAY_PASSWORD = "relay-secret-c4d9"
RELAYS_ADMIN_PASSWORD = "relays-admin-secret-6a1e"
OTHER_PASSWORD = "other-secret-2b88"
# The club's account in hub.conf (Tests/e2e/test_club_nats_accounts.py runs the club with them).
CLUB_PASSWORD = "club-secret-4f17"
CLUB_ADMIN_PASSWORD = "club-admin-secret-9d02"
# `gather serve`'s local user on the laptop's nats-server (venue.conf has no anonymous access).
VENUE_PASSWORD = "venue-secret-93fa"
VENUE_LOGIN = ("--nats-user", "gather")
VENUE_ENV = {"GATHER_NATS_PASSWORD": VENUE_PASSWORD}

DEPLOY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "deploy", "nats")


def deployed(name: str, replacements: dict[str, str]) -> str:
    """deploy/nats/NAME as a club fills it in: every CHANGE-ME and machine path replaced (each
    must be found, so the test follows the file)."""
    with open(os.path.join(DEPLOY, name)) as handle:
        text = handle.read()
    for old, new in replacements.items():
        assert old in text, f"{old!r} is no longer in deploy/nats/{name}"
        text = text.replace(old, new)
    assert not [line for line in text.splitlines() if "CHANGE-ME" in line.split("#")[0]], name
    return text


def hub_config(certs: "Certificates") -> str:
    """deploy/nats/hub.conf on loopback, plus a second venue's account ("other")."""
    return deployed("hub.conf", {
        "listen: 0.0.0.0:4222": "",  # the test's -a 127.0.0.1 -p
        "listen: 0.0.0.0:7422": 'listen: "127.0.0.1:LEAF_PORT"',
        "/var/lib/gather-nats-hub": "STORE_DIR",
        "/etc/nats/CHANGE-ME-hub-fullchain.pem": certs.cert_file,
        "/etc/nats/CHANGE-ME-hub-key.pem": certs.key_file,
        "CHANGE-ME-leaf-password": LEAF_PASSWORD,
        "CHANGE-ME-admin-password": ADMIN_PASSWORD,
        "CHANGE-ME-relay-password": RELAY_PASSWORD,
        "CHANGE-ME-relays-admin-password": RELAYS_ADMIN_PASSWORD,
        "CHANGE-ME-club-password": CLUB_PASSWORD,
        "CHANGE-ME-club-admin-password": CLUB_ADMIN_PASSWORD,
        "accounts {": 'accounts {\n  OTHER: { jetstream: enabled, users: [ { user: other, password: "%s" } ] }'
                      % OTHER_PASSWORD,
    })


def venue_config(hub_leaf_port: int, ca_file: str) -> str:
    """deploy/nats/venue.conf: the leaf dials the hub over TLS, trusting `ca_file`."""
    return deployed("venue.conf", {
        "listen: 127.0.0.1:4222": "",
        "/var/lib/gather-nats": "STORE_DIR",
        "CHANGE-ME-leaf-password": LEAF_PASSWORD,
        "CHANGE-ME-venue-password": VENUE_PASSWORD,
        "CHANGE-ME-hub.example.org:7422": f"127.0.0.1:{hub_leaf_port}",
        "/etc/nats/CHANGE-ME-hub-ca.pem": ca_file,
        "reconnect: 2": "reconnect: 1",
    })


# MARK: - Certificates

class Certificates:
    """A CA and a server certificate for 127.0.0.1 signed by it, and a second CA the hub never used."""

    def __init__(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="gather-leaf-tls-")
        ca_key, self.ca_cert = self._authority("Gather test hub CA")
        self.ca_file = self._write("ca.pem", self.ca_cert.public_bytes(serialization.Encoding.PEM))
        _, stranger = self._authority("Somebody else's CA")
        self.stranger_ca_file = self._write("stranger-ca.pem", stranger.public_bytes(serialization.Encoding.PEM))
        key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.timezone.utc)
        cert = (x509.CertificateBuilder()
                .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
                .issuer_name(self.ca_cert.subject).public_key(key.public_key())
                .serial_number(x509.random_serial_number())
                .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
                .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                               critical=False)
                .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                .sign(ca_key, hashes.SHA256()))
        self.cert_file = self._write("hub.pem", cert.public_bytes(serialization.Encoding.PEM))
        self.key_file = self._write("hub-key.pem", key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))

    @staticmethod
    def _authority(name: str):
        key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
        now = datetime.datetime.now(datetime.timezone.utc)
        cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
                .serial_number(x509.random_serial_number())
                .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
                .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
                .sign(key, hashes.SHA256()))
        return key, cert

    def _write(self, name: str, data: bytes) -> str:
        path = os.path.join(self._tmp.name, name)
        with open(path, "wb") as handle:
            handle.write(data)
        return path

    def cleanup(self):
        self._tmp.cleanup()


def hub_server(certs: Certificates) -> NatsServer:
    return NatsServer(config=hub_config(certs))


def mirror(hub: NatsServer) -> subprocess.CompletedProcess:
    """The venue account's mirror of the leaf's stream, then the relays' account's mirror of that
    (what relays read), as hub.conf's header runs them; the first that fails, else the venue's."""
    made = subprocess.run([BINARY, "nats", "mirror", "--hub", hub.url, "--nats-user", "admin", "--venue", "riverside"],
                          capture_output=True, text=True, timeout=30,
                          env={**os.environ, "GATHER_NATS_PASSWORD": ADMIN_PASSWORD})
    if made.returncode != 0:
        return made
    for_relays = subprocess.run([BINARY, "nats", "mirror", "--hub", hub.url, "--nats-user", "relays-admin", "--venue",
                                 "riverside", "--for-relays"], capture_output=True, text=True, timeout=30,
                                env={**os.environ, "GATHER_NATS_PASSWORD": RELAYS_ADMIN_PASSWORD})
    return made if for_relays.returncode == 0 else for_relays


async def stored(url: str, stream: str, user: str, password: str) -> int:
    nc = await nats.connect(url, user=user, password=password, connect_timeout=5, allow_reconnect=False)
    try:
        return (await nc.jetstream().stream_info(stream)).state.messages
    finally:
        await nc.close()


async def mirrored_version(hub: NatsServer) -> int | None:
    """The version of the hub mirror's last message (None while it holds none)."""
    try:
        messages = await read_subject(hub.url, "GATHER_riverside", "gather.riverside.state",
                                      user="admin", password=ADMIN_PASSWORD, timeout=2)
    except Exception:  # noqa: BLE001 - not there yet
        return None
    return json.loads(messages[-1].data)["version"] if messages else None


def rogue_leaf_publish(port: int, ca_file: str, subject: str, payload: bytes) -> None:
    """A leaf that ignores the permissions the hub sent it: CONNECT with the venue's user over TLS,
    then an LMSG on `subject`, then PING and wait for the PONG (the hub has read the LMSG)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
        reader = raw.makefile("rb")
        assert reader.readline().startswith(b"INFO ")  # sent in plain before the TLS handshake (2.9)
        context = ssl.create_default_context(cafile=ca_file)
        with context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            connect = {"user": "riverside", "pass": LEAF_PASSWORD, "name": "rogue", "verbose": False, "pedantic": False}
            tls.sendall(b"CONNECT " + json.dumps(connect).encode() + b"\r\nPING\r\n")
            lines = tls.makefile("rb")
            for _ in range(200):  # the hub's INFO, LS+ lines, then the PONG
                line = lines.readline()
                assert line, "the hub closed the rogue leaf's connection"
                if line.startswith(b"PONG"):
                    break
            tls.sendall(b"LMSG %s %d\r\n%s\r\nPING\r\n" % (subject.encode(), len(payload), payload))
            for _ in range(200):
                line = lines.readline()
                if not line or line.startswith(b"PONG") or line.startswith(b"-ERR"):
                    return


# MARK: - Tests

def test_the_leaf_link_carries_tls_and_the_venue_user_reaches_only_its_own_venue():
    certs = Certificates()
    hub = hub_server(certs)
    leaf = server = relay = None
    try:
        hub.start()
        leaf = NatsServer(config=venue_config(hub.leaf_port, certs.ca_file)).start()
        server = GatherServer(extra_args=("--nats", leaf.url, "--venue", "riverside", *VENUE_LOGIN),
                              env=VENUE_ENV).start()

        async def scenario():
            await wait_for(lambda: any(LINKED in line for line in hub.log), 10, "the leaf to connect to the hub over TLS")
            created = mirror(hub)
            assert created.returncode == 0 and "Created the mirror GATHER_riverside" in created.stdout, created.stderr
            other = await nats.connect(hub.url, user="other", password=OTHER_PASSWORD)
            await other.jetstream().add_stream(name="GATHER_other", subjects=["gather.other.state"])
            await other.close()

            nonlocal relay
            relay = RelayProcess(hub.url, extra_args=("--nats-user", "relay"),
                                 env={"GATHER_NATS_PASSWORD": RELAY_PASSWORD}, venue_key=venue_key(server)).start()
            follower = await Live.connect(None, subprotocols=V2, url=relay.ws_url)
            ann = await signed_in(server, "ann", subprotocols=V2)
            for name in ("Ann", "Ben"):
                assert (await ann.command({"kind": "addPlayer", "name": name}))["type"] == "ack"
            # The mirror follows across the TLS leaf link, and the relay's follower with it.
            await wait_for(lambda: _is(hub, ann.version), 20, "the mirror to reach the venue's version", interval=0.2)
            await follower.wait_snapshot(ann.version, timeout=15)
            assert follower.snapshot == ann.snapshot
            # The relay's watcher report crosses the link the other way: the venue counts its follower.
            # (It may have come while `ann` waited for its acks: `messages` holds everything read.)
            def counted(message):
                return message["type"] == "presence" and message.get("remote") == 1
            if not any(counted(message) for message in ann.messages):
                await ann.until(counted, 15)

            # Within the venue's account, a hub client hears the venue's ticks across the link
            # but not a state of another venue published on the laptop: the leaf user may not.
            heard = []
            watcher = await nats.connect(hub.url, user="admin", password=ADMIN_PASSWORD)

            async def on_message(message):
                heard.append(message.subject)
            await watcher.subscribe("gather.riverside.ticks", cb=on_message)
            await watcher.subscribe("gather.other.state", cb=on_message)
            await watcher.flush()
            laptop = await nats.connect(leaf.url, user="gather", password=VENUE_PASSWORD)
            forged = json.dumps({"type": "snapshot", "version": 999, "state": {}}).encode()

            async def published_and_heard():
                # Until the hub's interest has crossed the link, the laptop's messages go nowhere.
                await laptop.publish("gather.other.state", forged)
                await laptop.publish("gather.riverside.ticks", b'{"type":"heartbeat","version":1}')
                await laptop.flush()
                await watcher.flush()
                return "gather.riverside.ticks" in heard
            await wait_for(published_and_heard, 5, "the venue's tick to cross the link", interval=0.1)
            await laptop.publish("gather.other.state", forged)
            await laptop.publish("gather.riverside.ticks", b'{"type":"heartbeat","version":1}')
            await laptop.flush()
            await wait_for(lambda: heard.count("gather.riverside.ticks") >= 2, 5, "the tick after the forgery")
            assert "gather.other.state" not in heard

            # A rogue leaf with the venue's credentials that ignores those permissions: nats-server
            # 2.9.10 does not check a leaf's incoming LMSG against them (its subscribers in the
            # venue's account do hear it), but it stays in the venue's account, so the other
            # venue's stream stores nothing.
            await asyncio.to_thread(rogue_leaf_publish, hub.leaf_port, certs.ca_file, "gather.other.state", forged)
            await asyncio.to_thread(rogue_leaf_publish, hub.leaf_port, certs.ca_file, "gather.riverside.ticks",
                                    b'{"type":"heartbeat","version":2}')
            await wait_for(lambda: heard.count("gather.riverside.ticks") >= 3, 5, "the rogue's own-venue message")
            assert await stored(hub.url, "GATHER_other", "other", OTHER_PASSWORD) == 0
            await watcher.close()
            await laptop.close()

            # And the venue's own mirror still follows.
            assert (await ann.command({"kind": "addPlayer", "name": "Cat"}))["type"] == "ack"
            await wait_for(lambda: _is(hub, ann.version), 20, "the mirror to follow after the forgeries", interval=0.2)
            await follower.wait_snapshot(ann.version, timeout=15)
            assert follower.snapshot == ann.snapshot

            # Passwords given the documented way never reach the command line or the logs.
            with open(f"/proc/{relay.process.pid}/cmdline", "rb") as handle:
                assert RELAY_PASSWORD.encode() not in handle.read()
            for line in relay.output + relay.errors + server.output + server.errors:
                for password in (LEAF_PASSWORD, ADMIN_PASSWORD, RELAY_PASSWORD, RELAYS_ADMIN_PASSWORD):
                    assert password not in line
            for client in (follower, ann):
                await client.close()
        run(scenario())
    finally:
        take_down(relay, server, leaf, hub, certs)


async def _is(hub: NatsServer, version: int) -> bool:
    return await mirrored_version(hub) == version


def test_a_leaf_that_does_not_trust_the_hubs_ca_does_not_connect_and_the_mirror_stays_behind():
    certs = Certificates()
    hub = hub_server(certs)
    leaf = server = None
    try:
        hub.start()
        leaf = NatsServer(config=venue_config(hub.leaf_port, certs.stranger_ca_file)).start()
        server = GatherServer(extra_args=("--nats", leaf.url, "--venue", "riverside", *VENUE_LOGIN),
                              env=VENUE_ENV).start()

        async def scenario():
            created = mirror(hub)
            assert created.returncode == 0, created.stderr
            ann = await signed_in(server, "ann", subprotocols=V2)
            assert (await ann.command({"kind": "addPlayer", "name": "Ann"}))["type"] == "ack"
            await wait_for(lambda: server.health()["publishedVersion"] == ann.version, 5, "the leaf to hold it")
            # The leaf refuses the hub's certificate, and again on its next attempt (every second).
            await wait_for(lambda: sum("certificate signed by unknown authority" in line for line in leaf.log) >= 2, 15,
                           "the leaf to refuse the hub's certificate twice")
            assert any("TLS leafnode handshake error" in line for line in hub.log)
            assert not any(LINKED in line for line in hub.log)
            assert await stored(hub.url, "GATHER_riverside", "admin", ADMIN_PASSWORD) == 0
            await ann.close()
        run(scenario())
    finally:
        take_down(server, leaf, hub, certs)


def test_the_venue_password_never_shows_in_ps_or_the_log():
    """`gather serve --nats-user U` with GATHER_NATS_PASSWORD, as the README says, on a NATS that
    requires the password: connected, and the password is in neither /proc/PID/cmdline nor the
    log, even at debug level."""
    config = """
jetstream { store_dir: "STORE_DIR" }
authorization { users = [ { user: venue, password: "%s" } ] }
""" % LEAF_PASSWORD
    with NatsServer(config=config) as broker:
        server = GatherServer(extra_args=("--nats", broker.url, "--venue", "riverside", "--nats-user", "venue",
                                          "--log-level", "debug"),
                              env={"GATHER_NATS_PASSWORD": LEAF_PASSWORD})
        try:
            server.start()
            with open(f"/proc/{server.process.pid}/cmdline", "rb") as handle:
                cmdline = handle.read()
            assert b"--nats-user\0venue" in cmdline and LEAF_PASSWORD.encode() not in cmdline

            async def scenario():
                ann = await signed_in(server, "ann", subprotocols=V2)
                assert (await ann.command({"kind": "addPlayer", "name": "Ann"}))["type"] == "ack"
                await wait_for(lambda: server.health()["publishedVersion"] == ann.version, 10, "the publication")
                assert server.health()["nats"] == "connected"
                await ann.close()
            run(scenario())
            server.stop()
            assert server.output and not any(LEAF_PASSWORD in line for line in server.output + server.errors)
        finally:
            server.cleanup()
