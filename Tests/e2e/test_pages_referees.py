"""Referee links through the pages (docs/PROTOCOL.md "Referees: one pitch, one phone"), real binary
and real Chromium: the organiser's console makes a link for a pitch (its QR code on the screen); a
second browser at 360 px opens it, starts the pitch's next tournament match, runs the clock and
scores, one goal tapped while its Wi-Fi is cut for 2 s (queued with its id, sent once when back); the
organiser sees the phone connected and the goal under the referee's label in the activity; Revoke
ends the referee's page at once with a clear message. The day's sheet makes a card per pitch of
the tournament whose codes open referee sessions on their pitches, and prints only the cards.
Screenshots: Tests/e2e/artifacts/referee-*.png. One server for the file."""
import asyncio
import re
from types import SimpleNamespace

import pytest
from selenium.webdriver.common.by import By

from gatherlib import PASSWORD, GatherServer, Live, run
from pages_support import ORGANISER, register_organiser
from tournament_pages_support import connect_organiser, create_action, now_ms, perform
from uplink_proxy import Faults, UplinkProxyThread

# A clean link: nothing delayed, throttled or cut but by the test.
CLEAN = Faults(delay=0.0, jitter=0.0, stall_chance=0.0, rate_bits=10**10, cut_every=0.0, cut_for=0.0,
               max_connections=64)
TEAMS = ("Reds", "Blues", "Greens", "Golds")  # groups by i mod 2: A = Reds, Greens; B = Blues, Golds

# Every visible control of `scope` smaller than 44×44 CSS px.
SMALL_TARGETS = """
const scope = document.querySelector(arguments[0]);
return [...scope.querySelectorAll('button, a[href], summary, input:not([type=hidden]), select')].filter((el) => {
  const box = el.getBoundingClientRect(); const style = getComputedStyle(el);
  return box.width > 0 && box.height > 0 && style.visibility !== 'hidden' && !el.closest('[hidden]')
    && (box.height < 44 - 0.5 || box.width < 44 - 0.5);
}).map((el) => el.id + ' ' + Math.round(el.getBoundingClientRect().width) + 'x' + Math.round(el.getBoundingClientRect().height));
"""

QR_DRAWN = "return [...document.querySelectorAll(arguments[0])].every((img) => img.complete && img.naturalWidth > 0);"


@pytest.fixture(scope="module")
def venue():
    """North pitch and South pitch, and a four-team cup on both starting now (match 1 on North:
    Reds v Greens)."""
    with GatherServer() as server:
        register_organiser(server)

        async def set_up():
            live = await connect_organiser(server)
            try:
                await perform(live, {"kind": "renamePitch", "pitch": 1, "name": "North pitch"})
                await perform(live, {"kind": "addPitch", "name": "South pitch"})
                await perform(live, create_action(TEAMS, 2, 1, [1, 2], now_ms(), breakMinutes=0))
            finally:
                await live.close()
        run(set_up())
        yield server


def tap(browser, css):
    """Clicks after bringing the element to the middle of the screen (the sticky header covers the top)."""
    element = browser.find(css)
    browser.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def no_axe_violations(browser, where):
    violations = browser.axe()
    assert not violations, (where, [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in violations])


def state_of(server) -> dict:
    async def read():
        live = await Live.connect(server, subprotocols=("gather.v2",))
        try:
            await live.until(lambda m: m["type"] == "snapshot")
            return live.snapshot
        finally:
            await live.close()
    return run(read())


async def play_group_b(server):
    """Group B's one match, Blues 2–0 Golds, played by the organiser on South pitch."""
    live = await connect_organiser(server)
    try:
        match = next(m for m in live.snapshot["tournament"]["matches"] if m["stage"] == "group" and m["group"] == "B")
        await perform(live, {"kind": "startMatch", "match": match["id"]})
        for _ in range(2):
            await perform(live, {"kind": "score", "pitch": match["pitch"], "team": "A", "delta": 1})
        await perform(live, {"kind": "endGather", "pitch": match["pitch"]})
    finally:
        await live.close()


