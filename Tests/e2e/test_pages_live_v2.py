"""live.js on gather.v2 in a real Chromium against the real server: it offers gather.v2, applies
a patch only to the version it was made from, starts over from a snapshot when a patch does not
apply, and a page reopened while the server is down shows the last state it knew.

A wrapper around the page's WebSocket (installed before any script of the page) lets the test
hand the page a message as if the server had sent it; everything else is the server's.
"""
import json
import signal

from selenium.webdriver.common.by import By

from gatherlib import GatherServer
from pages_support import Browser
from test_pages_pitches import match, score, set_up

SOCKET_SPY = """
window.__sockets = [];
const NativeSocket = window.WebSocket;
window.WebSocket = class extends NativeSocket {
  constructor(...args) { super(...args); window.__sockets.push(this); }
};
// A message as if the server had sent it, on the page's newest connection.
window.__inject = (message) => {
  const socket = window.__sockets[window.__sockets.length - 1];
  socket.onmessage({ data: JSON.stringify(message) });
};
"""


def cached(phone: Browser) -> dict:
    """The state live.js keeps in localStorage (written a moment after each change)."""
    return json.loads(phone.driver.execute_script("return localStorage.getItem('gather.lastState.v2');") or "null")


def test_patches_apply_only_in_order_and_a_broken_one_starts_over_from_a_snapshot():
    with GatherServer() as server:
        set_up(server, match(1, [0, 1], [2, 3], names=("Greens", "Reds")))
        phone = Browser(server, 390, 844)
        try:
            phone.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": SOCKET_SPY})
            phone.open("/")
            phone.wait_text("#connection", "Live")
            phone.wait_text("#team-a-name", "Greens")
            assert phone.driver.execute_script("return window.__sockets[0].protocol;") == "gather.v2"
            score(server, 1, "A", 0)
            phone.wait_text("#score-a", "1")
            phone.wait(lambda: cached(phone) and cached(phone)["state"]["pitches"][0]["gather"]["score"]["A"] == 1,
                       what="the new state cached")
            version = cached(phone)["version"]
            goal_a = {"op": "replace", "path": "/pitches/0/gather/score/A", "value": 7}

            # A patch from another version is dropped: the page waits for the server's snapshot.
            phone.driver.execute_script("window.__inject(arguments[0]);",
                                        {"type": "patch", "from": version + 5, "version": version + 6, "ops": [goal_a]})
            phone.driver.execute_script("window.__inject(arguments[0]);",
                                        {"type": "patch", "from": version - 1, "version": version, "ops": [goal_a]})
            assert phone.text("#score-a") == "1"
            # The server's next patch (from the version held) still applies.
            score(server, 1, "B", 2)
            phone.wait_text("#score-b", "1")
            assert phone.text("#score-a") == "1"
            assert len(phone.driver.execute_script("return window.__sockets;")) == 1

            # A patch that does not apply to the version held: a new connection, a fresh snapshot.
            version = phone.wait(lambda: cached(phone)["version"] > version and cached(phone)["version"], what="cached")
            broken = {"op": "replace", "path": "/pitches/0/gather/no-such-member", "value": 1}
            phone.driver.execute_script("window.__inject(arguments[0]);",
                                        {"type": "patch", "from": version, "version": version + 1, "ops": [broken]})
            phone.wait(lambda: len(phone.driver.execute_script("return window.__sockets;")) == 2, timeout=5,
                       what="a new connection")
            phone.wait_text("#connection", "Live", timeout=10)
            score(server, 1, "A", 1)
            phone.wait_text("#score-a", "2")
            phone.wait(lambda: "Greens — Bob" in phone.text("#goals"), what="the goal after starting over")
            assert phone.console_errors() == []

            # Reopened with the server down: the last state, marked as reconnecting.
            phone.wait(lambda: cached(phone)["state"]["pitches"][0]["gather"]["score"]["A"] == 2, what="cached")
            assert server.stop(signal.SIGTERM) == 0
            phone.driver.refresh()
            phone.wait_text("#connection", "Reconnecting…")
            assert (phone.text("#team-a-name"), phone.text("#score-a"), phone.text("#score-b")) == ("Greens", "2", "1")
            assert "Greens — Bob" in phone.text("#goals")
            assert len(phone.driver.find_elements(By.CSS_SELECTOR, "#standings-rows tr")) == 8
        finally:
            phone.close()
