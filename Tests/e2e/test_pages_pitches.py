"""Issues 13 and 14, the pages: several pitches, scorers in two taps, the players' table, the venue
overview and the plain-HTTP spectator door, in real Chromium against the real server.

Phones are 390×844 mobile emulation; projectors 1920×1080. States are made through the server
over wss (gatherlib speaks gather.v1, whose actions take `pitch` like gather.v2's).
"""
import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from gatherlib import GatherServer, PASSWORD
from pages_support import ORGANISER, PROJECTOR, Browser, organiser, perform, play, register_organiser, run

PHONE = (390, 844)




def set_up(server, *steps):
    """Registers the organiser, adds Ann, Bob, Cid, Dee, Eve, Fay, Gus, Hal (ids 1–8), then runs
    each step(live, ids) in order."""
    async def go():
        live = await organiser(server)
        for name in ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"):
            await perform(live, {"kind": "addPlayer", "name": name, "skill": "amateur"})
        ids = [player["id"] for player in live.snapshot["players"]]
        for step in steps:
            await step(live, ids)
        await live.close()
    run(go())


def add_pitch(name):
    async def step(live, ids):
        await perform(live, {"kind": "addPitch", "name": name})
    return step


def match(pitch, team_a, team_b, names=None, goals=()):
    """A live match on `pitch`; teams by index into the roster (0 = Ann)."""
    async def step(live, ids):
        await play(live, pitch, [ids[i] for i in team_a], [ids[i] for i in team_b], names=names,
                   goals=[(team, ids[scorer], None) for team, scorer in goals])
    return step


def score(server, pitch, team, scorer_index) -> int:
    """A goal with its scorer; returns when the server applied it (the event's `at`, epoch ms on
    this machine's clock, as the pages' Date.now())."""
    async def go():
        live = await organiser(server)
        ids = [player["id"] for player in live.snapshot["players"]]
        await perform(live, {"kind": "score", "pitch": pitch, "team": team, "delta": 1, "playerId": ids[scorer_index]})
        await live.close()
        gather = next(p["gather"] for p in live.snapshot["pitches"] if p["id"] == pitch)
        return [event for event in gather["events"] if event["kind"] == "goal"][-1]["at"]
    return run(go())


def watch_text(browser: Browser, css: str):
    """Records (Date.now(), text) of `css` each time it changes, in the page itself."""
    browser.driver.execute_script("""
        window.__seen = [];
        const target = document.querySelector(arguments[0]);
        new MutationObserver(() => window.__seen.push([Date.now(), target.textContent]))
          .observe(target, {childList: true, characterData: true, subtree: true});""", css)


def first_seen(browser: Browser, needle: str) -> int:
    return next(at for at, text in browser.driver.execute_script("return window.__seen;") if needle in text)


# MARK: - Scorers

