"""Issue 12: the pages as a person uses them, on phones from 320 px to a 1920×1080 projector,
with a screen reader (axe-core, ARIA roles, live regions) and with a keyboard.

Real Chromium, real server; the busy state (30 players, 20 finished gathers, a live match) is
made through the server over wss. Screenshots go to Tests/e2e/artifacts/ for people to look at.
"""
import json

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from gatherlib import GatherServer, PASSWORD
from pages_support import (ARTIFACTS, LONG_NAMES, ORGANISER, PHONES, PROJECTOR, Browser, ann_and_bob_playing,
                           busy_evening, register_organiser)

SIZES = ((320, 568), *PHONES, PROJECTOR)
TABS = ("players", "gather", "history", "activity", "invite")
SERIOUS = ("serious", "critical")


@pytest.fixture(scope="module")
def empty_server():
    with GatherServer() as running:
        register_organiser(running)
        yield running


@pytest.fixture(scope="module")
def busy_server():
    with GatherServer() as running:
        busy_evening(running)
        yield running


@pytest.fixture()
def server():
    with GatherServer() as running:
        yield running




def each_view(browser: Browser):
    """Opens every page (the organiser's on each tab, logged in) and yields its name."""
    for path, name in (("/", "spectator"), ("/scoreboard.html", "scoreboard")):
        browser.open(path)
        browser.wait_text("#connection", "Live")
        yield name
    browser.open("/trust.html")
    yield "trust"
    browser.login(ORGANISER, PASSWORD)
    for tab in TABS:
        browser.click(f"[data-tab={tab}]")
        browser.wait(lambda: browser.find(f"#tab-{tab}").is_displayed(), what=f"the {tab} tab")
        yield f"organiser-{tab}"


# MARK: - Layout

@pytest.mark.parametrize("state", ["empty", "mid-match"])
@pytest.mark.parametrize("width,height", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_every_page_reads_whole_from_320_px_to_a_projector(state, width, height, empty_server, busy_server, browsers):
    browser = browsers(busy_server if state == "mid-match" else empty_server, width, height)
    for view in each_view(browser):
        assert browser.scroll_width() <= width, (view, browser.scroll_width())
        assert browser.cut_content() == [], view
        assert browser.console_errors() == [], view
        browser.screenshot(f"{view}-{state}-{width}x{height}.png", full_page=view != "scoreboard")


def test_the_busy_evening_is_all_there(busy_server, browsers):
    organiser_page = browsers(busy_server, 390, 844).login(ORGANISER, PASSWORD)
    assert len(organiser_page.driver.find_elements(By.CSS_SELECTOR, "#player-list li.player")) == 30
    organiser_page.click("[data-tab=history]")
    assert len(organiser_page.driver.find_elements(By.CSS_SELECTOR, "#history li")) == 20
    organiser_page.click("[data-tab=gather]")
    assert organiser_page.text("#match-a-score") == "2" and organiser_page.text("#match-b-score") == "1"
    assert len(organiser_page.driver.find_elements(By.CSS_SELECTOR, "#col-bench li")) == 8


# MARK: - Screen readers

def test_axe_finds_nothing_serious_or_critical_on_any_page(empty_server, busy_server, browsers):
    report = {}
    for state, server in (("empty", empty_server), ("mid-match", busy_server)):
        for width, height in (PHONES[1], PROJECTOR):
            browser = browsers(server, width, height)
            browser.open("/organiser.html")
            browser.wait_text("#connection", "Live")
            report[f"organiser-signed-out {state} {width}"] = browser.axe()
            for view in each_view(browser):
                report[f"{view} {state} {width}"] = browser.axe()
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "axe-violations.json").write_text(json.dumps(report, indent=1))
    summary = {page: sorted(f"{v['impact']}: {v['id']}" for v in violations) for page, violations in report.items()}
    print("\naxe violations by page:\n" + "\n".join(f"  {page}: {found or 'none'}" for page, found in summary.items()))
    serious = {page: [f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']]}" for v in violations
                      if v["impact"] in SERIOUS] for page, violations in report.items()}
    assert {page: found for page, found in serious.items() if found} == {}


