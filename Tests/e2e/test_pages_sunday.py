"""Issue 23, the pages: the console asks about a possible duplicate with two large buttons, offers
"Goal cancelled — Undo" for 10 s, keeps score, clock and End within the first screen with 22
players, offers "Full time — end the match?" at 00:00, names the pitch; every page shows "Full
time" until the next gather, and Share makes a PNG result card with a text summary.

Real Chromium (phones through mobileEmulation, a 1920×1080 projector), the real server; the
other organiser is a real wss client. Screenshots go to Tests/e2e/artifacts/ (and to
$GATHER_SHOTS when set) for people to look at.
"""
import base64
import os
import re
import shutil

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from gatherlib import GatherServer, PASSWORD, pitch_gather
from pages_support import ARTIFACTS, LONG_NAMES, ORGANISER, Browser, busy_evening, organiser, perform, run

SERIOUS = ("serious", "critical")


def shot(browser: Browser, name: str):
    browser.screenshot(name)
    if os.environ.get("GATHER_SHOTS"):
        os.makedirs(os.environ["GATHER_SHOTS"], exist_ok=True)
        shutil.copy(ARTIFACTS / name, os.path.join(os.environ["GATHER_SHOTS"], name))


def no_axe_violations(browser: Browser, what: str):
    violations = browser.axe()
    assert violations == [], (what, [(v["id"], [n["target"] for n in v["nodes"]]) for v in violations])


def box(browser: Browser, css: str) -> dict:
    return browser.driver.execute_script(
        "const b = document.querySelector(arguments[0]).getBoundingClientRect();"
        "return {top: b.top, bottom: b.bottom, width: b.width, height: b.height};", css)


def assert_tap_target(browser: Browser, css: str):
    size = box(browser, css)
    assert size["width"] >= 44 and size["height"] >= 44, (css, size)


def tap(browser: Browser, css: str):
    """Scrolls the element to the middle of the screen (clear of the sticky header), then taps it."""
    element = browser.find(css)
    browser.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def score(browser: Browser) -> tuple[str, str]:
    return browser.text("#match-a-score"), browser.text("#match-b-score")


async def small_match(server, names=("Whites", "Team B"), minutes=10, seconds=0):
    """captain's match on pitch 1: Ann, Cid for Whites; Bob, Dan for Team B; live, timer running."""
    live = await organiser(server)
    try:
        for name in ("Ann Ó Súilleabháin", "Bob", "Cid", "Dan"):
            await perform(live, {"kind": "addPlayer", "name": name})
        await perform(live, {"kind": "createGather", "playerIds": [1, 2, 3, 4]})
        for player, team in ((1, "A"), (3, "A"), (2, "B"), (4, "B")):
            await perform(live, {"kind": "assign", "playerId": player, "to": team})
        for team, name in zip("AB", names):
            await perform(live, {"kind": "renameTeam", "team": team, "name": name})
        await perform(live, {"kind": "startGather"})
        await perform(live, {"kind": "setTimer", "minutes": minutes, "seconds": seconds})
        await perform(live, {"kind": "startTimer"})
    finally:
        await live.close()


def console(server, browsers, width=390, height=844) -> Browser:
    page = browsers(server, width, height).login(ORGANISER, PASSWORD)
    page.click("[data-tab=gather]")
    page.wait(lambda: page.find("#match").is_displayed(), what="the match card")
    return page


# MARK: - Item 3 and 5: the match within the first screen, the pitch named

def test_score_clock_and_end_are_on_the_first_screen_with_22_players_and_the_pitch_is_named(browsers):
    with GatherServer() as server:
        busy_evening(server)
        page = console(server, browsers)
        page.driver.execute_script("window.scrollTo(0, 0)")
        for css in ("#match-a-score", "#match-b-score", "[data-score=A][data-delta='1']", "[data-score=B][data-delta='-1']",
                    "#match-clock", "#timer-pause", "#end-gather"):
            assert box(page, css)["bottom"] <= 844, (css, box(page, css))
        assert len(page.driver.find_elements(By.CSS_SELECTOR, "#col-A li, #col-B li")) == 22
        assert page.text("#header-pitch") == "Pitch 1"
        assert page.text("#match-pitch") == "Pitch 1 · Live"
        assert page.text("#lineup-title") == "Line-up · Pitch 1"
        # Cancel is secondary: below the line-up, an outlined button, and it asks first.
        assert box(page, "#cancel-gather")["top"] > box(page, "#lineup")["bottom"]
        assert page.driver.execute_script(
            "return getComputedStyle(document.querySelector('#cancel-gather')).backgroundColor") == "rgba(0, 0, 0, 0)"
        for css in ("#end-gather", "#cancel-gather", "#kit-a", "#kit-b"):
            assert_tap_target(page, css)
        shot(page, "organiser-midmatch-22-players-390x844.png")
        no_axe_violations(page, "organiser mid-match")
        # The header stays on screen (sticky) when the line-up is scrolled to.
        page.driver.execute_script("document.querySelector('#lineup').scrollIntoView()")
        assert box(page, "#header-pitch")["top"] >= 0 and box(page, "#header-pitch")["bottom"] <= 60
        tap(page, "#cancel-gather")
        page.wait(lambda: page.driver.switch_to.alert, what="the confirmation").dismiss()
        assert page.find("#match").is_displayed(), "dismissed: nothing cancelled"


