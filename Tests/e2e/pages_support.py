"""Headless Chromium (Debian's chromium + chromium-driver) pointed at the real server.

Chromium is told to accept exactly our server's public key (an SPKI pin of the certificate
the server generated), never to ignore certificate errors in general. That is enough for the
pages and for registering the service worker (checked in test_service_worker.py).

Phones are emulated with Chrome's mobileEmulation device metrics (a desktop window cannot be
narrower than 500 px); a projector gets an exact 1920×1080 viewport through the DevTools
protocol (a window of that size would lose the height of the browser's own bars).
"""
from __future__ import annotations

import asyncio
import atexit
import base64
import hashlib
import os
import shutil
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
import selenium_axe_python as axe_module
from selenium_axe_python import Axe

from gatherlib import PASSWORD, Live, run

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
PHONES = ((360, 640), (390, 844))
PROJECTOR = (1920, 1080)
AXE_SCRIPT = Path(axe_module.__file__).resolve().parent / "axe-core" / "axe.min.js"


def spki_pin(cert_path: str) -> str:
    certificate = x509.load_pem_x509_certificate(open(cert_path, "rb").read())
    spki = certificate.public_key().public_bytes(serialization.Encoding.DER,
                                                 serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.b64encode(hashlib.sha256(spki).digest()).decode()


def chromium_binary() -> str:
    for candidate in ("/usr/bin/chromium", "/usr/bin/chromium-browser", shutil.which("chromium") or ""):
        if candidate and os.path.exists(candidate):
            return candidate
    raise RuntimeError("chromium is not installed (make test installs Debian's chromium)")


def chromedriver_binary() -> str:
    for candidate in ("/usr/bin/chromedriver", shutil.which("chromedriver") or ""):
        if candidate and os.path.exists(candidate):
            return candidate
    raise RuntimeError("chromedriver is not installed (make test installs Debian's chromium-driver)")


# A closed Browser's Chromium waits here for the next Browser of the same size, language and
# trusted key, instead of quitting: one start costs about 3 s of CPU (5 starts with a page load
# 8.9 s, 5 loads in one browser 1.7 s), and Chromium was 73% of the parallel phase's CPU. Tests
# do not see each other's pages: on closing, the page is left for a blank one (its WebSockets and
# timers end) and everything stored for each origin it visited (storage, service workers, caches,
# cookies) is cleared, with its history. A Browser that changed the browser itself (a DevTools
# command other than the reads below, a dialog left open, a second window) quits instead.
# `GATHER_E2E_FRESH_BROWSERS=1` starts a Chromium for every Browser.
_IDLE_CHROMIUMS: list[tuple] = []  # (kind, driver, profile), the most recently closed last
# 16, not 4: one test file asks for up to a dozen kinds (four screen sizes, six languages, a
# projector), and with 4 kept the heaviest six page files started 43 Chromiums where 16 start
# 23 (machine CPU 600 -> 533 s, and 674 -> 641 s in a slower hour); at most 6.4 GB of the
# machine's memory was in use in a whole parallel phase (about 150 MB per idle Chromium).
_IDLE_AT_MOST = 16
READ_ONLY_DEVTOOLS = frozenset({"Page.getLayoutMetrics", "Page.captureScreenshot", "Page.getAppManifest",
                                "Page.getInstallabilityErrors"})


def _quit(driver, profile):
    try:
        driver.quit()
    finally:
        profile.cleanup()


@atexit.register
def _quit_idle_chromiums():
    while _IDLE_CHROMIUMS:
        _quit(*_IDLE_CHROMIUMS.pop()[1:])


def _idle_chromium(kind: tuple):
    """The most recently closed Chromium of this kind, taken out of the pool, or None."""
    if os.environ.get("GATHER_E2E_FRESH_BROWSERS") == "1":
        return None
    for index in range(len(_IDLE_CHROMIUMS) - 1, -1, -1):
        if _IDLE_CHROMIUMS[index][0] == kind:
            return _IDLE_CHROMIUMS.pop(index)[1:]
    return None


def _left_clean(driver) -> bool:
    """Whether a Chromium can serve another test: no dialog open, one window, now on a blank page
    (which closes the old page's WebSockets and timers), nothing kept for the origins it visited,
    its console read."""
    try:
        visited = {f"{url.scheme}://{url.netloc}" for url in
                   (urlsplit(entry["url"]) for entry in driver.gather_devtools("Page.getNavigationHistory", {})["entries"])
                   if url.scheme in ("http", "https")}
        for _ in range(2):  # before leaving the page, and after (a dialog asked on leaving)
            try:
                driver.switch_to.alert
                return False
            except NoAlertPresentException:
                pass
            if len(driver.window_handles) != 1:
                return False
            driver.get("about:blank")
        for origin in visited:
            driver.gather_devtools("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
        driver.gather_devtools("Page.resetNavigationHistory", {})
        driver.get_log("browser")
        return True
    except WebDriverException:
        return False


class Browser:
    """One headless Chromium with its own profile, sized like a phone or a projector."""

    def __init__(self, server, width: int, height: int, mobile: bool | None = None, language: str | None = None):
        """`language`: the browser's language, as a phone set to it would say (`--lang` and the
        Accept-Language it sends); the default is Chromium's own."""
        mobile = width < 500 if mobile is None else mobile
        self.width, self.height, self.mobile = width, height, mobile
        self.server = server
        # A server behind plain HTTP (the club behind nginx in the tests) has no key to trust.
        pin = spki_pin(os.path.join(server.cert_dir, 'server.pem')) if getattr(server, "cert_dir", None) else None
        self._kind = (pin, width, height, mobile, language)
        self._changed_the_browser = self._closed = False
        self.driver, self.profile = _idle_chromium(self._kind) or self._start(pin, width, height, mobile, language)
        read = self.driver.gather_devtools
        def devtools(command: str, arguments: dict):
            if command not in READ_ONLY_DEVTOOLS:
                self._changed_the_browser = True
            return read(command, arguments)
        self.driver.execute_cdp_cmd = devtools

    @staticmethod
    def _start(pin: str, width: int, height: int, mobile: bool, language: str | None):
        profile = tempfile.TemporaryDirectory(prefix="gather-chromium-", ignore_cleanup_errors=True)
        options = webdriver.ChromeOptions()
        options.binary_location = chromium_binary()
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--no-first-run", "--disable-background-networking", "--disable-component-update",
                         # The address bar's pop-ups are pages of their own (chrome://omnibox-popup)
                         # with a renderer each: 11% of Chromium's CPU in a language test, unseen.
                         "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup",
                         f"--user-data-dir={profile.name}", f"--window-size={width},{height}"):
            options.add_argument(argument)
        if pin is not None:
            options.add_argument(f"--ignore-certificate-errors-spki-list={pin}")
        if language is not None:
            options.add_argument(f"--lang={language}")
            options.add_experimental_option("prefs", {"intl.accept_languages": language})
        if mobile:
            options.add_experimental_option("mobileEmulation", {
                "deviceMetrics": {"width": width, "height": height, "pixelRatio": 3.0}})
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service(chromedriver_binary()), options=options)
        driver.set_page_load_timeout(20)
        if not mobile:
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        driver.gather_devtools = driver.execute_cdp_cmd
        return driver, profile

    def open(self, path: str):
        self.driver.get(self.server.base_url + path)
        return self

    def find(self, css: str):
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def text(self, css: str) -> str:
        """The element's text; found again if the page re-rendered it between finding and reading."""
        return self._read(css, lambda element: element.text)

    def _read(self, css: str, read):
        for _ in range(2):
            try:
                return read(self.find(css))
            except StaleElementReferenceException:
                pass  # replaced by a newer render (a patch, a tick): read the new one
        return read(self.find(css))

    def wait(self, predicate, timeout: float = 10, what: str = "condition"):
        """Polls `predicate` until it is truthy: every 50 ms for the first second (the latency bounds
        the tests measure through it are a second or less), then every 250 ms: a poll costs Chromium
        about 20 ms of CPU, and a test waiting for a clock to run down polled for tens of seconds."""
        started = time.monotonic()
        deadline = started + timeout
        last_error = None
        while time.monotonic() < deadline:
            try:
                value = predicate()
                if value:
                    return value
            except Exception as error:  # the element may not exist yet
                last_error = error
            time.sleep(0.05 if time.monotonic() - started < 1 else 0.25)
        raise TimeoutError(f"timed out waiting for {what} ({last_error})")

    def wait_text(self, css: str, expected: str, timeout: float = 10):
        return self.wait(lambda: self.text(css) == expected, timeout, f"{css} == {expected!r}")

    def content(self, css: str) -> str:
        """Text of an element even while it is hidden (another tab)."""
        return self._read(css, lambda element: element.get_attribute("textContent"))

    def click(self, css: str):
        self.find(css).click()

    def fill(self, css: str, value: str):
        element = self.find(css)
        element.clear()
        element.send_keys(value)

    def overflow(self) -> tuple[int, int]:
        return self.driver.execute_script(
            "return [document.documentElement.scrollWidth, window.innerWidth];")

    def scroll_width(self) -> int:
        """The page's width including anything that sticks out (even under overflow: hidden)."""
        return self.driver.execute_script("return document.documentElement.scrollWidth;")

    def cut_content(self) -> list[str]:
        """Visible elements that a person cannot read whole: content clipped by an element's
        overflow, or an element reaching past the viewport's left or right edge."""
        return self.driver.execute_script(CUT_CONTENT_SCRIPT)

    def overlapping(self, css: str, others: str) -> list[str]:
        """Elements matching `others` whose box intersects the element `css` (both visible)."""
        return self.driver.execute_script(OVERLAP_SCRIPT, css, others)

    def accessible_name(self, css: str) -> str:
        return self.find(css).accessible_name

    def axe(self, **options) -> list[dict]:
        """axe-core's violations on the current page (the script shipped with selenium-axe-python,
        injected through WebDriver: nothing is fetched and the page's CSP is not involved).
        Injected once per document (a page's tabs and states are checked in the same one), and
        every rule runs with only its violations collected in full: axe's `resultTypes` keeps
        one node of the passes, which nobody reads (a third less of Chromium's CPU per check)."""
        checker = Axe(self.driver, str(AXE_SCRIPT))
        if not self.driver.execute_script("return typeof window.axe === 'object' && typeof window.axe.run === 'function'"):
            checker.inject()
        return checker.run(options={"resultTypes": ["violations"], **options})["violations"]

    def foreign_requests(self) -> list[str]:
        names = self.driver.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name).concat([location.href]);")
        origin = self.server.base_url
        wss = origin.replace("https://", "wss://")
        return [name for name in names if not (name.startswith(origin) or name.startswith(wss))]

    def console_errors(self) -> list[str]:
        return [entry["message"] for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"]

    def screenshot(self, name: str, full_page: bool = False, directory: Path = ARTIFACTS, full_scale: float | None = None):
        """The viewport, or the whole page's length (at half a phone's pixels unless `full_scale`)
        for review, as PNG. Encoded for speed: the same pixels in a file about 1.7 times larger, for
        about 0.14 s of Chromium's CPU instead of 0.19-0.27 s at a phone's 3x (~290 per run)."""
        directory.mkdir(parents=True, exist_ok=True)
        arguments = {"format": "png", "optimizeForSpeed": True}
        if full_page:
            size = self.driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
            scale = full_scale if full_scale is not None else 0.5 if self.mobile else 1
            arguments.update(captureBeyondViewport=True,
                             clip={"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": scale})
        shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", arguments)
        (directory / name).write_bytes(base64.b64decode(shot["data"]))

    def login(self, username: str, password: str):
        """Logs in through the organiser page's form and waits for the console."""
        self.open("/organiser.html")
        self.wait_text("#connection", "Live")
        self.fill("#login-form [name=username]", username)
        self.fill("#login-form [name=password]", password)
        self.click("#login-form button[type=submit]")
        self.wait(lambda: self.find("#signed-in").is_displayed(), what="the organiser console")
        return self

    def close(self):
        if self._closed:
            return  # closed twice (a test and its fixture): pooled once
        self._closed = True
        if (self._changed_the_browser or os.environ.get("GATHER_E2E_FRESH_BROWSERS") == "1"
                or not _left_clean(self.driver)):
            _quit(self.driver, self.profile)
            return
        _IDLE_CHROMIUMS.append((self._kind, self.driver, self.profile))
        if len(_IDLE_CHROMIUMS) > _IDLE_AT_MOST:
            _quit(*_IDLE_CHROMIUMS.pop(0)[1:])


CUT_CONTENT_SCRIPT = """
const width = document.documentElement.clientWidth;
const describe = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
  + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '')
  + ' "' + (el.textContent || '').trim().slice(0, 40) + '"';
const cut = [];
for (const el of document.body.querySelectorAll('*')) {
  if (el.closest('.visually-hidden') || el.closest('[hidden]')) continue;
  const style = getComputedStyle(el);
  if (style.display === 'none' || style.visibility === 'hidden') continue;
  const box = el.getBoundingClientRect();
  if (box.width === 0 && box.height === 0) continue;
  if (box.right > width + 1 || box.left < -1) { cut.push('past the edge: ' + describe(el)); continue; }
  if (['INPUT', 'SELECT', 'TEXTAREA', 'IMG'].includes(el.tagName)) continue;
  const clipsX = style.overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1;
  const clipsY = style.overflowY !== 'visible' && el.scrollHeight > el.clientHeight + 1;
  if (clipsX || clipsY) cut.push('clipped: ' + describe(el));
}
return cut;
"""

OVERLAP_SCRIPT = """
const [css, others] = arguments;
const target = document.querySelector(css);
const visible = (el) => { const s = getComputedStyle(el); const b = el.getBoundingClientRect();
  return s.display !== 'none' && s.visibility !== 'hidden' && b.width > 0 && b.height > 0; };
if (!target || !visible(target)) return [];
const a = target.getBoundingClientRect();
return [...document.querySelectorAll(others)].filter((el) => el !== target && !target.contains(el) && !el.contains(target) && visible(el))
  .filter((el) => { const b = el.getBoundingClientRect();
    return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom; })
  .map((el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + ' ' + (el.textContent || '').trim().slice(0, 30));
"""


# MARK: - A busy evening, made through the real server over wss

ORGANISER = "captain"
LONG_NAMES = ("Real Madrigal Veterans", "Athletic Tuesday Nights")
FIRST = ("Alexandra", "Bob", "Chidimma", "Dmitri", "Eve", "Fatoumata", "Gus", "Hiroshi", "Ines", "Jonas")
LAST = ("Fitzgerald-Okonkwo", "Li", "Van der Berg", "Nakamura", "O'Sullivan", "Papadopoulos")
SKILLS = ("beginner", "amateur", "professional")
POSITIONS = ("goalkeeper", "defender", "midfielder", "winger", "striker")


async def perform(live: Live, action: dict) -> dict:
    """One command, sent again (same id) while the server's token bucket says `rate_limited`."""
    command_id = uuid.uuid4().hex
    for _ in range(100):
        reply = await live.command(action, command_id=command_id)
        if reply.get("code") != "rate_limited":
            assert reply["type"] == "ack", (action, reply)
            return reply
        await asyncio.sleep(0.2)
    raise TimeoutError(f"still rate limited: {action}")


async def organiser(server, username: str = ORGANISER) -> Live:
    """A new connection signed in as `username`: registered the first time, then resumed with the
    token that gave it, as the organiser's phone does after a reconnect (logged in if the token was
    ended). A register or login runs scrypt on the server, 0.4 s of CPU: 305 of them were 11% of
    the parallel phase's CPU, and resuming here leaves 263 (the rest register, or log in on purpose)."""
    live = await Live.connect(server)
    return await sign_in(live, server, username)


async def sign_in(live: Live, server, username: str = ORGANISER, register: bool = True) -> Live:
    """Signs `live` in as `username` (see `organiser`), keeping the token in `server.organiser_tokens`;
    `register=False` for an organiser registered elsewhere (a failed register counts as a failed
    attempt, and five lock the address out)."""
    tokens = server.organiser_tokens
    session = {}
    if username in tokens:
        session = await live.resume(tokens[username])
    elif register:
        session = await live.register(username, PASSWORD, server.invite_code)
    if session.get("type") != "session":
        session = await live.login(username, PASSWORD)
    assert session.get("role") == "organiser", session
    tokens[username] = session["token"]
    return live


def ann_and_bob_playing(server, team_b: str | None = None, seconds: int | None = None) -> None:
    """Ann (team A) and Bob (team B, renamed `team_b` if given) in a started gather, the timer
    running (set to `seconds` if given)."""
    async def set_up():
        live = await organiser(server)
        try:
            for name in ("Ann", "Bob"):
                await perform(live, {"kind": "addPlayer", "name": name})
            ids = [player["id"] for player in live.snapshot["players"]]
            await perform(live, {"kind": "createGather", "playerIds": ids})
            await perform(live, {"kind": "assign", "playerId": ids[0], "to": "A"})
            await perform(live, {"kind": "assign", "playerId": ids[1], "to": "B"})
            if team_b is not None:
                await perform(live, {"kind": "renameTeam", "team": "B", "name": team_b})
            await perform(live, {"kind": "startGather"})
            if seconds is not None:
                await perform(live, {"kind": "setTimer", "minutes": 0, "seconds": seconds})
        finally:
            await live.close()
    run(set_up())


async def _busy_evening(server, players: int, history: int, timer_running: bool):
    live = await organiser(server)
    try:
        for index in range(players):
            player = {"kind": "addPlayer", "name": f"{FIRST[index % 10]} {LAST[index % 6]} {index + 1}",
                      "age": 18 + index, "skill": SKILLS[index % 3], "position": POSITIONS[index % 5]}
            if index % 4 == 0:
                player["favouriteTeam"] = "Sporting Club de Portugal"
            await perform(live, player)
        ids = [player["id"] for player in live.snapshot["players"]]
        for game in range(history):
            first, second = ids[game % len(ids)], ids[(game + 1) % len(ids)]
            await perform(live, {"kind": "createGather", "playerIds": sorted({first, second})})
            await perform(live, {"kind": "assign", "playerId": first, "to": "A"})
            await perform(live, {"kind": "assign", "playerId": second, "to": "B"})
            if game % 5 == 0:
                await perform(live, {"kind": "renameTeam", "team": "A", "name": LONG_NAMES[0]})
            await perform(live, {"kind": "startGather"})
            for _ in range(game % 4):
                await perform(live, {"kind": "score", "team": "A", "delta": 1, "playerId": first})
            await perform(live, {"kind": "endGather"})
        await perform(live, {"kind": "createGather", "playerIds": ids})
        for index, player_id in enumerate(ids[:22]):
            await perform(live, {"kind": "assign", "playerId": player_id, "to": "A" if index % 2 == 0 else "B"})
        for team, name in zip("AB", LONG_NAMES):
            await perform(live, {"kind": "renameTeam", "team": team, "name": name})
        await perform(live, {"kind": "startGather"})
        scorers = {"A": ids[0], "B": ids[1]}  # the first two placed: one on each team
        for team, delta in (("A", 1), ("B", 1), ("A", 1), ("A", 1), ("A", -1)):
            action = {"kind": "score", "team": team, "delta": delta}
            if delta > 0:
                action["playerId"] = scorers[team]
            await perform(live, action)
        await perform(live, {"kind": "setTimer", "minutes": 25, "seconds": 0})
        if timer_running:
            await perform(live, {"kind": "startTimer"})
        return live.version
    finally:
        await live.close()


def busy_evening(server, players: int = 30, history: int = 20, timer_running: bool = True) -> int:
    """30 players, 20 finished gathers and a live match (Real Madrigal Veterans 2 – 1 Athletic
    Tuesday Nights, 22 players on the pitch, 8 on the bench, a 25-minute timer): the state
    version it reached."""
    return run(_busy_evening(server, players, history, timer_running))


def register_organiser(server, username: str = ORGANISER):
    async def go():
        live = await organiser(server, username)
        await live.close()
    run(go())


# MARK: - A venue with two pitches

PITCH_NAMES = ("North pitch", "South pitch")


async def _busy_venue(server, players: int, history: int):
    live = await organiser(server)
    try:
        for index in range(players):
            player = {"kind": "addPlayer", "name": f"{FIRST[index % 10]} {LAST[index % 6]} {index + 1}",
                      "skill": SKILLS[index % 3], "position": POSITIONS[index % 5]}
            await perform(live, player)
        ids = [player["id"] for player in live.snapshot["players"]]
        await perform(live, {"kind": "renamePitch", "pitch": 1, "name": PITCH_NAMES[0]})
        await perform(live, {"kind": "addPitch", "name": PITCH_NAMES[1]})
        south = next(pitch["id"] for pitch in live.snapshot["pitches"] if pitch["name"] == PITCH_NAMES[1])
        for game in range(history):
            pitch = 1 if game % 2 == 0 else south
            four = [ids[(game * 3 + offset) % len(ids)] for offset in range(4)]
            await play(live, pitch, four[:2], four[2:], goals=[("A", four[0], four[1]), ("B", four[2], None)][: game % 3 + 1],
                       end=True)
        await play(live, 1, ids[0:7], ids[7:14], bench=ids[14:16], names=LONG_NAMES,
                   goals=[("A", ids[0], ids[1]), ("B", ids[7], None), ("A", ids[2], None)], minutes=25)
        await play(live, south, ids[16:22], ids[22:28], names=("Reds", "Blues"), goals=[("B", ids[22], ids[23])], minutes=20)
        return south
    finally:
        await live.close()


async def play(live: Live, pitch: int, team_a: list[int], team_b: list[int], bench: list[int] = (),
               names: tuple[str, str] | None = None, goals=(), minutes: int = 10, end: bool = False):
    """One gather on `pitch`: the teams placed, kicked off, `goals` as (team, scorer, assist)."""
    await perform(live, {"kind": "createGather", "pitch": pitch, "playerIds": sorted([*team_a, *team_b, *bench])})
    for team, members in (("A", team_a), ("B", team_b)):
        for player_id in members:
            await perform(live, {"kind": "assign", "pitch": pitch, "playerId": player_id, "to": team})
    if names:
        for team, name in zip("AB", names):
            await perform(live, {"kind": "renameTeam", "pitch": pitch, "team": team, "name": name})
    await perform(live, {"kind": "startGather", "pitch": pitch})
    await perform(live, {"kind": "setTimer", "pitch": pitch, "minutes": minutes, "seconds": 0})
    await perform(live, {"kind": "startTimer", "pitch": pitch})
    for team, scorer, assist in goals:
        action = {"kind": "score", "pitch": pitch, "team": team, "delta": 1, "playerId": scorer}
        if assist is not None:
            action["assistId"] = assist
        await perform(live, action)
    if end:
        await perform(live, {"kind": "endGather", "pitch": pitch})


def busy_venue(server, players: int = 30, history: int = 20) -> int:
    """30 players, 20 finished gathers on two pitches (with scorers), and both pitches live:
    North pitch (Real Madrigal Veterans 2 – 1 Athletic Tuesday Nights, 7 a side, 2 on the
    bench, 25 minutes) and South pitch (Reds 0 – 1 Blues, 6 a side, 20 minutes). Returns the
    south pitch's id."""
    return run(_busy_venue(server, players, history))



SPILLING_SCRIPT = """
const spilling = [];
for (const button of document.querySelectorAll('button, .button')) {
  const style = getComputedStyle(button);
  const box = button.getBoundingClientRect();
  if (style.display === 'none' || style.visibility === 'hidden' || box.width === 0) continue;
  const card = button.parentElement && button.parentElement.closest('.card, section, form');
  if (!card) continue;
  const edge = card.getBoundingClientRect();
  if (box.right > edge.right + 0.5 || box.left < edge.left - 0.5) spilling.push(button.id || button.textContent.trim());
}
return spilling;
"""


def spilling_controls(browser: Browser) -> list[str]:
    """Visible buttons that reach past the edge of the card (or section, or form) they sit in."""
    return browser.driver.execute_script(SPILLING_SCRIPT)
