"""Issue 12: an organiser's console that survives the pitch-side Wi-Fi.

A real Chromium registers Public/sw.js on the server's TLS origin; the server is stopped and
started for real. Nothing is mocked.
"""
import contextlib
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from gatherlib import GatherServer, PASSWORD, ROOT
from pages_support import LONG_NAMES, ORGANISER, Browser, busy_evening, organiser, perform, run

PUBLIC = ROOT / "Public"
NEVER_CACHED = ("/live", "/api/history.json", "/api/history.csv", "/healthz", "/metrics", "/ca.pem", "/qr.svg",
                "/qr.svg?page=organiser", "/api/shell-version.json")
# Kept beside the shell (never answered to a page): the version of the pages the shell holds.
VERSION = "/api/shell-version.json"


def shell() -> set[str]:
    source = (PUBLIC / "sw.js").read_text()
    listing = re.search(r"const SHELL = \[(.*?)\];", source, re.S).group(1)
    return set(re.findall(r'"([^"]+)"', listing))




def controlled_and_cached(browser: Browser):
    """Waits until the service worker answers this page and holds the whole shell."""
    browser.wait(lambda: browser.driver.execute_script("return !!navigator.serviceWorker.controller;"),
                 timeout=15, what="the service worker controlling the page")
    browser.wait(lambda: cached_paths(browser) == shell() | {VERSION}, timeout=15, what="the shell in the cache")


def cached_paths(browser: Browser) -> set[str]:
    return set(browser.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        (async () => {
          const paths = [];
          for (const name of await caches.keys()) {
            for (const request of await (await caches.open(name)).keys()) {
              const url = new URL(request.url);
              paths.push(url.pathname + url.search);
            }
          }
          return paths;
        })().then(done, (error) => done(['error: ' + error]));"""))


def fetch_status(browser: Browser, path: str) -> str:
    """What the page gets for `path` through its service worker: a status, or "failed"."""
    return browser.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch(arguments[0], {cache: 'no-store'}).then((r) => done(String(r.status)), () => done('failed'));""", path)


def club_file(path) -> bool:
    """The club's pages (Public/club/, Public/i18n/club.*.json) are served by `gather club serve`,
    always online: they are not part of the laptop's offline shell."""
    relative = path.relative_to(PUBLIC)
    return relative.parts[0] == "club" or (relative.parts[0] == "i18n" and relative.name.startswith("club."))


def test_the_shell_lists_every_file_of_the_pages():
    files = {"/" + str(path.relative_to(PUBLIC)) for path in PUBLIC.rglob("*") if path.is_file() and not club_file(path)}
    files.discard("/sw.js")
    files = {"/" if name == "/index.html" else name for name in files}
    assert shell() == files


def test_the_console_installs_as_an_app(browsers):
    with GatherServer() as server:
        phone = browsers(server).open("/organiser.html")
        phone.wait_text("#connection", "Live")
        controlled_and_cached(phone)
        manifest = phone.driver.execute_cdp_cmd("Page.getAppManifest", {})
        assert manifest["errors"] == [] and manifest["url"].endswith("/manifest.webmanifest")
        app = manifest["manifest"]
        assert (app["name"], app["display"], app["themeColor"]) == ("Football Gather Live", "kStandalone", "rgba(15,31,23,1)")
        assert app["startUrl"].endswith("/organiser.html")
        assert {"192x192", "512x512"} <= {icon["sizes"] for icon in app["icons"]}
        # Chrome's own verdict: every icon loads, a service worker controls the start page.
        assert phone.driver.execute_cdp_cmd("Page.getInstallabilityErrors", {})["installabilityErrors"] == []


