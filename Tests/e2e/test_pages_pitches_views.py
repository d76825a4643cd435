"""Issues 13 and 14, the new views as people see them: from a 320 px phone to a 1920×1080
projector, empty and on a busy evening at a venue with two pitches (30 players, 20 finished
gathers with scorers, both pitches live), with axe-core (no serious or critical finding).
Screenshots go to Tests/e2e/artifacts/ for people to look at.
"""
import json

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from gatherlib import GatherServer, PASSWORD
from pages_support import ARTIFACTS, ORGANISER, PHONES, PITCH_NAMES, PROJECTOR, Browser, busy_venue, register_organiser

SIZES = ((320, 568), *PHONES, PROJECTOR)
SCREENSHOT_SIZES = (*PHONES, PROJECTOR)
SERIOUS = ("serious", "critical")


@pytest.fixture(scope="module")
def empty_server():
    with GatherServer() as running:
        register_organiser(running)
        yield running


@pytest.fixture(scope="module")
def busy_server():
    with GatherServer() as running:
        busy_venue(running)
        yield running




def each_view(browser: Browser, busy: bool):
    """Opens every new view and yields its name once it shows the server's state."""
    pages = [("/", "spectator-venue" if busy else "spectator", "#standings-rows tr"),
             ("/scoreboard.html?pitch=all", "scoreboard-venue", ".venue-pitch" if busy else "#status")]
    if busy:
        pages += [("/?pitch=2", "spectator-pitch2", "#goals li.goal"),
                  ("/scoreboard.html?pitch=2", "scoreboard-pitch2", "#pitch-name:not([hidden])")]
    for path, name, ready in pages:
        browser.open(path)
        browser.wait_text("#connection", "Live")
        browser.wait(lambda: browser.driver.find_elements(By.CSS_SELECTOR, ready), what=f"{name} showing the state")
        if busy and name == "spectator-venue":
            browser.wait(lambda: len(browser.driver.find_elements(By.CSS_SELECTOR, ".pitch-card")) == 2, what="two cards")
        yield name
    browser.login(ORGANISER, PASSWORD)
    Select(browser.find("#pitch-select")).select_by_value("1")
    browser.click("[data-tab=players]")
    yield "organiser-players"
    browser.click("[data-tab=gather]")
    browser.click("#pitch-manage summary")
    if busy:
        browser.click("#timeline li.goal button")   # the scorer picker, for the newest goal
        browser.wait(lambda: browser.find("#scorer").is_displayed(), what="the scorer picker")
        yield "organiser-gather-scorer"
        Select(browser.find("#pitch-select")).select_by_value("2")
        browser.wait_text("#match-a-name", "Reds")
        yield "organiser-gather-pitch2"
    else:
        yield "organiser-gather"
    browser.click("[data-tab=history]")
    yield "organiser-history"


# MARK: - Layout

@pytest.mark.parametrize("state", ["empty", "mid-match"])
@pytest.mark.parametrize("width,height", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_new_views_read_whole_from_320_px_to_a_projector(state, width, height, empty_server, busy_server, browsers):
    busy = state == "mid-match"
    browser = browsers(busy_server if busy else empty_server, width, height)
    for view in each_view(browser, busy):
        assert browser.scroll_width() <= width, (view, browser.scroll_width())
        assert browser.cut_content() == [], view
        assert browser.console_errors() == [], view
        if (width, height) in SCREENSHOT_SIZES:
            browser.screenshot(f"r2-{view}-{state}-{width}x{height}.png", full_page=not view.startswith("scoreboard"))


def test_the_busy_venue_is_all_there(busy_server, browsers):
    phone = browsers(busy_server, 390, 844).open("/?pitch=1")
    phone.wait_text("#connection", "Live")
    phone.wait(lambda: len(phone.driver.find_elements(By.CSS_SELECTOR, "#standings-rows tr")) == 30, what="30 rows")
    assert phone.text("#match-title") == PITCH_NAMES[0]
    assert (phone.text("#score-a"), phone.text("#score-b")) == ("2", "1")
    assert len(phone.driver.find_elements(By.CSS_SELECTOR, "#history li")) == 5
    assert "Goals: " in phone.text("#history")
    assert len(phone.driver.find_elements(By.CSS_SELECTOR, "#top-scorers li")) == 5


def test_the_table_sorts_by_any_column_and_says_how(busy_server, browsers):
    phone = browsers(busy_server, 390, 844).open("/")
    phone.wait_text("#connection", "Live")
    phone.wait(lambda: len(phone.driver.find_elements(By.CSS_SELECTOR, "#standings-rows tr")) == 30, what="30 rows")

    def column(index):
        return [row.find_elements(By.CSS_SELECTOR, "th, td")[index].text
                for row in phone.driver.find_elements(By.CSS_SELECTOR, "#standings-rows tr")]

    def sorted_by():
        return {th.get_attribute("data-key"): th.get_attribute("aria-sort")
                for th in phone.driver.find_elements(By.CSS_SELECTOR, "#standings th[aria-sort]")}
    assert sorted_by() == {"goals": "descending"}
    goals = [int(value) for value in column(3)]
    assert goals == sorted(goals, reverse=True) and goals[0] > 0
    phone.click("#standings th[data-key=rating] button")
    assert sorted_by() == {"rating": "descending"}
    ratings = [int(value) for value in column(5)]
    assert ratings == sorted(ratings, reverse=True)
    phone.click("#standings th[data-key=rating] button")
    assert sorted_by() == {"rating": "ascending"}
    assert [int(value) for value in column(5)] == sorted(ratings)
    phone.click("#standings th[data-key=assists] button")
    assert sorted_by() == {"assists": "descending"}
    assists = [int(value) for value in column(4)]
    assert assists == sorted(assists, reverse=True) and assists[0] > 0
    phone.click("#standings th[data-key=name] button")
    assert sorted_by() == {"name": "ascending"}
    names = column(0)
    assert names == sorted(names, key=str.casefold)
    # The buttons are in the column headers, named by their text; the keyboard reaches them.
    header = phone.find("#standings th[data-key=games]")
    assert header.get_attribute("scope") == "col"
    phone.driver.execute_script("arguments[0].focus();", header.find_element(By.TAG_NAME, "button"))
    phone.driver.switch_to.active_element.send_keys("\n")
    assert sorted_by() == {"games": "descending"}
    assert phone.find("#standings th[data-key=record] button").accessible_name == "W-D-L (wins, draws, losses)"
    assert phone.find("#standings th[data-key=assists] button").accessible_name == "Ast (assists)"


# MARK: - Screen readers

def test_axe_finds_nothing_serious_or_critical_on_the_new_views(empty_server, busy_server, browsers):
    report = {}
    for state, server in (("empty", empty_server), ("mid-match", busy_server)):
        for width, height in (PHONES[1], PROJECTOR):
            browser = browsers(server, width, height)
            for view in each_view(browser, state == "mid-match"):
                report[f"{view} {state} {width}"] = browser.axe()
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "axe-violations-release2.json").write_text(json.dumps(report, indent=1))
    summary = {page: sorted(f"{v['impact']}: {v['id']}" for v in violations) for page, violations in report.items()}
    print("\naxe violations by view:\n" + "\n".join(f"  {page}: {found or 'none'}" for page, found in summary.items()))
    serious = {page: [f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']]}" for v in violations
                      if v["impact"] in SERIOUS] for page, violations in report.items()}
    assert {page: found for page, found in serious.items() if found} == {}