def code_in(link: str) -> str:
    found = re.search(r"#referee=([A-Za-z0-9_-]{16,64})$", link)
    assert found, link
    return found.group(1)


def test_a_referee_link_from_the_console_scores_its_pitch_through_a_wifi_drop_until_revoked(venue, browsers):
    console = browsers(venue, 390, 844).login(ORGANISER, PASSWORD)
    # On a tournament day the console is on the Tournament tab: the Referees card is one tap away.
    tap(console, "#show-tournament")
    tap(console, "#tournament-referees")
    console.wait(lambda: console.find("#referees").is_displayed(), 5, "the Referees card")
    row = "#referee-pitches [data-pitch='1']"
    tap(console, f"{row} .referee-create")
    console.wait(lambda: console.find(f"{row} .referee-url").text.startswith(venue.base_url), 10, "the link made")
    link = console.text(f"{row} .referee-url")
    code = code_in(link)
    assert link == f"{venue.base_url}/organiser.html#referee={code}"
    assert console.find(f"{row} .referee-link strong").text == "North pitch referee"
    console.wait(lambda: console.driver.execute_script(QR_DRAWN, f"{row} img.referee-qr"), 10, "the link's QR code")
    status, headers, body = venue.get(f"/qr.svg?referee={code}")
    assert status == 200 and body.startswith(b"<svg"), status
    link_id = int(console.find(f"{row} .referee-link").get_attribute("data-id"))
    assert console.text(f"{row} .referee-phone") == "no phone connected"
    assert not console.driver.execute_script(SMALL_TARGETS, "#referees")
    no_axe_violations(console, "the console's Referees card")
    console.driver.execute_script("document.querySelector(arguments[0]).scrollIntoView({block: 'center'})", f"{row} .referee-link")
    console.screenshot("referee-console-link-390.png")

    # The referee's phone reaches the server through a Wi-Fi the test can cut.
    with UplinkProxyThread(venue.port, CLEAN) as wifi:
        referee = browsers(SimpleNamespace(cert_dir=venue.cert_dir, base_url=f"https://127.0.0.1:{wifi.port}"), 360, 640)
        # The QR code's way in: the trust steps, whose button leads on to the referee's page.
        referee.open(f"/trust.html#referee={code}")
        referee.wait(lambda: referee.find("#organiser-link").get_attribute("href").endswith(f"/organiser.html#referee={code}"),
                     5, "the trust page's link")
        assert referee.text("#organiser-link") == "Open the pitch's scoring page"
        tap(referee, "#organiser-link")
        referee.wait(lambda: referee.find("#referee-start").is_displayed(), 15, "the pitch's next match")
        assert referee.text("header.bar h1") == "Referee" and referee.text("#referee-title") == "North pitch"
        assert referee.text("#referee-label") == "Scoring as North pitch referee"
        assert "Group A · Reds v Greens" in referee.text("#referee-next"), referee.text("#referee-next")
        assert not referee.find("#signed-in").is_displayed() and not referee.find("#signed-out").is_displayed()
        console.wait(lambda: console.text(f"{row} .referee-phone") == "phone connected", 5, "the referee's phone in presence")

        tap(referee, "#referee-start")
        referee.wait(lambda: referee.find("#referee-match").is_displayed(), 10, "the match kicked off")
        assert referee.text("#referee-a-name") == "Reds" and referee.text("#referee-b-name") == "Greens"
        tap(referee, "#referee-timer")
        referee.wait_text("#referee-timer", "Pause")
        tap(referee, "#referee-a-plus")
        referee.wait_text("#referee-a-score", "1")

        # The Wi-Fi goes for 2 s: the goal tapped meanwhile waits with its id and goes once when back.
        wifi._loop.call_soon_threadsafe(wifi.proxy.cut_now, 2.0)
        referee.wait(lambda: referee.text("#connection") != "Live", 5, "the page to notice the drop")
        tap(referee, "#referee-b-plus")
        referee.wait(lambda: referee.text("#referee-status") == "1 action waiting for the Wi-Fi…", 2, "the queued goal")
        assert referee.text("#referee-b-score") == "0", "the score counts only what the server has"
        referee.wait_text("#referee-b-score", "1", timeout=20)
        referee.wait_text("#referee-status", "")
        pitch = next(p for p in state_of(venue)["pitches"] if p["id"] == 1)
        assert pitch["gather"]["score"] == {"A": 1, "B": 1}, "the queued goal counted once"
        goals = [e for e in pitch["gather"]["events"] if e["kind"] == "goal"]
        assert [g["by"] for g in goals] == ["North pitch referee"] * 2, goals

        # Big targets, nothing cut or sideways, no axe violation: the view mid-match at 360 px.
        assert not referee.driver.execute_script(SMALL_TARGETS, "#referee")
        plus = referee.find("#referee-a-plus").rect
        assert plus["height"] >= 64 and plus["width"] >= 100, plus
        assert referee.scroll_width() <= 360
        assert not referee.cut_content(), referee.cut_content()
        no_axe_violations(referee, "the referee's view mid-match")
        referee.driver.execute_script("scrollTo(0, 0)")
        referee.screenshot("referee-view-360-mid-match.png")
        referee.screenshot("referee-view-360-mid-match-full.png", full_page=True)
        # Nothing else of the console: no tabs, no players, no other pitch.
        assert not [e for e in referee.driver.find_elements(By.CSS_SELECTOR, "[role=tab], #pitch-select, #player-list")
                    if e.is_displayed()]

        # Full time (asked first: the clock still runs); the pitch's next match is the final, once
        # the other group's match is played (by the organiser, over wss).
        tap(referee, "#referee-end")
        alert = referee.wait(lambda: referee.driver.switch_to.alert, 5, "the confirmation")
        assert alert.text == "End the match at Reds 1 – 1 Greens?", alert.text
        alert.accept()
        referee.wait(lambda: "Full time Reds 1 – 1 Greens" in referee.text("#referee-last"), 10, "full time")
        assert "Final · Group A winner v Group B winner" in referee.text("#referee-next"), referee.text("#referee-next")
        assert not referee.find("#referee-start").is_enabled(), "the final waits for its teams"
        run(play_group_b(venue))
        referee.wait(lambda: referee.find("#referee-start").is_enabled(), 10, "the final's teams known")
        assert "Final · Reds v Blues" in referee.text("#referee-next"), referee.text("#referee-next")

        # Level at the end of a knockout match: the penalties, asked on the card, decide it.
        tap(referee, "#referee-start")
        referee.wait(lambda: referee.find("#referee-match").is_displayed(), 10, "the final kicked off")
        tap(referee, "#referee-end")
        referee.wait(lambda: referee.find("#referee-penalties").is_displayed(), 5, "the penalties asked")
        assert referee.text("#referee-pens-a-label") == "Reds penalties", referee.text("#referee-pens-a-label")
        referee.fill("#referee-penalties [name=a]", "4")
        referee.fill("#referee-penalties [name=b]", "4")
        tap(referee, "#referee-pens-end")
        referee.wait_text("#referee-pens-error", "The shoot-out needs a winner: the two numbers cannot be equal.")
        no_axe_violations(referee, "the penalties")
        referee.screenshot("referee-view-360-penalties.png")
        referee.fill("#referee-penalties [name=b]", "3")
        tap(referee, "#referee-pens-end")
        referee.wait(lambda: "Full time Reds 0 – 0 Blues" in referee.text("#referee-last"), 10, "the final's full time")
        cup = state_of(venue)["tournament"]
        final = next(m for m in cup["matches"] if m["stage"] == "final")
        assert (cup["champion"], final["penalties"]) == (1, {"home": 4, "away": 3}), (cup["champion"], final)
        assert referee.text("#referee-next") == "No match to start on this pitch. When an organiser kicks one off, it shows here."

        # The organiser sees the goals under the referee's label in the activity.
        tap(console, "#show-activity")
        items = lambda: [e.text for e in console.driver.find_elements(By.CSS_SELECTOR, "#activity-list .activity-item")]
        console.wait(lambda: any("Added a goal for Greens" in item for item in items()), 10, "the activity")
        goals = [item for item in items() if "Added a goal" in item]
        assert [("North pitch referee" in item, "captain" in item) for item in goals] \
            == [(False, True), (False, True), (True, False), (True, False)], goals  # newest first: Blues twice, then Greens, Reds

        # Revoke: the referee's page says so at once.
        tap(console, "#show-invite")
        tap(console, f".referee-link[data-id='{link_id}'] .referee-revoke")
        console.wait(lambda: console.find("#confirm").is_displayed(), 5, "the question")
        assert console.text("#confirm-title") == "Revoke North pitch referee?"
        console.click("#confirm-yes")
        referee.wait(lambda: referee.find("#referee-ended").is_displayed(), 5, "the ended message")
        assert "The organiser revoked this referee link" in referee.text("#referee-ended")
        assert not referee.driver.find_elements(By.CSS_SELECTOR, "#referee-card, #referee-a-plus"), "no control left"
        console.wait(lambda: not console.driver.find_elements(By.CSS_SELECTOR, f".referee-link[data-id='{link_id}']"), 5, "the link gone")
        no_axe_violations(referee, "the ended message")
        referee.screenshot("referee-view-360-revoked.png")
        assert [e for e in referee.console_errors() if "ERR_CONNECTION" not in e] == []