def test_the_console_reopens_from_the_phone_while_the_server_is_down_then_catches_up(browsers):
    with GatherServer() as server:
        busy_evening(server, players=4, history=2, timer_running=False)
        phone = browsers(server).login(ORGANISER, PASSWORD)
        controlled_and_cached(phone)
        phone.click("[data-tab=gather]")
        phone.wait_text("#match-a-score", "2")
        for path in NEVER_CACHED[1:]:
            assert fetch_status(phone, path) == "200", path

        assert server.stop() == 0
        phone.driver.refresh()
        # The console, its session and the last score, from the phone alone, marked as reconnecting.
        phone.wait(lambda: phone.find("#signed-in").is_displayed(), what="the console from the cache")
        phone.wait_text("#connection", "Reconnecting…")
        assert phone.content("#match-a-name") == LONG_NAMES[0]
        assert (phone.content("#match-a-score"), phone.content("#match-b-score")) == ("2", "1")
        assert phone.content("#whoami") == f"you are {ORGANISER}"
        # Live data is never answered from the cache.
        for path in NEVER_CACHED[1:]:
            assert fetch_status(phone, path) == "failed", path
        # A goal pressed while the Wi-Fi is gone is sent once the server is back.
        phone.click("[data-tab=gather]")
        phone.click("[data-score=A][data-delta='1']")

        server.start()
        run(score_for_b(server))     # another organiser scores meanwhile: the phone must catch up
        phone.wait_text("#connection", "Live", timeout=30)
        phone.wait(lambda: (phone.content("#match-a-score"), phone.content("#match-b-score")) == ("3", "2"),
                   timeout=10, what="the current score after reconnecting")
        assert phone.find("#signed-in").is_displayed()
        assert cached_paths(phone) == shell() | {VERSION}


async def score_for_b(server):
    live = await organiser(server)
    await perform(live, {"kind": "score", "team": "B", "delta": 1})
    await live.close()


@contextlib.contextmanager
def phone_on_a_copy_of_the_pages(browsers):
    """A server serving a copy of Public/ (the last --public wins), which the test then changes,
    and a phone whose service worker holds the whole shell; yields (copy, server, phone)."""
    with tempfile.TemporaryDirectory(prefix="gather-public-") as copy:
        shutil.copytree(PUBLIC, copy, dirs_exist_ok=True)
        with GatherServer(extra_args=("--public", copy)) as server:
            phone = browsers(server).open("/organiser.html")
            phone.wait_text("#connection", "Live")
            controlled_and_cached(phone)
            yield Path(copy), server, phone


def test_an_upgrade_of_the_pages_reaches_the_phone_on_its_next_open(browsers):
    with phone_on_a_copy_of_the_pages(browsers) as (copy, server, phone):
        page = copy / "organiser.html"
        page.write_text(page.read_text().replace("<title>Organiser ·", "<title>Organiser (new) ·"))

        phone.driver.refresh()
        assert phone.driver.title.startswith("Organiser ·")   # opened at once from the phone
        phone.wait(lambda: "(new)" in cached_organiser_page(phone), timeout=15, what="the new page cached")
        phone.driver.refresh()
        assert phone.driver.title.startswith("Organiser (new) ·")


def test_a_reopen_with_the_same_pages_fetches_their_version_and_not_the_files(browsers):
    """An open with nothing new costs the phone one small request, not the 660 KB shell again."""
    with phone_on_a_copy_of_the_pages(browsers) as (copy, server, phone):
        served = version_of(server)
        assert re.fullmatch(r'\{"version":"[0-9a-f]{64}"\}', served), served
        assert cached_entry(phone, VERSION) == served
        # A change the version cannot see (same size, inode and time stamps): a phone that
        # fetched the files again on this open would hold it.
        page = copy / "organiser.html"
        stamp = page.stat()
        page.write_text(page.read_text().replace("<title>Organiser ·", "<title>Organiser:·"))
        os.utime(page, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
        assert version_of(server) == served
        for _ in range(2):
            phone.driver.refresh()
            phone.wait_text("#connection", "Live")
        time.sleep(2)  # a refresh of the whole shell takes well under a second on loopback
        assert "<title>Organiser ·" in cached_organiser_page(phone)
        # Touched, the pages are a new version: the next open fetches them all, and keeps it.
        os.utime(page)
        changed = version_of(server)
        assert changed != served
        phone.driver.refresh()
        phone.wait(lambda: "<title>Organiser:·" in cached_organiser_page(phone), timeout=15,
                   what="the changed page cached")
        phone.wait(lambda: cached_entry(phone, VERSION) == changed, timeout=5, what="the new version kept")


def version_of(server) -> str:
    status, _, body = server.get(VERSION)
    assert status == 200, status
    return body.decode()


def cached_entry(browser: Browser, path: str) -> str:
    return browser.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        caches.match(arguments[0]).then((r) => r ? r.text() : '').then(done, () => done(''));""", path)


def cached_organiser_page(browser: Browser) -> str:
    return browser.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        caches.match('/organiser.html').then((r) => r ? r.text() : '').then(done, () => done(''));""")
