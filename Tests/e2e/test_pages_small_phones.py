"""Small phones (Chrome mobileEmulation at 320, 360 and 390 px): no page slides sideways and no
text is cut in any page and state the page tests drive, words break only at spaces or hyphens
("Undo" is never "Und/o", a long name never splits mid-word), and at 360×640 the live match's
score, clock and End are on the first screen of the organiser's console.
Screenshots: Tests/e2e/artifacts/small-*.png."""
import pytest
from selenium.webdriver.common.by import By

from gatherlib import PASSWORD
from pages_support import ORGANISER, perform, organiser, run
from screens_support import broken_words
from test_tap_targets import organiser_views, tap, venue  # noqa: F401 (the same venue: two live pitches, a line-up, a free pitch)

SMALL = ((320, 568), (360, 640), (390, 844))
TEXT = "header, main, .notice, .bar"


def spectator_views(browser):
    for path, view in (("/", "spectator-venue"), ("/?pitch=1", "spectator-pitch"), ("/?pitch=2", "spectator-pitch2"),
                       ("/scoreboard.html?pitch=1", "scoreboard-pitch"), ("/scoreboard.html?pitch=all", "scoreboard-venue"),
                       ("/trust.html", "trust")):
        browser.open(path)
        if view != "trust":
            browser.wait_text("#connection", "Live")
        yield view


def check(browser, view: str, width: int, problems: dict):
    found = []
    if browser.scroll_width() > width:
        found.append(f"the page is {browser.scroll_width()} px wide")
    found += browser.cut_content()
    found += [f"broken word: {word}" for word in broken_words(browser, TEXT)]
    if found:
        problems[view] = found


@pytest.mark.parametrize("width,height", SMALL, ids=[f"{w}x{h}" for w, h in SMALL])
def test_no_page_slides_sideways_or_breaks_a_word(width, height, venue, browsers):  # noqa: F811
    browser = browsers(venue, width, height)
    problems = {}
    for view in spectator_views(browser):
        check(browser, view, width, problems)
    for view in organiser_views(browser, venue):
        check(browser, view, width, problems)
        if view == "organiser-history":
            # The players' table: every column on screen, Rating readable whole.
            browser.wait(lambda: len(browser.driver.find_elements(By.CSS_SELECTOR, "#tab-history #standings-rows tr")) > 0,
                         what="the table")
        browser.screenshot(f"small-{view}-{width}.png", full_page=True)
    assert problems == {}


def test_undo_and_who_scored_break_only_between_words(venue, browsers):  # noqa: F811
    phone = browsers(venue, 320, 568).login(ORGANISER, PASSWORD)
    tap(phone, "[data-tab=gather]")
    phone.wait(lambda: phone.find("#match").is_displayed(), what="the live match")
    tap(phone, "#timeline li.goal button.move")
    phone.wait(lambda: phone.find("#scorer").is_displayed(), what="the scorer picker")
    assert broken_words(phone, "#scorer") == []
    assert phone.scroll_width() <= 320 and phone.cut_content() == []
    phone.screenshot("small-who-scored-320.png")
    tap(phone, "#scorer-done")
    before = phone.text("#match-b-score")
    tap(phone, "[data-score=B][data-delta='-1']")
    phone.wait(lambda: phone.find("#undo-bar").is_displayed(), what="the undo bar")
    assert broken_words(phone, "#undo-bar") == [] and phone.find("#undo-goal").text == "Undo"
    phone.screenshot("small-undo-320.png")
    tap(phone, "#undo-goal")
    phone.wait(lambda: phone.text("#match-b-score") == before, what="the goal back")


@pytest.mark.parametrize("width,height", ((360, 640), (390, 844)), ids=["360x640", "390x844"])
def test_the_live_match_controls_are_on_the_first_screen(width, height, venue, browsers):  # noqa: F811
    phone = browsers(venue, width, height).login(ORGANISER, PASSWORD)
    phone.click("[data-tab=gather]")
    phone.wait(lambda: phone.find("#match").is_displayed() and phone.text("#match-clock") != "", what="the live match")
    phone.driver.execute_script("window.scrollTo(0, 0);")
    boxes = phone.driver.execute_script("""
        return Object.fromEntries(['#match-a-score', '#match-b-score', '#match-clock', '#end-gather',
          '[data-score=A][data-delta="1"]', '[data-score=B][data-delta="1"]', '#timer-pause']
          .map((css) => { const b = document.querySelector(css).getBoundingClientRect(); return [css, [b.top, b.bottom]]; }));""")
    phone.screenshot(f"small-organiser-live-{width}x{height}.png")
    print(f"\nat {width}x{height}: {boxes}")
    below = {css: box for css, box in boxes.items() if box[0] < 0 or box[1] > height}
    assert below == {}, f"below the fold at {width}x{height}: {below}"
