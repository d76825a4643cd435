"""The pages' live client (Public/js/live.js, live-state.js, live-socket.js) in a real headless
Chromium, fed by a stand-in WebSocket: the epoch rule and the catch-up query.

A follower never goes back: within one epoch its version only grows, and a snapshot of another
epoch replaces its state only when that epoch started later (a venue restored from a backup is
followed at once; an old epoch replayed changes nothing). A page that reconnects says which
state it holds (`/live?epoch=E&version=V`) so the server can send only the patches it missed.
Without epochs (an older server) the page behaves as it always did.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from module_page import module_page

JS = Path(__file__).resolve().parents[2] / "Public" / "js"

# A WebSocket that records the URL it was opened with and lets the test play the server.
PAGE = """<!doctype html><meta charset="utf-8"><title>epoch</title>
<script>
window.sockets = [];
class StandInSocket {
  constructor(url, protocols) {
    Object.assign(this, { url, protocols, readyState: 1, sent: [] });
    window.sockets.push(this);
  }
  send(text) { this.sent.push(text); }
  close() {
    if (this.readyState === 3) return;
    this.readyState = 3;
    if (this.onclose) this.onclose();
  }
  receive(message) { this.onmessage({ data: JSON.stringify(message) }); }
}
StandInSocket.OPEN = 1;
window.WebSocket = StandInSocket;
</script>
<script type="module">
import { LiveClient } from "./js/live.js";
import { StateCache } from "./js/live-state.js";
window.LiveClient = LiveClient;
window.StateCache = StateCache;
window.epochReady = true;
</script>"""

A, B = "epochAAAA-1", "epochBBBB_2"
STATE = {"players": [], "pitches": [], "history": []}


def snapshot(version, epoch=None, started_at=None, note="s"):
    message = {"type": "snapshot", "version": version, "state": {**STATE, "note": f"{note}{version}"}}
    if epoch is not None:
        message.update(epoch=epoch, epochStartedAt=started_at)
    return message


def welcome(epoch=None, started_at=None):
    message = {"type": "welcome", "protocol": "gather.v2", "serverTime": int(time.time() * 1000)}
    if epoch is not None:
        message.update(epoch=epoch, epochStartedAt=started_at)
    return message


def patch(from_version, note):
    return {"type": "patch", "from": from_version, "version": from_version + 1,
            "ops": [{"op": "replace", "path": "/note", "value": note}]}


@pytest.fixture(scope="module")
def browser():
    """The page modules served on loopback next to a page with a stand-in WebSocket."""
    with module_page({"js": JS}, PAGE, ready="epochReady", prefix="epoch-js") as driver:
        yield driver


@pytest.fixture
def page(browser):
    """A fresh page: no sockets, nothing in localStorage."""
    browser.execute_script("localStorage.clear(); window.sockets.length = 0; window.client = null;")
    yield browser
    browser.execute_script("if (window.client) { clearTimeout(window.client.socket.reconnectTimer); }")


def new_client(driver):
    driver.execute_script("window.client = new window.LiveClient();")


def play(driver, *messages):
    """Delivers the messages on the newest socket; returns (version, note, epoch) held after."""
    return driver.execute_script(
        "const socket = window.sockets.at(-1);"
        "for (const m of arguments[0]) socket.receive(m);"
        "const c = window.client; return [c.version, c.state && c.state.note, c.cache.epoch];",
        [json.loads(json.dumps(m)) for m in messages])


def reconnect(driver) -> str:
    """Drops the socket and waits for the client's own reconnect; returns its URL."""
    count = driver.execute_script("const n = window.sockets.length; window.sockets.at(-1).close(); return n;")
    deadline = time.monotonic() + 10
    while driver.execute_script("return window.sockets.length") == count:
        assert time.monotonic() < deadline, "the client did not reconnect"
        time.sleep(0.05)
    return driver.execute_script("return window.sockets.at(-1).url")


