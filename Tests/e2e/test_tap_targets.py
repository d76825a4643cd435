"""Issue 23 point 6: every control fits a thumb. On 360 and 390 px phones (Chrome
mobileEmulation), for every page and state the page tests drive, every visible button, link,
input, select and summary has a box of at least 44×44 CSS px, and a destructive control keeps
8 px from its neighbours. A player's whole row is its checkbox's label, the "Continue" bar stays
on screen, and "Log out" asks first.

What a thumb actually hits is measured: a checkbox inside a label is hit through the label, and
a card whose link is stretched over it (`a.stretched`) through the card.
"""
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from gatherlib import GatherServer, PASSWORD
from pages_support import ARTIFACTS, ORGANISER, PHONES, busy_venue, organiser, perform, run

MINIMUM = 44
DESTRUCTIVE_GAP = 8

# Controls allowed below 44×44, each with the reason. Keep this short.
EXCEPTIONS = {
    # The standings' column headings sort the table; at 360 px five columns share ~330 px, so a
    # heading is as wide as its column. They are 44 px tall, and the same sort is one tap away on
    # the neighbouring heading; the table stays readable without them.
    "button.sort": ("width",),
}

MEASURE = """
const minimum = arguments[0], gap = arguments[1], exceptions = arguments[2];
const controls = 'button, a[href], input:not([type=hidden]), select, summary, textarea';
const visible = (el) => {
  if (el.closest('[hidden], .visually-hidden')) return false;
  // The inside of a closed <details> keeps its boxes in Chromium (content-visibility: hidden).
  if (!el.checkVisibility({ contentVisibilityAuto: true, visibilityProperty: true, opacityProperty: false })) return false;
  if (!el.getClientRects().length) return false;
  const style = getComputedStyle(el);
  return style.visibility !== 'hidden' && style.display !== 'none';
};
const describe = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
  + (el.className && typeof el.className === 'string' && el.className.trim() ? '.' + el.className.trim().split(/\\s+/).join('.') : '')
  + ' "' + (el.getAttribute('aria-label') || el.textContent || el.value || '').trim().slice(0, 30) + '"';
/// The box a thumb hits for this control.
const target = (el) => {
  const label = el.tagName === 'INPUT' && el.closest('label');
  if (label) return label;
  if (el.matches('a.stretched')) return el.closest('.pitch-card') || el;
  return el;
};
const exempt = (el, dimension) => Object.entries(exceptions).some(([selector, dims]) => el.matches(selector) && dims.includes(dimension));
const small = [];
const boxes = [];
for (const el of document.querySelectorAll(controls)) {
  if (!visible(el)) continue;
  const hit = target(el);
  const box = hit.getBoundingClientRect();
  boxes.push([el, hit, box]);
  const narrow = box.width < minimum - 0.5 && !exempt(el, 'width');
  const short = box.height < minimum - 0.5 && !exempt(el, 'height');
  if (narrow || short) small.push(`${describe(el)} ${Math.round(box.width)}x${Math.round(box.height)}`);
}
const crowded = [];
for (const [el, hit, box] of boxes) {
  if (!el.matches('.danger')) continue;
  for (const [other, otherHit, otherBox] of boxes) {
    if (other === el || hit.contains(otherHit) || otherHit.contains(hit)) continue;
    const dx = Math.max(otherBox.left - box.right, box.left - otherBox.right);
    const dy = Math.max(otherBox.top - box.bottom, box.top - otherBox.bottom);
    const distance = Math.max(dx, dy);
    if (distance < gap - 0.5) crowded.push(`${describe(el)} is ${Math.round(distance)} px from ${describe(other)}`);
  }
}
return [small, crowded, boxes.length];
"""

SIZES = PHONES  # (360, 640) and (390, 844)


@pytest.fixture(scope="module")
def venue():
    """Two live pitches (30 players, 20 results), a third pitch with a line-up being picked, a
    fourth that is free, and two players on no pitch (so "Select players" is on there)."""
    with GatherServer() as running:
        busy_venue(running)

        async def line_up():
            live = await organiser(running)
            try:
                await perform(live, {"kind": "addPitch", "name": "Back pitch"})
                back = next(p["id"] for p in live.snapshot["pitches"] if p["name"] == "Back pitch")
                ids = [player["id"] for player in live.snapshot["players"]]
                await perform(live, {"kind": "createGather", "pitch": back, "playerIds": ids[28:30]})
                for name in ("Zoë Ferreira-Núñez", "Yann Le Gall"):
                    await perform(live, {"kind": "addPlayer", "name": name})
                await perform(live, {"kind": "addPitch", "name": "Spare pitch"})
                spare = next(p["id"] for p in live.snapshot["pitches"] if p["name"] == "Spare pitch")
                return back, spare
            finally:
                await live.close()
        running.back_pitch, running.spare_pitch = run(line_up())
        yield running


def measure(browser, view: str, report: dict, crowding: dict):
    small, crowded, count = browser.driver.execute_script(MEASURE, MINIMUM, DESTRUCTIVE_GAP,
                                                           {k: list(v) for k, v in EXCEPTIONS.items()})
    assert count > 0, f"{view}: no control found (the state was not reached)"
    report[view] = small
    crowding[view] = crowded


