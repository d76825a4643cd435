"""Issue 6: the three pages in a real headless Chromium against the real server."""
import statistics
import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from gatherlib import GatherServer
from pages_support import PHONES, PROJECTOR, Browser

PAGES = ("/", "/organiser.html", "/scoreboard.html", "/trust.html")


@pytest.fixture(scope="module")
def server():
    with GatherServer() as running:
        yield running


@pytest.fixture()
def browsers(server):
    opened = []

    def open_browser(width, height, mobile=False):
        browser = Browser(server, width, height, mobile)
        opened.append(browser)
        return browser
    yield open_browser
    for browser in opened:
        browser.close()


def register(organiser: Browser, username: str, invite: str):
    organiser.open("/organiser.html")
    organiser.wait_text("#connection", "Live")
    organiser.fill("#register-form [name=username]", username)
    organiser.fill("#register-form [name=password]", "correct horse battery")
    organiser.fill("#register-form [name=inviteCode]", invite)
    organiser.click("#register-form button[type=submit]")
    organiser.wait(lambda: organiser.find("#signed-in").is_displayed(), what="the organiser console")


def add_player(organiser: Browser, name: str, skill: str, position: str):
    organiser.fill("#player-form [name=name]", name)
    Select(organiser.find("#player-form [name=skill]")).select_by_value(skill)
    Select(organiser.find("#player-form [name=position]")).select_by_value(position)
    organiser.click("#player-save")
    organiser.wait(lambda: name in organiser.text("#player-list"), what=f"{name} in the list")


def accept_confirmation(browser: Browser):
    browser.wait(lambda: browser.driver.switch_to.alert, what="the confirmation").accept()


def test_every_page_fits_a_phone_and_a_projector_and_loads_nothing_from_outside(server, browsers):
    for width, height in (*PHONES, PROJECTOR):
        browser = browsers(width, height)
        for path in PAGES:
            browser.open(path)
            if path != "/trust.html":
                browser.wait_text("#connection", "Live")
            # A phone's layout viewport widens to fit what sticks out, so compare with the device.
            assert browser.scroll_width() <= width, (path, width, browser.scroll_width())
            assert browser.foreign_requests() == [], path
            assert browser.console_errors() == [], (path, browser.console_errors())
            name = (path.strip("/").replace(".html", "") or "spectator")
            browser.screenshot(f"{name}-{width}x{height}.png")