def test_the_organiser_names_the_scorer_in_two_taps_and_a_phone_sees_it_within_a_second(browsers):
    with GatherServer() as server:
        set_up(server, match(1, [0, 1], [2, 3], names=("Greens", "Reds")))
        console = browsers(server, *PHONE).login(ORGANISER, PASSWORD)
        console.click("[data-tab=gather]")
        phone = browsers(server, *PHONE).open("/")
        phone.wait_text("#connection", "Live")
        board = browsers(server, *PROJECTOR).open("/scoreboard.html")
        board.wait_text("#connection", "Live")
        watch_text(phone, "#goals")

        # Tap 1: +1. The team's players appear at once under "Who scored?".
        console.click("[data-score=A][data-delta='1']")
        console.wait(lambda: console.find("#scorer").is_displayed(), what="the scorer picker")
        assert console.text("#scorer-title") == "Who scored?"
        assert [b.text for b in console.driver.find_elements(By.CSS_SELECTOR, "#scorer-choices button")] == ["Ann", "Bob"]
        phone.wait_text("#score-a", "1")
        # Tap 2: Ann. The phone names her within a second.
        tapped = console.driver.execute_script(
            "const t = Date.now(); document.querySelector('#scorer-choices [data-player=\"1\"]').click(); return t;")
        phone.wait(lambda: "Ann" in phone.text("#goals"), timeout=5, what="the scorer on the phone")
        delay = first_seen(phone, "Ann") - tapped
        print(f"\nscorer tap to phone: {delay} ms")
        assert delay < 1000, delay
        # The flash names the scorer and the team (issue 23).
        board.wait(lambda: board.text("#status").startswith("Goal! Ann · "), timeout=3, what="the goal flash")
        flash = board.text("#status")
        # Optional tap 3: the assist.
        console.wait_text("#scorer-title", "Assist?")
        assert [b.text for b in console.driver.find_elements(By.CSS_SELECTOR, "#scorer-choices button")] == ["Bob"]
        console.click("#scorer-choices [data-player='2']")
        phone.wait(lambda: "Ann (assist Bob)" in phone.text("#goals"), what="the assist on the phone")
        assert not console.find("#scorer").is_displayed()
        assert board.text("#status") == flash and "Bob" not in flash  # a projector names the scorer only
        # The name stays up a few seconds, then the board's status returns.
        board.wait(lambda: board.text("#status") == "", timeout=12, what="the scorer leaving the board")

        # Re-attribute the goal from the timeline, then cancel it.
        console.click("#timeline li.goal button[aria-label^='Change the scorer']")
        console.wait(lambda: console.find("#scorer").is_displayed(), what="the picker for an old goal")
        assert console.find("#scorer-choices [data-player='1']").get_attribute("aria-pressed") == "true"
        console.click("#scorer-choices [data-player='2']")
        console.click("#scorer-done")  # no assist
        phone.wait(lambda: "Greens — Bob" in phone.text("#goals") and "assist" not in phone.text("#goals"),
                   what="the goal given to Bob")
        console.click("#timeline li.goal button[aria-label^='Cancel the goal']")
        phone.wait_text("#score-a", "0")
        phone.wait(lambda: phone.find("#goals li.cancelled").is_displayed(), what="the goal struck through")
        # A cancelled goal offers only to bring it back (issue 23).
        buttons = console.driver.find_elements(By.CSS_SELECTOR, "#timeline li.goal button")
        assert [button.text for button in buttons] == ["Bring back"]


# MARK: - Several pitches

def test_two_live_pitches_make_two_cards_and_a_phone_follows_pitch_2(browsers):
    with GatherServer() as server:
        set_up(server, add_pitch("South"), match(1, [0, 1], [2, 3], names=("Greens", "Reds"), goals=[("A", 0)]),
               match(2, [4, 5], [6, 7], names=("Blues", "Whites")))
        phone = browsers(server, *PHONE).open("/")
        phone.wait_text("#connection", "Live")
        phone.wait(lambda: len(phone.driver.find_elements(By.CSS_SELECTOR, "#pitch-cards .pitch-card")) == 2,
                   what="two cards")
        cards = phone.driver.find_elements(By.CSS_SELECTOR, "#pitch-cards .pitch-card")
        assert "Pitch 1" in cards[0].text and "Greens" in cards[0].text and "Last goal 1': Ann" in cards[0].text
        assert "South" in cards[1].text and "Blues" in cards[1].text
        assert [card.find_element(By.TAG_NAME, "a").get_attribute("href").split("127.0.0.1")[1].split("/", 1)[1]
                for card in cards] == ["?pitch=1", "?pitch=2"]
        assert not phone.find("#single").is_displayed()
        assert phone.scroll_width() <= PHONE[0] and phone.cut_content() == []

        # A tap anywhere on the card follows that pitch.
        size = cards[1].size
        phone.driver.execute_script("""
            const card = arguments[0], box = card.getBoundingClientRect();
            document.elementFromPoint(box.left + box.width - 10, box.top + box.height - 10).click();""", cards[1])
        phone.wait(lambda: phone.driver.current_url.endswith("/?pitch=2"), what="the pitch 2 page")
        assert size["height"] < 260, size
        phone.wait_text("#connection", "Live")
        phone.wait_text("#team-a-name", "Blues")
        assert phone.text("#match-title") == "South"
        watch_text(phone, "#score-a")
        applied = score(server, 2, "A", 4)
        phone.wait_text("#score-a", "1", timeout=5)
        phone.wait(lambda: "Blues — Eve" in phone.text("#goals"), what="pitch 2's scorer")
        delay = first_seen(phone, "1") - applied
        print(f"\npitch 2 goal applied to shown on the phone: {delay} ms")
        assert delay < 1000, delay
        assert phone.text("#team-b-name") == "Whites"
        assert phone.find("#all-pitches").is_displayed()

        # Pitch 1's goal does not touch pitch 2's page.
        score(server, 1, "B", 2)
        time.sleep(0.5)
        assert phone.text("#score-a") == "1" and phone.text("#score-b") == "0"