def tap(browser, css: str):
    """A thumb's tap: the control brought to the middle of the screen first (sticky bars cover
    the screen's edges, as they do for a person who scrolls)."""
    element = browser.find(css)
    browser.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
    element.click()


def organiser_views(browser, server):
    """The organiser's console in each state the page tests drive; yields the view's name."""
    browser.open("/organiser.html")
    browser.wait_text("#connection", "Live")
    yield "organiser-signed-out"
    browser.login(ORGANISER, PASSWORD)
    yield "organiser-players"
    Select(browser.find("#pitch-select")).select_by_value(str(server.spare_pitch))
    tap(browser, "#select-toggle")
    browser.wait(lambda: browser.find("#selection-bar").is_displayed(), what="the selection bar")
    yield "organiser-players-selecting"
    tap(browser, "#select-toggle")
    Select(browser.find("#pitch-select")).select_by_value("1")
    tap(browser, "#pitch-manage summary")
    yield "organiser-pitches-open"
    tap(browser, "#pitch-manage summary")
    tap(browser, "[data-tab=gather]")
    browser.wait(lambda: browser.find("#match").is_displayed(), what="the live match")
    yield "organiser-gather-live"
    tap(browser, "#timeline li.goal button.move")
    browser.wait(lambda: browser.find("#scorer").is_displayed(), what="the scorer picker")
    yield "organiser-gather-scorer"
    tap(browser, "#scorer-done")
    Select(browser.find("#pitch-select")).select_by_value(str(server.back_pitch))
    browser.wait(lambda: browser.find("#lineup").is_displayed() and not browser.find("#match").is_displayed(),
                 what="the line-up")
    yield "organiser-gather-lineup"
    Select(browser.find("#pitch-select")).select_by_value("1")
    for tab in ("history", "activity", "invite"):
        tap(browser, f"[data-tab={tab}]")
        browser.wait(lambda: browser.find(f"#tab-{tab}").is_displayed(), what=f"the {tab} tab")
        yield f"organiser-{tab}"


@pytest.mark.parametrize("width,height", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_every_control_is_at_least_44_px_and_destructive_ones_keep_8_px(width, height, venue, browsers):
    browser = browsers(venue, width, height)
    report, crowding = {}, {}
    for path, view in (("/", "spectator-venue"), ("/?pitch=1", "spectator-pitch"),
                       ("/scoreboard.html?pitch=1", "scoreboard-pitch"), ("/scoreboard.html?pitch=all", "scoreboard-venue")):
        browser.open(path)
        browser.wait_text("#connection", "Live")
        measure(browser, view, report, crowding)
    browser.open("/trust.html")
    measure(browser, "trust", report, crowding)
    for view in organiser_views(browser, venue):
        measure(browser, view, report, crowding)
        if width == 390:
            browser.screenshot(f"tap-{view}-{width}.png", full_page=True)
    assert {view: found for view, found in report.items() if found} == {}
    assert {view: found for view, found in crowding.items() if found} == {}


def test_a_tap_on_a_players_name_ticks_them_and_continue_stays_on_screen(venue, browsers):
    browser = browsers(venue, 390, 844).login(ORGANISER, PASSWORD)
    Select(browser.find("#pitch-select")).select_by_value(str(venue.spare_pitch))
    tap(browser, "#select-toggle")
    free = [row for row in browser.driver.find_elements(By.CSS_SELECTOR, "#player-list li.player")
            if not row.find_element(By.CSS_SELECTOR, "input[type=checkbox]").get_attribute("disabled")]
    assert len(free) == 2, "the two players on no pitch"
    name = free[0].find_element(By.CSS_SELECTOR, ".who strong")
    browser.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", name)
    name.click()
    assert free[0].find_element(By.CSS_SELECTOR, "input[type=checkbox]").is_selected()
    assert browser.text("#selected-count") == "1 selected"
    name.click()
    assert not free[0].find_element(By.CSS_SELECTOR, "input[type=checkbox]").is_selected()
    # Anywhere in the list, the bar is on screen.
    rows = browser.driver.find_elements(By.CSS_SELECTOR, "#player-list li.player")
    for row in (rows[0], rows[len(rows) // 2], rows[-3]):
        browser.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", row)
        top, bottom, viewport = browser.driver.execute_script(
            "const box = document.querySelector('#selection-bar').getBoundingClientRect();"
            "return [box.top, box.bottom, window.innerHeight];")
        assert 0 <= top and bottom <= viewport, (top, bottom, viewport)
    ARTIFACTS.mkdir(exist_ok=True)
    browser.screenshot("tap-selecting-scrolled-390.png")


def test_log_out_asks_first(venue, browsers):
    browser = browsers(venue, 390, 844).login(ORGANISER, PASSWORD)
    logout = browser.find("#logout")
    box = logout.rect
    assert box["width"] >= MINIMUM and box["height"] >= MINIMUM, box
    logout.click()
    alert = browser.driver.switch_to.alert
    assert "Log out" in alert.text
    alert.dismiss()
    assert browser.find("#signed-in").is_displayed(), "Cancel keeps the organiser signed in"
    browser.click("#logout")
    browser.driver.switch_to.alert.accept()
    browser.wait(lambda: browser.find("#signed-out").is_displayed(), what="the log-in form")
