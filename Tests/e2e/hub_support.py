"""The cloud side as a club deploys it, on loopback: the hub (deploy/nats/hub.conf) or a hub of
three (deploy/nats/hub-cluster/hub-N.conf over it), filled in with test passwords, a test CA and
free ports; the venue's leaf dialing it over TLS; the mirror; relays reading it.

Shared by the tests where a part of that chain breaks (a hub node, the uplink, the leaf)."""
from __future__ import annotations

import os
import socket
import subprocess
import time

from gatherlib import BINARY, GatherServer
from natslib import NatsServer, RelayProcess, read_subject, venue_key
# The filled-in deploy files and the test CA of the leaf-link tests, reused as they are.
from test_relay_leaf import (ADMIN_PASSWORD, CLUB_ADMIN_PASSWORD, CLUB_PASSWORD, LEAF_PASSWORD,  # noqa: F401
                             RELAY_PASSWORD, RELAYS_ADMIN_PASSWORD, Certificates, deployed)

ROUTE_PASSWORD = "route-secret-8d31"
VENUE = "riverside"
MIRROR = "GATHER_riverside"


def free_port() -> int:
    """A loopback port free a moment ago (for the ports a config must name before it starts)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def hub_conf(certs: Certificates, store: str, leaf_port: str | int = "LEAF_PORT") -> str:
    """deploy/nats/hub.conf on loopback."""
    return deployed("hub.conf", {
        "listen: 0.0.0.0:4222": "",  # the test's -a 127.0.0.1 -p
        "listen: 0.0.0.0:7422": f'listen: "127.0.0.1:{leaf_port}"',
        "/var/lib/gather-nats-hub": store,
        "/etc/nats/CHANGE-ME-hub-fullchain.pem": certs.cert_file,
        "/etc/nats/CHANGE-ME-hub-key.pem": certs.key_file,
        "CHANGE-ME-leaf-password": LEAF_PASSWORD,
        "CHANGE-ME-admin-password": ADMIN_PASSWORD,
        "CHANGE-ME-relay-password": RELAY_PASSWORD,
        "CHANGE-ME-relays-admin-password": RELAYS_ADMIN_PASSWORD,
        "CHANGE-ME-club-password": CLUB_PASSWORD,
        "CHANGE-ME-club-admin-password": CLUB_ADMIN_PASSWORD,
    })


def single_hub(certs: Certificates, leaf_advertise: str | None = None) -> NatsServer:
    """The hub. nats-server tells a leaf the hub's own leaf address (`leafnode_urls`, even with
    `no_advertise`) and the leaf dials it next time: `leaf_advertise` names another (a proxy in
    between, as a real hub advertises its public address)."""
    config = hub_conf(certs, "STORE_DIR")
    if leaf_advertise:
        config = config.replace("leafnodes {", f'leafnodes {{\n  advertise: "{leaf_advertise}"', 1)
    return NatsServer(config=config)


class HubNode(NatsServer):
    """Node `index` (1–3) of deploy/nats/hub-cluster: its hub-N.conf, including the filled-in
    hub.conf written beside it (nats-server resolves an include next to the including file)."""

    def __init__(self, index: int, certs: Certificates, cluster_ports: dict[int, int]):
        self.index = index
        replacements = {
            'include "../hub.conf"': 'include "hub.conf"',
            "listen: 0.0.0.0:6222": f"listen: 127.0.0.1:{cluster_ports[index]}",
            "CHANGE-ME-route-password": ROUTE_PASSWORD,
        }
        for other, port in cluster_ports.items():
            if other != index:
                replacements[f"hub-{other}.example.org:6222"] = f"127.0.0.1:{port}"
        super().__init__(config=deployed(f"hub-cluster/hub-{index}.conf", replacements))
        self.leaf_port = free_port()
        with open(os.path.join(self._tmp.name, "hub.conf"), "w") as handle:
            handle.write(hub_conf(certs, self.store, self.leaf_port))


def hub_of_three(certs: Certificates) -> list[HubNode]:
    ports = {index: free_port() for index in (1, 2, 3)}
    return [HubNode(index, certs, ports) for index in (1, 2, 3)]


def urls(nodes: list[NatsServer]) -> str:
    """The nodes' client addresses as `--nats` and `--hub` take them: comma-separated."""
    return ",".join(node.url for node in nodes)