def test_the_venue_overview_reads_across_a_hall_and_a_pitch_board_leads_to_its_pitch(browsers):
    with GatherServer() as server:
        set_up(server, add_pitch("South"), match(1, [0, 1], [2, 3], names=("Greens", "Reds"), goals=[("A", 0), ("B", 2)]),
               match(2, [4, 5], [6, 7], names=("Blues", "Whites"), goals=[("B", 6)]))
        venue = browsers(server, *PROJECTOR).open("/scoreboard.html?pitch=all")
        venue.wait_text("#connection", "Live")
        venue.wait(lambda: len(venue.driver.find_elements(By.CSS_SELECTOR, ".venue-pitch")) == 2, what="both pitches")

        def scores():
            return [[goal.text for goal in pitch.find_elements(By.CSS_SELECTOR, ".venue-goals")]
                    for pitch in venue.driver.find_elements(By.CSS_SELECTOR, ".venue-pitch")]
        assert scores() == [["1", "1"], ["0", "1"]]
        names = [pitch.find_element(By.CSS_SELECTOR, ".venue-name").text
                 for pitch in venue.driver.find_elements(By.CSS_SELECTOR, ".venue-pitch")]
        assert names == ["Pitch 1", "South"]
        # Big enough for a hall: scores at least 200 px, names and clocks at least 60 px.
        sizes = venue.driver.execute_script("""
            const px = (css) => [...document.querySelectorAll(css)].map((el) => parseFloat(getComputedStyle(el).fontSize));
            return {goals: px('.venue-goals'), teams: px('.venue-team'), clocks: px('.venue-clock'), names: px('.venue-name')};""")
        print(f"\nvenue overview font sizes at 1920x1080: {sizes}")
        assert min(sizes["goals"]) >= 200 and min(sizes["teams"]) >= 48 and min(sizes["clocks"]) >= 60, sizes
        assert venue.cut_content() == [] and venue.scroll_width() <= PROJECTOR[0]
        assert venue.overlapping("#fullscreen", ".venue-pitch, .join, .status") == []
        assert venue.overlapping(".join", ".venue-pitch, .status") == []

        # A goal: its pitch shows the scorer for a few seconds.
        score(server, 2, "A", 4)
        venue.wait(lambda: scores()[1] == ["1", "1"], timeout=3, what="pitch 2's goal on the overview")
        venue.wait(lambda: "Goal! Eve" in venue.text(".venue-pitch[data-pitch='2'] .venue-goal"), timeout=3,
                   what="the scorer on the overview")

        board = browsers(server, *PROJECTOR).open("/scoreboard.html?pitch=2")
        board.wait_text("#connection", "Live")
        board.wait_text("#team-a-name", "Blues")
        assert board.text("#pitch-name") == "South" and board.text("#score-a") == "1"
        assert board.find("#join-qr").get_attribute("src").endswith("/qr.svg?pitch=2")
        status, headers, qr = server.get("/qr.svg?pitch=2")
        assert status == 200 and headers["content-type"] == "image/svg+xml" and qr != server.get("/qr.svg")[2]
        assert board.cut_content() == [] and board.overlapping("#fullscreen", ".team, .goals, .clock, .status, .join") == []