@pytest.mark.timing
def test_a_whole_gather_through_the_pages_seen_live_by_a_spectator_and_the_scoreboard(server, browsers):
    organiser = browsers(390, 844, True)
    spectator = browsers(390, 844, True)
    scoreboard = browsers(1920, 1080)

    register(organiser, "captain", server.invite_code)
    assert organiser.content("#invite-code") == server.invite_code
    # The co-organisers' QR code carries the invite code (after '#', filled in by the page).
    assert organiser.find(".qr").get_attribute("src").endswith(f"/qr.svg?invite={server.invite_code}")

    # A spectator never sees organiser controls and follows from the start.
    spectator.open("/")
    spectator.wait_text("#connection", "Live")
    # (The only buttons there sort the players' table; the one select picks the language.)
    assert spectator.driver.find_elements(By.CSS_SELECTOR, "button:not(.sort), input, select:not(#language-switch), form") == []
    assert len(spectator.driver.find_elements(By.CSS_SELECTOR, "#standings th > button.sort")) == 6
    scoreboard.open("/scoreboard.html")
    scoreboard.wait_text("#connection", "Live")

    for name, skill, position in (("Ann", "amateur", "striker"), ("Bob", "beginner", "goalkeeper"),
                                  ("Cid", "professional", "winger"), ("Dee", "amateur", "defender")):
        add_player(organiser, name, skill, position)
    assert "Striker · Amateur" in organiser.text("#player-list")

    # Edit every field of one player.
    organiser.find("#player-list li[data-id='4'] button.secondary").click()
    organiser.fill("#player-form [name=name]", "Dee Dee")
    organiser.fill("#player-form [name=age]", "31")
    organiser.fill("#player-form [name=favouriteTeam]", "Arsenal")
    Select(organiser.find("#player-form [name=position]")).select_by_value("midfielder")
    organiser.click("#player-save")
    organiser.wait(lambda: "Dee Dee" in organiser.text("#player-list") and "Arsenal" in organiser.text("#player-list"))

    # Selection mode: continue only with at least two.
    organiser.click("#select-toggle")
    boxes = organiser.driver.find_elements(By.CSS_SELECTOR, "#player-list input[type=checkbox]")
    boxes[0].click()
    assert organiser.text("#selected-count") == "1 selected"
    assert not organiser.find("#continue").is_enabled()
    for box in boxes[1:]:
        box.click()
    assert organiser.text("#selected-count") == "4 selected"
    organiser.click("#continue")
    organiser.wait(lambda: organiser.find("#lineup").is_displayed(), what="the line-up")
    assert not organiser.find("#start-gather").is_enabled()

    for name, team in (("Ann", "A"), ("Bob", "B"), ("Cid", "A")):
        organiser.click(f"button[aria-label='Move {name} to {team}']")
        organiser.wait(lambda: name in organiser.text(f"#col-{team}"), what=f"{name} in team {team}")
    organiser.fill("#name-b", "Reds")
    organiser.find("#name-b").send_keys(Keys.TAB)
    spectator.wait_text("#team-b-name", "Reds")
    assert "Ann" in spectator.text("#list-a") and "Cid" in spectator.text("#list-a")
    organiser.click("#start-gather")
    organiser.wait(lambda: organiser.find("#match").is_displayed(), what="the match controls")
    spectator.wait_text("#phase", "Live")

    # Press to phone: the organiser's +1 until the spectator's page shows it.
    spectator.driver.execute_script("""
        window.__changes = [];
        const score = document.querySelector('#score-a');
        new MutationObserver(() => window.__changes.push([Date.now(), score.textContent]))
            .observe(score, {childList: true, characterData: true, subtree: true});""")
    delays = []
    for goal in range(1, 6):
        pressed = organiser.driver.execute_script(
            "const t = Date.now(); document.querySelector('[data-score=A][data-delta=\"1\"]').click(); return t;")
        spectator.wait_text("#score-a", str(goal), timeout=5)
        changes = spectator.driver.execute_script("return window.__changes;")
        shown = next(at for at, text in changes if text == str(goal))
        delays.append(shown - pressed)
    print(f"\npress-to-phone delay ms: {delays} (median {statistics.median(delays)})")
    assert max(delays) < 1000, delays
    organiser.click("[data-score=A][data-delta='-1']")
    spectator.wait_text("#score-a", "4")
    assert "Goal cancelled" in spectator.text("#goals")
    scoreboard.wait_text("#score-a", "4")
    scoreboard.wait_text("#team-b-name", "Reds")
    for browser, name in ((spectator, "spectator-live-390x844"), (organiser, "organiser-live-390x844"),
                          (scoreboard, "scoreboard-live-1920x1080")):
        browser.screenshot(f"{name}.png")
        assert browser.scroll_width() <= browser.width, (name, browser.scroll_width())

    # The countdown: set 0:04 with the pickers, start, the scoreboard counts down to full time.
    organiser.fill("#timer-form [name=minutes]", "0")
    organiser.fill("#timer-form [name=seconds]", "4")
    organiser.click("#timer-form button")
    scoreboard.wait_text("#clock", "00:04")
    organiser.click("#timer-start")
    seen = set()
    scoreboard.wait(lambda: seen.add(scoreboard.text("#clock")) or {"00:03", "00:02", "00:01"} <= seen,
                    timeout=8, what="the scoreboard counting down")
    scoreboard.wait_text("#status", "Full time", timeout=8)
    assert scoreboard.text("#clock") == "00:00"
    spectator.wait_text("#phase", "Full time")

    # A rejection is a sentence: the timer cannot start again at 00:00.
    organiser.driver.execute_script("document.querySelector('#timer-start').disabled = false;")
    organiser.click("#timer-start")
    organiser.wait(lambda: organiser.find("#notice").is_displayed(), what="a rejection notice")
    assert organiser.text("#notice").endswith(".")

    organiser.click("#end-gather")
    accept_confirmation(organiser)
    spectator.wait(lambda: "Team A 4 – 0 Reds" in spectator.text("#history"), what="the result in history")
    assert "Team A won" in spectator.text("#history")
    organiser.click("[data-tab=history]")
    organiser.wait(lambda: "Team A 4 – 0 Reds" in organiser.text("#history"), what="the organiser's history")
    # Full time stays on the projector until the next gather (issue 23).
    scoreboard.wait(lambda: scoreboard.text("#clock") == "Full time" and scoreboard.text("#status").startswith("Team A won"),
                    what="full time")

    # The pages survive a server restart by themselves, and the organiser stays logged in.
    assert server.stop() == 0
    spectator.wait_text("#connection", "Reconnecting…")
    server.start()
    for browser in (spectator, organiser, scoreboard):
        browser.wait_text("#connection", "Live", timeout=20)
    assert "Team A 4 – 0 Reds" in spectator.text("#history")
    assert organiser.find("#signed-in").is_displayed()
    organiser.click("[data-tab=players]")
    add_player(organiser, "Eve", "amateur", "winger")
    spectator.open("/")
    spectator.wait_text("#connection", "Live")


def test_a_wrong_invite_code_is_explained_and_changes_nothing(server, browsers):
    organiser = browsers(390, 844, True)
    organiser.open("/organiser.html")
    organiser.wait_text("#connection", "Live")
    organiser.fill("#register-form [name=username]", "intruder")
    organiser.fill("#register-form [name=password]", "correct horse battery")
    organiser.fill("#register-form [name=inviteCode]", "WRONG-CODE")
    organiser.click("#register-form button[type=submit]")
    organiser.wait(lambda: organiser.find("#notice").is_displayed(), what="the refusal")
    assert "invite" in organiser.text("#notice").lower()
    assert not organiser.find("#signed-in").is_displayed()


def test_the_trust_page_links_the_ca_and_the_qr_is_an_svg(server):
    status, headers, body = server.get("/trust.html")
    assert status == 200 and b'href="/ca.pem"' in body
    status, headers, body = server.get("/qr.svg")
    assert status == 200 and headers["content-type"] == "image/svg+xml" and body.startswith(b"<svg")
    status, _, organiser_qr = server.get("/qr.svg?page=organiser")
    assert status == 200 and organiser_qr != body