def test_adding_a_pitch_does_not_switch_the_console(browsers):
    with GatherServer() as server:
        run(small_match(server))
        page = console(server, browsers, 360, 640)
        page.find("#pitch-manage summary").click()
        page.fill("#pitch-add [name=name]", "South")
        page.click("#pitch-add button")
        page.wait(lambda: "South added" in page.text("#notice"), what="the notice")
        assert Select(page.find("#pitch-select")).first_selected_option.get_attribute("value") == "1"
        assert page.text("#header-pitch") == "Pitch 1"
        assert page.find("#match").is_displayed()
        no_axe_violations(page, "after adding a pitch")


# MARK: - Item 1: the duplicate question

def test_another_organisers_goal_seconds_ago_is_asked_about_with_two_large_buttons(browsers):
    async def maria_scores(server):
        live = await organiser(server, "maria")
        try:
            return await perform(live, {"kind": "score", "team": "A", "delta": 1})
        finally:
            await live.close()

    with GatherServer() as server:
        run(small_match(server))
        page = console(server, browsers)
        goal = run(maria_scores(server))
        page.wait(lambda: score(page) == ("1", "0"), what="maria's goal on the console")
        tap(page, "[data-score=A][data-delta='1']")
        page.wait(lambda: page.find("#duplicate").is_displayed(), what="the question")
        assert re.fullmatch(r"maria added a goal for Whites (just now|\d+ s ago)\. Add another\?", page.text("#duplicate-text"))
        assert not page.find("#notice").is_displayed(), "a question, not an error"
        for css in ("#duplicate-add", "#duplicate-skip"):
            assert_tap_target(page, css)
            assert box(page, css)["bottom"] <= 844
        shot(page, "organiser-duplicate-question-390x844.png")
        no_axe_violations(page, "the duplicate question")
        # "Same goal": nothing is sent, the score stays.
        tap(page, "#duplicate-skip")
        assert not page.find("#duplicate").is_displayed()
        assert score(page) == ("1", "0")
        # Asked again, "Add another" counts a second goal.
        tap(page, "[data-score=A][data-delta='1']")
        page.wait(lambda: page.find("#duplicate").is_displayed(), what="the question again")
        tap(page, "#duplicate-add")
        page.wait(lambda: score(page) == ("2", "0"), what="the confirmed goal")
        assert not page.find("#duplicate").is_displayed()
        assert goal["version"] > 0


# MARK: - Item 4: undo

def test_a_cancelled_goal_can_be_undone_for_ten_seconds_and_reads_struck_through(browsers):
    with GatherServer() as server:
        run(small_match(server))
        page = console(server, browsers)
        tap(page, "[data-score=B][data-delta='1']")
        page.wait(lambda: score(page) == ("0", "1"), what="the goal")
        tap(page, "#scorer-done")
        tap(page, "[data-score=B][data-delta='-1']")
        page.wait(lambda: page.find("#undo-bar").is_displayed(), what="the undo bar")
        assert score(page) == ("0", "0")
        assert page.text("#undo-text") == "Goal cancelled (Team B)" and page.text("#undo-goal") == "Undo"
        assert_tap_target(page, "#undo-goal")
        assert box(page, "#undo-goal")["bottom"] <= 844
        # The cancelled goal is struck through; the line saying it was cancelled is not.
        decoration = "return getComputedStyle(arguments[0]).textDecorationLine"
        cancelled_goal = page.find("#timeline li.goal.cancelled s")
        cancellation = page.find("#timeline li.goalCancelled")
        assert cancellation.text.startswith("1' Goal cancelled Team B")
        assert page.driver.execute_script(decoration, cancellation) == "none"
        assert page.driver.execute_script(decoration, cancelled_goal) == "line-through"
        assert_tap_target(page, "#timeline li.goal.cancelled button")
        shot(page, "organiser-undo-bar-390x844.png")
        no_axe_violations(page, "the undo bar")
        page.driver.execute_script("document.querySelector('#timeline').scrollIntoView({block: 'center'})")
        shot(page, "organiser-timeline-cancelled-goal-390x844.png")
        tap(page, "#undo-goal")
        page.wait(lambda: score(page) == ("0", "1"), what="the goal back")
        assert not page.find("#undo-bar").is_displayed()
        page.wait(lambda: "Goal brought back Team B" in page.text("#timeline"), what="the restoration line")
        assert "(undone)" in page.text("#timeline li.goalCancelled")
        # Offered for 10 s, then gone by itself.
        tap(page, "[data-score=B][data-delta='-1']")
        page.wait(lambda: page.find("#undo-bar").is_displayed(), what="the undo bar again")
        page.wait(lambda: not page.find("#undo-bar").is_displayed(), timeout=13, what="the undo bar to go after 10 s")
        assert score(page) == ("0", "0")