def test_the_console_works_on_the_pitch_it_is_switched_to(browsers):
    with GatherServer() as server:
        set_up(server, match(1, [0, 1], [2, 3]))
        console = browsers(server, *PHONE).login(ORGANISER, PASSWORD)
        # Add a pitch in the manage area: the console stays on Pitch 1 (issue 23) and says how to switch.
        console.click("#pitch-manage summary")
        console.fill("#pitch-add [name=name]", "South")
        console.click("#pitch-add button")
        console.wait(lambda: "South added" in console.text("#notice"), what="the new pitch announced")
        assert Select(console.find("#pitch-select")).first_selected_option.text.startswith("Pitch 1")
        Select(console.find("#pitch-select")).select_by_visible_text("South — free")
        console.wait(lambda: Select(console.find("#pitch-select")).first_selected_option.text.startswith("South"),
                     what="the new pitch chosen")
        options = [option.text for option in Select(console.find("#pitch-select")).options]
        assert options == ["Pitch 1 — 0–0, live", "South — free"], options
        # Pitch 1's players are not offered; four others make a gather on South.
        console.click("#select-toggle")
        boxes = {box.get_attribute("aria-label"): box for box in
                 console.driver.find_elements(By.CSS_SELECTOR, "#player-list input[type=checkbox]")}
        # (folded under "Playing on Pitch 1": its text is there, out of the way)
        assert not boxes["Select Ann"].is_enabled() and "on Pitch 1" in console.content("#player-list li[data-id='1']").replace("\xa0", " ")
        for name in ("Eve", "Fay", "Gus", "Hal"):
            boxes[f"Select {name}"].click()
        assert console.text("#continue") == "Continue on South"
        console.click("#continue")
        console.wait(lambda: console.find("#lineup").is_displayed(), what="South's line-up")
        # Balance: everyone placed, the difference shown; a player can still be moved by hand.
        console.click("#balance-teams")
        console.wait(lambda: console.text("#balance-result").startswith("Balanced: rating difference 0"),
                     what="the balance result")
        assert console.driver.find_elements(By.CSS_SELECTOR, "#col-bench li") == []
        moved = console.find("#col-A li").get_attribute("data-id")
        console.click(f"#col-A li[data-id='{moved}'] button[aria-label$='to B']")
        console.wait(lambda: "moved by hand since: 2400" in console.text("#balance-result"), what="the hand-made difference")
        console.click(f"#col-B li[data-id='{moved}'] button[aria-label$='to A']")
        console.click("#start-gather")
        console.wait(lambda: console.find("#match").is_displayed(), what="South's match")

        # Everything the console sends goes to South; Pitch 1 is untouched.
        phone = browsers(server, *PHONE).open("/?pitch=2")
        phone.wait_text("#connection", "Live")
        console.driver.execute_script("window.scrollTo(0, 0)")  # the match controls, clear of the sticky header
        console.click("[data-score=B][data-delta='1']")
        phone.wait_text("#score-b", "1")
        spectator = browsers(server, *PHONE).open("/?pitch=1")
        spectator.wait_text("#connection", "Live")
        assert spectator.text("#score-a") == "0" and spectator.text("#score-b") == "0"

        # Remembered on this phone; Pitch 1 is one choice away.
        console.driver.refresh()
        console.wait(lambda: console.find("#signed-in").is_displayed(), what="the console again")
        console.wait(lambda: Select(console.find("#pitch-select")).first_selected_option.text.startswith("South"),
                     what="South remembered")
        Select(console.find("#pitch-select")).select_by_value("1")
        console.driver.execute_script("window.scrollTo(0, 0)")  # the tabs, clear of the sticky header
        console.click("[data-tab=gather]")
        console.wait_text("#match-b-score", "0")
        # Ratings and records: after South ends, its players show one game each.
        Select(console.find("#pitch-select")).select_by_value("2")
        console.click("#end-gather")
        console.wait(lambda: console.driver.switch_to.alert, what="the confirmation").accept()
        # The page got shorter; a person scrolls up to the tabs (WebDriver would tap the sticky
        # header above a tab it sees half-hidden under it).
        console.driver.execute_script("window.scrollTo(0, 0);")
        console.click("[data-tab=players]")
        console.wait(lambda: "1 game · " in console.text("#player-list li[data-id='5']").replace("\xa0", " "), what="Eve's record")
        assert "Rating " in console.text("#player-list li[data-id='5']")