def venue_leaf(hub_leaf_ports: list[int], ca_file: str) -> NatsServer:
    """The venue laptop's nats-server (venue.conf's shape): JetStream in the domain `riverside`,
    a leaf of the hub over TLS as the venue's user, dialing every address in `hub_leaf_ports`
    (a hub of three: `urls`), retrying every second."""
    remotes = ", ".join(f'"tls://{VENUE}:{LEAF_PASSWORD}@127.0.0.1:{port}"' for port in hub_leaf_ports)
    return NatsServer(config=f"""
server_name: venue-{VENUE}
jetstream {{ domain: {VENUE}, store_dir: "STORE_DIR" }}
leafnodes {{
  remotes = [ {{ urls: [ {remotes} ], tls {{ ca_file: "{ca_file}", timeout: 5 }} }} ]
  reconnect: 1
}}
""")


def make_mirror(hub_urls: str, replicas: int = 1, timeout: float = 40) -> subprocess.CompletedProcess:
    """`gather nats mirror` as the operator runs it (the venue account's mirror, then the relays'
    account's mirror of it, which relays read), again while the hub's JetStream is still electing
    its leaders (a fresh cluster takes a few seconds)."""
    deadline = time.monotonic() + timeout
    for user, password, extra in (("admin", ADMIN_PASSWORD, ()),
                                  ("relays-admin", RELAYS_ADMIN_PASSWORD, ("--for-relays",))):
        while True:
            result = subprocess.run([BINARY, "nats", "mirror", "--hub", hub_urls, "--nats-user", user, "--venue", VENUE,
                                     "--replicas", str(replicas), *extra], capture_output=True, text=True, timeout=30,
                                    env={**os.environ, "GATHER_NATS_PASSWORD": password})
            if result.returncode == 0:
                break
            if time.monotonic() > deadline:
                return result
            time.sleep(1)
    return result


def hub_relay(hub_urls: str, venue: GatherServer) -> RelayProcess:
    """A relay reading the hub's mirror as the relay user, believing the running venue's key (not
    started)."""
    return RelayProcess(hub_urls, extra_args=("--nats-user", "relay"), env={"GATHER_NATS_PASSWORD": RELAY_PASSWORD},
                        venue_key=venue_key(venue))


async def stream_bodies(url: str | list[str], stream: str, **login) -> list[bytes]:
    """The bodies of everything `stream` holds on the state subject, in order."""
    messages = await read_subject(url, stream, f"gather.{VENUE}.state", timeout=3, **login)
    return [message.data for message in messages]


async def mirror_bodies(hub_urls: str) -> list[bytes]:
    """What the hub's mirror holds, read through whichever of the nodes answers."""
    return await stream_bodies(hub_urls.split(","), MIRROR, user="admin", password=ADMIN_PASSWORD)


class VenueBeyondTheHub:
    """The venue's side of a club's set-up, started in order by `start`: its leaf dialing the
    hub's leaf ports, `gather serve` on that leaf, the hub's mirror, two relays reading it. Parts
    not started yet are None; iterating gives what `take_down` stops, relays first."""

    def __init__(self):
        self.leaf: NatsServer | None = None
        self.server: GatherServer | None = None
        self.relays: list[RelayProcess] = []

    def start(self, hub_url: str, hub_leaf_ports: list[int], certs: Certificates):
        from natslib import start_all, venue_server
        self.leaf = venue_leaf(hub_leaf_ports, certs.ca_file).start()
        self.server = venue_server(self.leaf.url).start()
        created = make_mirror(hub_url)
        assert created.returncode == 0, created.stderr
        self.relays = [hub_relay(hub_url, self.server), hub_relay(hub_url, self.server)]
        start_all(*self.relays)
        return self.leaf, self.server, self.relays

    def __iter__(self):
        return iter([*self.relays, self.server, self.leaf])