# MARK: - Items 2, 3, 9 and the kits: full time on every page, Share

SHARE_STUB = """
window.__shared = null;
navigator.canShare = (data) => !!(data && data.files && data.files.length);
navigator.share = async (data) => {
  const file = data.files[0];
  const bytes = new Uint8Array(await file.arrayBuffer());
  const bitmap = await createImageBitmap(file);
  const url = await new Promise((done) => { const reader = new FileReader(); reader.onload = () => done(reader.result); reader.readAsDataURL(file); });
  window.__shared = {url, type: file.type, name: file.name, size: bytes.length, head: Array.from(bytes.slice(0, 8)),
                     width: bitmap.width, height: bitmap.height, text: data.text, title: data.title};
};
"""

FALLBACK_STUB = """
window.__download = null; window.__copied = null;
navigator.share = undefined;
navigator.canShare = undefined;
Object.defineProperty(navigator, 'clipboard', {configurable: true, value: {writeText: async (text) => { window.__copied = text; }}});
const makeURL = URL.createObjectURL.bind(URL);
let lastBlob = null;
URL.createObjectURL = (blob) => { lastBlob = blob; return makeURL(blob); };
// The download itself is the browser's; the test reads what the link would save.
HTMLAnchorElement.prototype.click = function () {
  const name = this.download;
  lastBlob.arrayBuffer().then((buffer) => {
    window.__download = {name, type: lastBlob.type, size: buffer.byteLength, head: Array.from(new Uint8Array(buffer).slice(0, 8))};
  });
};
"""

PNG_SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10]