# MARK: - The spectator door (plain HTTP)

def test_a_phone_follows_the_score_over_the_spectator_door_and_organisers_are_sent_to_tls(browsers):
    with GatherServer(spectator_door=True) as server:
        set_up(server, match(1, [0, 1], [2, 3], names=("Greens", "Reds"), goals=[("A", 0), ("A", 1)]))
        door = f"http://127.0.0.1:{server.spectator_port}"
        phone = browsers(server, *PHONE)
        # "Scan": a fresh phone browser loads the door's address; time until the score is on screen.
        phone.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FIRST_SCORE})
        asked = time.monotonic()
        phone.driver.get(door + "/")
        phone.wait_text("#score-a", "2", timeout=10)
        waited = (time.monotonic() - asked) * 1000
        in_page = phone.driver.execute_script("return window.__firstScore;")
        print(f"\nscan to score: {in_page:.0f} ms from navigation start to the score painted "
              f"({waited:.0f} ms as WebDriver saw it)")
        assert in_page < 2000
        assert phone.driver.current_url.startswith("http://")
        phone.wait_text("#connection", "Live")
        assert phone.driver.execute_script("return window.__protocol;") == "gather.v2"

        watch_text(phone, "#score-b")
        applied = score(server, 1, "B", 2)
        phone.wait_text("#score-b", "1", timeout=5)
        delay = first_seen(phone, "1") - applied
        print(f"goal applied to shown on the phone over the door: {delay} ms")
        assert delay < 1000, delay
        phone.wait(lambda: "Reds — Cid" in phone.text("#goals"), what="the scorer over the door")

        # A WebSocket from the page that tries to log in is told to use TLS.
        reply = phone.driver.execute_async_script(DOOR_LOGIN, ORGANISER, PASSWORD)
        assert reply["type"] == "error" and reply["code"] == "tls_required", reply
        assert f"https://" in reply["message"], reply

        # The organiser's address sends the browser to TLS, where the console opens.
        phone.driver.get(door + "/organiser.html")
        phone.wait(lambda: phone.driver.current_url == f"https://127.0.0.1:{server.port}/organiser.html",
                   what="the TLS organiser page")
        phone.wait_text("#connection", "Live")
        assert phone.find("#login-form").is_displayed()


FIRST_SCORE = """
// The first time a real score (not the page's placeholder 0) is painted, in ms from navigation start.
window.__firstScore = null;
const NativeSocket = window.WebSocket;
window.WebSocket = class extends NativeSocket {
  constructor(...args) { super(...args); this.addEventListener('open', () => { window.__protocol = this.protocol; }); }
};
document.addEventListener('DOMContentLoaded', () => {
  const score = document.querySelector('#score-a');
  if (!score) return;
  new MutationObserver(() => {
    if (window.__firstScore === null && score.textContent !== '0') {
      requestAnimationFrame(() => { if (window.__firstScore === null) window.__firstScore = performance.now(); });
    }
  }).observe(score, {childList: true, characterData: true, subtree: true});
});
"""

DOOR_LOGIN = """
const [username, password, done] = arguments;
const socket = new WebSocket(`ws://${location.host}/live`, ['gather.v2']);
const timer = setTimeout(() => done({type: 'timeout'}), 5000);
socket.onmessage = (event) => {
  const message = JSON.parse(event.data);
  if (message.type === 'welcome') socket.send(JSON.stringify({type: 'login', id: 'door-1', username, password}));
  if (message.type === 'session' || (message.type === 'error' && message.id === 'door-1')) {
    clearTimeout(timer); socket.close(); done(message);
  }
};
socket.onerror = () => { clearTimeout(timer); done({type: 'socket error'}); };
"""