def test_the_organiser_tabs_are_a_tablist_for_keyboards(empty_server, browsers):
    browser = browsers(empty_server, 390, 844).login(ORGANISER, PASSWORD)
    tablist = browser.find("[role=tablist]")
    tabs = tablist.find_elements(By.CSS_SELECTOR, "[role=tab]")
    assert [tab.text for tab in tabs] == ["Players", "Gather", "History", "Activity", "Group", "Tournament"]

    def selected():
        state = browser.driver.execute_script("""
            return [...document.querySelectorAll('[role=tab]')].map((tab) => [tab.dataset.tab,
              tab.getAttribute('aria-selected'), tab.tabIndex, document.activeElement === tab,
              !document.getElementById(tab.getAttribute('aria-controls')).hidden,
              document.getElementById(tab.getAttribute('aria-controls')).getAttribute('role'),
              document.getElementById(tab.getAttribute('aria-controls')).getAttribute('aria-labelledby') === tab.id]);""")
        chosen = [name for name, aria, index, _, shown, role, labelled in state
                  if aria == "true" and index == 0 and shown and role == "tabpanel" and labelled]
        others_off = all(aria == "false" and index == -1 and not shown
                         for name, aria, index, _, shown, _, _ in state if name not in chosen)
        focused = [name for name, _, _, has_focus, *_ in state if has_focus]
        return chosen, others_off, focused

    tabs[0].click()
    assert selected() == (["players"], True, ["players"])
    for key, expected in ((Keys.ARROW_RIGHT, "gather"), (Keys.ARROW_RIGHT, "history"), (Keys.END, "tournament"),
                          (Keys.ARROW_RIGHT, "players"), (Keys.ARROW_LEFT, "tournament"), (Keys.HOME, "players")):
        browser.driver.switch_to.active_element.send_keys(key)
        assert selected() == ([expected], True, [expected]), (key, expected)
    # Tab leaves the tab list for the panel's content instead of walking through the other tabs.
    browser.driver.switch_to.active_element.send_keys(Keys.TAB)
    assert browser.driver.switch_to.active_element.get_attribute("role") != "tab"


def test_goals_and_full_time_are_announced_but_not_the_seconds(server, browsers):
    ann_and_bob_playing(server, team_b="Reds", seconds=3)
    console = browsers(server, 390, 844).login(ORGANISER, PASSWORD)
    console.click("[data-tab=gather]")
    pages = {"organiser": console}
    for name, path, size in (("spectator", "/", (390, 844)), ("scoreboard", "/scoreboard.html", PROJECTOR)):
        pages[name] = browsers(server, *size).open(path)
        pages[name].wait_text("#connection", "Live")
    for name, page in pages.items():
        clock = "#match-clock" if name == "organiser" else "#clock"
        live_ancestors = page.driver.execute_script("""
            const out = [];
            for (let el = document.querySelector(arguments[0]); el; el = el.parentElement) {
              const role = el.getAttribute('role');
              if ((el.hasAttribute('aria-live') && el.getAttribute('aria-live') !== 'off')
                  || ['status', 'alert', 'log', 'marquee'].includes(role)) out.push(el.tagName + '#' + el.id);
            }
            return out;""", clock)
        assert live_ancestors == [], (name, live_ancestors)
        page.driver.execute_script("""
            window.__said = [];
            const region = document.querySelector('#announcer');
            new MutationObserver(() => window.__said.push(region.textContent))
              .observe(region, {childList: true, characterData: true, subtree: true});""")

    # The buttons say for whom they count.
    assert console.accessible_name("[data-score=A][data-delta='1']") == "+1 goal for Team A"
    assert console.accessible_name("[data-score=B][data-delta='1']") == "+1 goal for Reds"
    assert console.accessible_name("[data-score=B][data-delta='-1']") == "−1 goal for Reds"

    console.click("[data-score=B][data-delta='1']")
    pages["spectator"].wait_text("#score-b", "1")
    console.click("#timer-start")
    pages["spectator"].wait_text("#phase", "Full time", timeout=10)
    pages["scoreboard"].wait_text("#status", "Full time")
    expected = ["Goal for Reds. Team A 0, Reds 1", "Full time. Team A 0, Reds 1"]
    for name, page in pages.items():
        page.wait(lambda: page.driver.execute_script("return window.__said;") == expected, timeout=5,
                  what=f"the {name} page's announcements")