def test_the_days_sheet_has_a_card_per_pitch_whose_code_opens_that_pitch(venue, browsers):
    laptop = browsers(venue, 1280, 900).login(ORGANISER, PASSWORD)
    tap(laptop, "#show-invite")
    tap(laptop, "#referee-sheet-make")
    laptop.wait(lambda: len(laptop.driver.find_elements(By.CSS_SELECTOR, "#referee-sheet .sheet-card img.sheet-qr")) == 2,
                10, "a card with a code per pitch")
    laptop.wait(lambda: laptop.driver.execute_script(QR_DRAWN, "#referee-sheet img.sheet-qr"), 10, "the QR codes")
    assert laptop.text("#referee-sheet-title") == "Referee QR codes · Riverside Cup"
    assert "made on this page" in laptop.text("#referee-sheet .sheet-note")
    cards = laptop.driver.find_elements(By.CSS_SELECTOR, "#referee-sheet .sheet-card")
    assert [c.find_element(By.CSS_SELECTOR, "h2").text for c in cards] == ["North pitch", "South pitch"]
    assert [c.find_element(By.CSS_SELECTOR, ".sheet-label").text for c in cards] == ["North pitch referee", "South pitch referee"]
    assert all(c.find_element(By.CSS_SELECTOR, ".sheet-expiry").text.startswith("Valid until ") for c in cards)
    codes = [code_in(c.find_element(By.CSS_SELECTOR, ".sheet-url").text) for c in cards]
    assert [c.find_element(By.CSS_SELECTOR, "img").get_attribute("src").endswith(f"/qr.svg?referee={code}")
            for c, code in zip(cards, codes)] == [True, True]
    no_axe_violations(laptop, "the sheet")
    assert not laptop.driver.execute_script(SMALL_TARGETS, "#referee-sheet")
    laptop.screenshot("referee-qr-sheet.png", full_page=True)

    # Each code opens a referee session on its own pitch.
    async def sessions():
        pitches = []
        for code in codes:
            phone = await Live.connect(venue, subprotocols=("gather.v2",))
            try:
                await phone.send({"type": "referee", "id": "r-1", "code": code})
                reply = await phone.session_reply("r-1")
                pitches.append((reply.get("role"), reply.get("pitch")))
            finally:
                await phone.close()
        return pitches
    assert run(sessions()) == [("referee", 1), ("referee", 2)]

    # Printed: only the cards, without the buttons.
    laptop.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    shown = laptop.driver.execute_script("""return ['header.bar', '#signed-in', '.sheet-actions', '.sheet-card']
      .map((css) => getComputedStyle(document.querySelector(css)).display !== 'none');""")
    assert shown == [False, False, False, True], shown
    laptop.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    tap(laptop, "#referee-sheet-close")
    laptop.wait(lambda: laptop.find("#tab-invite").is_displayed(), 5, "back to the console")