def test_full_time_is_offered_at_zero_stays_on_every_page_and_is_shared_as_a_png(browsers):
    async def score_goals(server):
        live = await organiser(server)
        try:
            for action in ({"kind": "score", "team": "A", "delta": 1, "playerId": 1},
                           {"kind": "score", "team": "A", "delta": 1, "playerId": 3, "assistId": 1},
                           {"kind": "score", "team": "B", "delta": 1}):
                await perform(live, action)
        finally:
            await live.close()

    with GatherServer() as server:
        run(small_match(server, seconds=4, minutes=0))
        run(score_goals(server))
        page = console(server, browsers)
        # A kit for Whites: yellow, shown on the projector and the phones.
        Select(page.find("#kit-a")).select_by_value("yellow")
        page.driver.execute_script("window.scrollTo(0, 0)")
        venue = browsers(server, 1920, 1080).open("/scoreboard.html?pitch=all")
        page.wait(lambda: page.find("#fulltime-prompt").is_displayed(), timeout=10, what="Full time — end the match?")
        # The venue overview says it in words at 00:00, before anyone ends the match.
        venue.wait(lambda: venue.text("#venue .venue-clock") == "Full time", what="the venue overview at 00:00")
        assert page.text("#fulltime-text") == "Full time — end the match?"
        assert page.text("#match-pitch") == "Pitch 1 · Full time"
        assert_tap_target(page, "#fulltime-end")
        assert box(page, "#fulltime-end")["bottom"] <= 844
        shot(page, "organiser-fulltime-prompt-390x844.png")
        no_axe_violations(page, "the full-time offer")
        tap(page, "#fulltime-end")
        page.wait(lambda: page.find("#full-time").is_displayed(), what="the full-time card")
        assert page.text("#full-time-title") == "Full time · Pitch 1"
        assert page.text("#full-time-score") == "Whites 2 – 1 Team B"
        details = page.text("#full-time-details")
        assert "Whites won" in details and "1' Ann Ó Súilleabháin" in details and "1' Cid (assist Ann Ó Súilleabháin)" in details
        assert "Saved to history" in page.text("#full-time")
        assert_tap_target(page, "#share-result")
        shot(page, "organiser-full-time-390x844.png")
        no_axe_violations(page, "the organiser's full time")

        # Share through the Web Share API: a 1200×675 PNG and the summary.
        page.driver.execute_script(SHARE_STUB)
        tap(page, "#share-result")
        shared = page.wait(lambda: page.driver.execute_script("return window.__shared"), what="the share")
        assert shared["type"] == "image/png" and shared["head"] == PNG_SIGNATURE and shared["size"] > 10_000
        assert (shared["width"], shared["height"]) == (1200, 675)
        card = base64.b64decode(shared["url"].split(",", 1)[1])
        assert card[:8] == bytes(PNG_SIGNATURE)
        (ARTIFACTS / "result-card.png").write_bytes(card)
        if os.environ.get("GATHER_SHOTS"):
            shutil.copy(ARTIFACTS / "result-card.png", os.path.join(os.environ["GATHER_SHOTS"], "result-card.png"))
        assert shared["name"].startswith("full-time-") and shared["name"].endswith(".png")
        assert shared["text"].startswith("Full time · Pitch 1: Whites 2 – 1 Team B. Whites won.")
        assert "Goals: 1' Ann Ó Súilleabháin, 1' Cid (assist Ann Ó Súilleabháin), 1' Team B." in shared["text"]
        assert page.text("#share-status") == "Shared."
        # Without Web Share: the PNG is downloaded and the text copied.
        page.driver.execute_script(FALLBACK_STUB)
        tap(page, "#share-result")
        download = page.wait(lambda: page.driver.execute_script("return window.__download"), what="the download")
        assert download["head"] == PNG_SIGNATURE and download["type"] == "image/png" and download["name"].endswith(".png")
        assert page.driver.execute_script("return window.__copied") == shared["text"]
        page.wait(lambda: "copied" in page.text("#share-status"), what="the fallback's words")

        # Every other page: Full time, the score, the scorers, the winner.
        for width, height in ((360, 640), (1920, 1080)):
            other = browsers(server, width, height).login(ORGANISER, PASSWORD)
            other.click("[data-tab=gather]")
            other.wait(lambda: other.find("#full-time").is_displayed(), what=f"the full-time card at {width}")
            assert other.scroll_width() <= width and other.cut_content() == []
            shot(other, f"organiser-full-time-{width}x{height}.png")
            no_axe_violations(other, f"organiser full time {width}")
        for width, height in ((360, 640), (390, 844), (1920, 1080)):
            spectator = browsers(server, width, height).open("/")
            spectator.wait(lambda: spectator.text("#phase") == "Full time", what="the spectator's full time")
            assert (spectator.text("#score-a"), spectator.text("#score-b")) == ("2", "1")
            assert "Whites won" in spectator.text("#goals") and "Cid (assist" in spectator.text("#goals")
            assert not spectator.find("#clock").is_displayed()
            # The kits: Whites in yellow (picked), Team B in the default red.
            stripes = spectator.driver.execute_script(
                "return ['#team-a-name', '#team-b-name'].map((css) => getComputedStyle(document.querySelector(css)).borderBottomColor)")
            assert stripes == ["rgb(242, 193, 78)", "rgb(192, 57, 43)"], stripes
            shot(spectator, f"spectator-full-time-{width}x{height}.png")
            no_axe_violations(spectator, f"spectator full time {width}")
            assert spectator.scroll_width() <= width
        board = browsers(server, 1920, 1080).open("/scoreboard.html")
        board.wait(lambda: board.text("#clock") == "Full time", what="the scoreboard's full time")
        assert board.text("#status") == "Whites won · Ann Ó Súilleabháin, Cid, Team B"
        assert board.overlapping("#score-a", ".team, .status") == [] and board.cut_content() == []
        assert board.text("#clock") == "Full time" and (board.text("#score-a"), board.text("#score-b")) == ("2", "1")
        # Whites wear yellow on the projector; Team B keeps the default red.
        colours = board.driver.execute_script(
            "return ['.team.a', '.team.b'].map((css) => getComputedStyle(document.querySelector(css)).color)")
        assert colours == ["rgb(255, 217, 102)", "rgb(255, 143, 127)"], colours
        shot(board, "scoreboard-full-time-1920x1080.png")
        no_axe_violations(board, "scoreboard full time")
        venue.wait(lambda: "Whites won" in venue.text("#venue"), what="the venue overview's full time")
        assert venue.text("#venue .venue-clock") == "Full time"
        assert "Whites won" in venue.text("#venue") and "No match right now" not in venue.text("#venue")
        shot(venue, "venue-full-time-1920x1080.png")
        no_axe_violations(venue, "venue overview full time")

        # The restart keeps it, and the next gather on the pitch clears it everywhere.
        assert server.stop() == 0
        server.start()
        spectator.wait(lambda: spectator.text("#connection") == "Live", timeout=20, what="the reconnect")
        spectator.wait(lambda: spectator.text("#phase") == "Full time", what="full time after the restart")

        async def next_gather(server):
            live = await organiser(server)
            try:
                await perform(live, {"kind": "createGather", "playerIds": [1, 2]})
            finally:
                await live.close()
        run(next_gather(server))
        spectator.wait(lambda: spectator.text("#phase") == "Line-up being picked", what="the next gather")
        venue.wait(lambda: "Full time" not in venue.text("#venue"), timeout=20, what="the venue overview moving on")
