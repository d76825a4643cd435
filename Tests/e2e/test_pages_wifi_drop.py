"""A phone that drops the Wi-Fi for 5 s while three goals are scored comes back with the three
patches it missed, not the whole snapshot again: real Chromium at phone size, against the venue
and against a relay. The drop is what a phone's Wi-Fi going away does: Chrome is offline (its
own network emulation, DevTools) and the connection it had dies (Chrome's emulation leaves an open
WebSocket alone, so the page reaches the server through the tests' TCP proxy, which cuts it and
refuses new connections for the 5 s). A recorder around the page's WebSocket (installed before
any script of the page) counts every message each connection received, and its bytes;
everything else is the servers'."""
import time
from types import SimpleNamespace

import pytest

from gatherlib import GatherServer
from natslib import NatsServer, RelayProcess, running, venue_server
from test_pages_pitches import match, score, set_up
from uplink_proxy import Faults, UplinkProxyThread

# A clean link: nothing delayed, throttled or cut but by the test.
CLEAN = Faults(delay=0.0, jitter=0.0, stall_chance=0.0, rate_bits=10**10, cut_every=0.0, cut_for=0.0,
               max_connections=64)

WIRE_RECORDER = """
window.__wire = [];
const NativeSocket = window.WebSocket;
window.WebSocket = class extends NativeSocket {
  constructor(...args) {
    super(...args);
    const record = { url: String(args[0]), frames: [] };
    window.__wire.push(record);
    this.addEventListener('message', (event) => {
      let type = '?';
      try { type = JSON.parse(event.data).type; } catch (error) {}
      record.frames.push({ type, bytes: new TextEncoder().encode(event.data).length });
    });
  }
};
"""

OFFLINE = {"offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0}
ONLINE = {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
STATE = ("snapshot", "patch")


def wire(phone) -> list[dict]:
    return phone.driver.execute_script("return window.__wire;")


def drop_the_wifi_while_three_goals_are_scored(phone, venue: GatherServer, wifi: UplinkProxyThread) -> None:
    """5 s offline; the goals go in meanwhile, through the venue (the organiser is on the pitch)."""
    phone.driver.execute_cdp_cmd("Network.enable", {})
    phone.driver.execute_cdp_cmd("Network.emulateNetworkConditions", OFFLINE)
    started = time.monotonic()
    wifi._loop.call_soon_threadsafe(wifi.proxy.cut_now, 5.0)
    phone.wait(lambda: phone.text("#connection") != "Live", 5, "the page to notice it is offline")
    for _ in range(3):
        score(venue, 1, "A", 0)
    time.sleep(max(0.0, 5 - (time.monotonic() - started)))
    phone.driver.execute_cdp_cmd("Network.emulateNetworkConditions", ONLINE)


def follow_a_drop(phone, venue: GatherServer, wifi: UplinkProxyThread) -> tuple[dict, dict]:
    """The page's first connection and the one it came back on."""
    phone.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": WIRE_RECORDER})
    phone.open("/")
    phone.wait_text("#connection", "Live", timeout=15)
    phone.wait_text("#team-a-name", "Greens", timeout=15)
    drop_the_wifi_while_three_goals_are_scored(phone, venue, wifi)
    phone.wait_text("#score-a", "3", timeout=20)
    phone.wait_text("#connection", "Live", timeout=20)
    connections = wire(phone)
    assert len(connections) >= 2, "the drop ended the page's connection: it came back on a new one"
    return connections[0], connections[-1]


def page_errors(phone) -> list[str]:
    """The console's errors but the failed connection attempts while offline (the drop itself)."""
    return [error for error in phone.console_errors() if "ERR_INTERNET_DISCONNECTED" not in error]


def check_patches_not_a_snapshot(first: dict, back: dict, where: str) -> None:
    snapshot = sum(frame["bytes"] for frame in first["frames"] if frame["type"] == "snapshot")
    state = [frame for frame in back["frames"] if frame["type"] in STATE]
    received = sum(frame["bytes"] for frame in back["frames"])
    print(f"\n{where}: after a 5 s drop the page received {received} B on its new connection "
          f"({[(frame['type'], frame['bytes']) for frame in back['frames']]}); a fresh page's snapshot alone is {snapshot} B")
    assert "epoch=" in back["url"] and "version=" in back["url"], back["url"]
    assert [frame["type"] for frame in state] == ["patch", "patch", "patch"], back["frames"]
    assert snapshot > 0 and sum(frame["bytes"] for frame in state) < snapshot


@pytest.mark.parametrize("through", ["venue", "relay"])
def test_a_phone_back_from_a_wifi_drop_gets_the_three_patches_it_missed_not_a_snapshot(browsers, through):
    if through == "venue":
        with GatherServer() as server:
            set_up(server, match(1, [0, 1, 2, 3], [4, 5, 6, 7], names=("Greens", "Reds")))
            with UplinkProxyThread(server.port, CLEAN) as wifi:
                phone = browsers(SimpleNamespace(cert_dir=server.cert_dir, base_url=f"https://127.0.0.1:{wifi.port}"))
                first, back = follow_a_drop(phone, server, wifi)
                check_patches_not_a_snapshot(first, back, "venue")
                assert page_errors(phone) == []
        return
    with NatsServer() as broker:
        server = venue_server(broker.url)
        relay = RelayProcess(broker.url)
        with running(server, relay):
            set_up(server, match(1, [0, 1, 2, 3], [4, 5, 6, 7], names=("Greens", "Reds")))
            with UplinkProxyThread(relay.port, CLEAN) as wifi:
                phone = browsers(SimpleNamespace(cert_dir=server.cert_dir, base_url=f"http://127.0.0.1:{wifi.port}"))
                first, back = follow_a_drop(phone, server, wifi)
                check_patches_not_a_snapshot(first, back, "relay")
                assert page_errors(phone) == []