def test_a_reconnecting_page_names_the_state_it_holds_and_takes_the_patches_after_it(page):
    new_client(page)
    assert page.execute_script("return window.sockets[0].url").endswith("/live"), "nothing held: no query"
    assert play(page, welcome(A, 1000), snapshot(10, A, 1000)) == [10, "s10", A]
    url = reconnect(page)
    assert url.endswith(f"/live?epoch={A}&version=10"), url
    assert page.execute_script("return window.sockets.at(-1).protocols") == ["gather.v2"]
    assert play(page, welcome(A, 1000), patch(10, "p11"), patch(11, "p12")) == [12, "p12", A]
    assert reconnect(page).endswith(f"/live?epoch={A}&version=12")


def test_a_snapshot_of_an_epoch_that_started_later_replaces_the_state_even_at_a_lower_version(page):
    new_client(page)
    play(page, welcome(A, 1000), snapshot(50, A, 1000))
    assert play(page, snapshot(3, B, 2000, note="restored")) == [3, "restored3", B], "a restored venue is followed"
    assert reconnect(page).endswith(f"/live?epoch={B}&version=3")


def test_an_older_epoch_and_an_older_version_of_the_same_epoch_change_nothing(page):
    new_client(page)
    play(page, welcome(B, 2000), snapshot(7, B, 2000))
    assert play(page, snapshot(99, A, 1000, note="old")) == [7, "s7", B], "an old epoch replayed"
    assert play(page, snapshot(6, B, 2000, note="behind")) == [7, "s7", B], "within an epoch, never back"
    assert play(page, snapshot(8, B, 2000)) == [8, "s8", B]


def test_patches_of_a_connection_on_another_epoch_are_not_applied(page):
    new_client(page)
    play(page, welcome(B, 2000), snapshot(7, B, 2000))
    reconnect(page)
    # A server still on the old epoch: its snapshot is refused, and so are its patches, even one
    # whose `from` happens to be the version held.
    assert play(page, welcome(A, 1000), snapshot(7, A, 1000, note="old"), patch(7, "old patch")) == [7, "s7", B]
    reconnect(page)
    assert play(page, welcome(B, 2000), patch(7, "p8")) == [8, "p8", B]


def test_without_epochs_the_page_follows_the_server_as_before(page):
    new_client(page)
    assert play(page, welcome(), snapshot(10)) == [10, "s10", None]
    assert reconnect(page).endswith("/live"), "no epoch: nothing to resume from"
    assert play(page, welcome(), snapshot(4, note="reset")) == [4, "reset4", None], "an older server's rule"
    page.execute_script("window.client.relay = true")
    assert play(page, snapshot(3, note="relay behind")) == [4, "reset4", None], "a relay behind: keep the newer"


def test_a_patch_that_does_not_apply_resumes_from_nothing(page):
    new_client(page)
    play(page, welcome(A, 1000), snapshot(10, A, 1000))
    bad = {"type": "patch", "from": 10, "version": 11, "ops": [{"op": "remove", "path": "/nowhere/9"}]}
    count = page.execute_script("return window.sockets.length")
    play(page, bad)
    deadline = time.monotonic() + 10
    while page.execute_script("return window.sockets.length") == count:
        assert time.monotonic() < deadline, "the client did not reconnect after a bad patch"
        time.sleep(0.05)
    assert page.execute_script("return window.sockets.at(-1).url").endswith("/live"), "a snapshot, not a catch-up"


def test_the_saved_state_keeps_its_epoch_and_a_malformed_one_is_never_sent(page):
    new_client(page)
    play(page, welcome(A, 1000), snapshot(10, A, 1000))
    restored = page.execute_script(
        "window.client.cache.save();"
        "const cache = new window.StateCache(() => {});"
        "return [cache.restore(), cache.version, cache.epoch, cache.epochStartedAt, cache.resumeQuery()];")
    assert restored == [True, 10, A, 1000, f"?epoch={A}&version=10"]
    for epoch in ["short", "x" * 65, "with space1", "a/b/c/d/e/f"]:
        query = page.execute_script(
            "const cache = new window.StateCache(() => {});"
            "cache.snapshot(arguments[0]); return cache.resumeQuery();", snapshot(1, epoch, 1))
        assert query == "", epoch