def test_the_scoreboard_button_never_covers_content_and_hides_in_full_screen(busy_server, browsers):
    content = ".team, .goals, .clock, .status, .join, #connection, h1:not(.visually-hidden)"
    for width, height in (*PHONES, PROJECTOR):
        board = browsers(busy_server, width, height).open("/scoreboard.html")
        board.wait_text("#connection", "Live")
        board.wait_text("#team-a-name", LONG_NAMES[0])
        assert board.overlapping("#fullscreen", content) == [], (width, height)
        assert board.overlapping(".join", content) == [], (width, height)
        assert board.cut_content() == [], (width, height)
    assert board.driver.find_element(By.TAG_NAME, "h1").get_attribute("textContent") == "Scoreboard"
    assert board.find("#connection").get_attribute("role") == "status"
    board.click("#fullscreen")
    board.wait(lambda: board.driver.execute_script("return !!document.fullscreenElement;"), what="full screen")
    board.wait(lambda: not board.find("#fullscreen").is_displayed(), what="the button hiding itself")
    board.driver.execute_script("document.exitFullscreen();")
    board.wait(lambda: board.find("#fullscreen").is_displayed(), what="the button back after full screen")


# MARK: - A phone that stays awake

FAKE_WAKE_LOCK = """
// Stands in for the Screen Wake Lock API (which a headless browser may refuse): records what the
// page asks for, the way the browser would grant and release it.
window.__wake = [];
class Sentinel extends EventTarget {
  constructor() { super(); this.released = false; this.type = 'screen'; }
  async release() {
    if (this.released) return;
    this.released = true; window.__wake.push('released'); this.dispatchEvent(new Event('release'));
  }
}
Object.defineProperty(navigator, 'wakeLock', { configurable: true, value: {
  request: async (type) => { window.__wake.push('acquired ' + type); return (window.__sentinel = new Sentinel()); } } });
"""


def test_the_gather_screen_keeps_the_phone_awake_while_the_timer_runs(server, browsers):
    ann_and_bob_playing(server)
    phone = browsers(server, 390, 844)
    phone.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FAKE_WAKE_LOCK})
    phone.login(ORGANISER, PASSWORD)

    def wake_log():
        return phone.driver.execute_script("return window.__wake;")

    def expect(log):
        phone.wait(lambda: wake_log() == log, timeout=5, what=f"wake lock {log} (got {wake_log()})")

    phone.click("[data-tab=gather]")
    phone.click("#timer-start")
    expect(["acquired screen"])
    phone.click("[data-tab=players]")            # not on the gather screen: the screen may sleep
    expect(["acquired screen", "released"])
    phone.click("[data-tab=gather]")
    expect(["acquired screen", "released", "acquired screen"])
    # Hidden, the browser drops the lock by itself; visible again, the page asks anew.
    phone.driver.execute_script("window.__sentinel.release(); document.dispatchEvent(new Event('visibilitychange'));")
    expect(["acquired screen", "released", "acquired screen", "released", "acquired screen"])
    phone.click("#timer-pause")
    expect(["acquired screen", "released", "acquired screen", "released", "acquired screen", "released"])


# MARK: - Trust

def test_the_trust_page_keeps_the_phone_steps_adds_the_fingerprint_and_spares_spectators(empty_server, browsers):
    page = browsers(empty_server, 390, 844).open("/trust.html")
    text = page.text("main")
    for step in ("iPhone and iPad", "Certificate Trust Settings", "Android", "Install a certificate → CA certificate",
                 "CA fingerprint SHA-256", "Spectators: nothing to do"):
        assert step in text, step
    assert page.find("a[href='/ca.pem']").is_displayed()
