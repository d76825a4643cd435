"""The tournament's pages over the real binary, in real Chromium: the organiser's tab at 390 px
(create → preview → start → end, penalties for a level knockout match, correcting a result), a
spectator following a team (`/?team=ID`) at 390 and 360 px, and the projector
(`/scoreboard.html?tournament`) at 1920×1080 paging through now-and-next, tables, bracket and the
champion. Screenshots: Tests/e2e/artifacts/tournament-*.png."""
import json

import pytest
from selenium.webdriver.common.alert import Alert
from selenium.webdriver.common.by import By

from gatherlib import PASSWORD, GatherServer, run
from pages_support import ORGANISER, Browser, register_organiser
from tournament_pages_support import (TEAMS8, add_pitches, connect_organiser, create_action, match, now_ms, perform,
                                      place_words, play, play_group_stage, play_knockout, running_late_day,
                                      venue_of_three_pitches)

SHARE = 0.03  # the projector's smallest text, as a share of the screen's height

SMALL_TARGETS = """
const scope = document.querySelector(arguments[0]);
return [...scope.querySelectorAll('button, a[href], summary, input:not([type=hidden]), select, textarea')].filter((el) => {
  const box = el.getBoundingClientRect(); const style = getComputedStyle(el);
  return box.width > 0 && box.height > 0 && style.visibility !== 'hidden' && !el.closest('[hidden]');
}).filter((el) => {
  const target = el.closest('label.check') || el; const box = target.getBoundingClientRect();
  return box.height < 44 - 0.5 || box.width < 44 - 0.5;
}).map((el) => el.tagName + ' ' + (el.textContent || el.name || '').trim().slice(0, 30) + ' ' + Math.round(el.getBoundingClientRect().width) + 'x' + Math.round(el.getBoundingClientRect().height));
"""

SMALL_TEXT = """
const floor = arguments[0] * innerHeight;
const small = [];
for (const el of document.querySelectorAll('#board *')) {
  if (el.closest('.visually-hidden') || el.closest('[hidden]')) continue;
  const hasText = [...el.childNodes].some((node) => node.nodeType === 3 && node.textContent.trim());
  if (!hasText) continue;
  const style = getComputedStyle(el); const box = el.getBoundingClientRect();
  if (style.display === 'none' || box.width === 0) continue;
  if (parseFloat(style.fontSize) < floor - 0.1) small.push(el.tagName + ' "' + el.textContent.trim().slice(0, 30) + '" ' + style.fontSize);
}
return small;
"""

# The live match's line: whether its parts (names and score) sit side by side on one line, and the
# parts whose text does not fit (an ellipsis).
ONE_LINE = """
const line = document.querySelector(arguments[0]);
const boxes = [...line.children].map((part) => part.getBoundingClientRect());
return {oneLine: boxes.every((box) => box.top < boxes[0].bottom && boxes[0].top < box.bottom),
        cut: [...line.children].filter((part) => part.scrollWidth > part.clientWidth).map((part) => part.textContent)};
"""


def no_axe_violations(browser, where):
    violations = browser.axe()
    assert not violations, (where, [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in violations])


def tap(browser, css):
    """Clicks an element after bringing it to the middle of the screen (the sticky header covers the top)."""
    element = browser.find(css)
    browser.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def wait_state(browser, expression, what, timeout=15):
    return browser.wait(lambda: browser.driver.execute_script(f"return {expression};"), timeout, what)


# MARK: - The organiser's tab


@pytest.fixture(scope="module")
def venue():
    with venue_of_three_pitches() as server:
        yield server


def test_the_organiser_creates_from_a_preview_starts_ends_and_corrects(venue, browsers):
    server = venue
    phone = browsers(server, 390, 844).login(ORGANISER, PASSWORD)
    tap(phone, "#show-tournament")
    phone.wait(lambda: phone.find("#tournament-form").is_displayed(), what="the new tournament form")

    # A rule broken: every one named in a sentence, nothing sent.
    phone.fill("#tournament-form [name=name]", "Riverside Cup")
    phone.fill("#tournament-form [name=teams]", "\n".join(TEAMS8))
    phone.fill("#tournament-form [name=advance]", "5")
    tap(phone, "#tournament-preview")
    problems = phone.text("#tournament-preview-area .problems")
    assert "At most 3 teams per group can go through: the smallest group has 4." in problems
    assert "Groups × teams going through must be 2, 4, 8, 16 or 32 (now 2 × 5 = 10)." in problems
    assert not phone.driver.find_elements(By.CSS_SELECTOR, "#tournament-create-confirm")
    phone.screenshot("tournament-create-problems.png")

    # The preview: groups by i mod groups, the whole schedule over both pitches.
    phone.fill("#tournament-form [name=advance]", "2")
    tap(phone, "#tournament-preview")
    phone.wait(lambda: phone.find("#tournament-create-confirm").is_displayed(), what="the preview")
    assert phone.text("#tpreview-summary").startswith("8 teams · 15 matches in 8 slots"), phone.text("#tpreview-summary")
    groups = [e.text for e in phone.driver.find_elements(By.CSS_SELECTOR, ".tpreview-groups li")]
    assert groups == ["Group A: Reds, Greens, Blacks, Oranges", "Group B: Blues, Whites, Yellows, Purples"], groups
    preview = [(int(e.get_attribute("data-match")), int(e.get_attribute("data-pitch")), int(e.get_attribute("data-slot")),
                e.text.split(" · ", 1)[1].split(" ", 2)[-1]) for e in phone.driver.find_elements(By.CSS_SELECTOR, ".tpreview-schedule li")]
    assert len(preview) == 15
    no_axe_violations(phone, "create preview")
    assert not phone.driver.execute_script(SMALL_TARGETS, "#tab-tournament")
    phone.driver.execute_script("document.querySelector('#tournament-preview-area').scrollIntoView()")
    phone.screenshot("tournament-create-preview.png")
    phone.screenshot("tournament-create-preview-full.png", full_page=True)

    tap(phone, "#tournament-create-confirm")
    phone.wait(lambda: phone.driver.find_elements(By.CSS_SELECTOR, "#tournament-pitches .tpitch"), 15, "the tournament day")

    # The server made exactly the schedule the preview showed.
    status, _, body = server.get("/api/tournament.json")
    made = json.loads(body)
    slot_ms = (made["rules"]["matchMinutes"] + made["rules"]["breakMinutes"]) * 60000
    names = {team["id"]: team["name"] for team in made["teams"]}
    served = []
    for m in made["matches"]:
        home = names[m["home"]] if m["home"] else place_words(m["homeFrom"])
        away = names[m["away"]] if m["away"] else place_words(m["awayFrom"])
        served.append((m["id"], m["pitch"], (m["plannedAt"] - made["rules"]["startsAt"]) // slot_ms, f"{home} v {away}"))
    assert [(i, p, s) for i, p, s, _ in preview] == [(i, p, s) for i, p, s, _ in served]
    assert [text.endswith(teams) for (_, _, _, text), (_, _, _, teams) in zip(preview, served)] == [True] * 15, (preview, served)

    # Each pitch: its next match and one "Start match".
    first = phone.find("#tournament-pitches .tpitch[data-pitch='1']")
    assert "Next: Group A · Reds v Oranges" in first.text, first.text
    no_axe_violations(phone, "tournament day")
    assert not phone.driver.execute_script(SMALL_TARGETS, "#tab-tournament")
    assert phone.scroll_width() <= 390
    # A QR code per team, leading to the spectator page following it.
    tap(phone, "#tournament-day details.manage summary")
    phone.driver.execute_script("document.querySelector('.team-qr').scrollIntoView()")
    phone.wait(lambda: phone.driver.execute_script(
        "const img = document.querySelector('.team-qr'); return img.complete && img.naturalWidth > 0;"), 10, "a team's QR code")
    phone.screenshot("tournament-team-qr.png")
    assert phone.find(".team-qr").get_attribute("src").endswith("/qr.svg?team=1")
    assert server.get("/qr.svg?team=1")[2] != server.get("/qr.svg")[2]
    phone.driver.execute_script("document.querySelector('#tournament-pitches').closest('section').scrollIntoView()")
    phone.screenshot("tournament-pitch-next.png")
    tap(phone, "#tournament-pitches .tpitch[data-pitch='1'] .start-match")
    phone.wait(lambda: phone.find("#match").is_displayed(), 15, "the match on the Gather tab")
    assert phone.text("#match-a-name") == "Reds" and phone.text("#match-b-name") == "Oranges"
    tap(phone, "[data-score='A'][data-delta='1']")
    phone.wait_text("#match-a-score", "1")
    tap(phone, "#end-gather")
    Alert(phone.driver).accept()
    phone.wait(lambda: phone.find("#full-time").is_displayed(), 15, "full time")

    tap(phone, "#show-tournament")
    phone.wait(lambda: "Reds 1–0 Oranges" in phone.text("#tournament-results"), 15, "the result")
    top = phone.find("#tournament-tables table[data-group='A'] tbody tr")
    assert top.get_attribute("data-team") == "1" and top.text.split()[-1] == "3", top.text

    # Correct result, confirmed: the table follows.
    tap(phone, "#tournament-results .correct")
    phone.fill(".correct-form [name=home]", "0")
    phone.fill(".correct-form [name=away]", "2")
    tap(phone, ".correct-form button[type=submit]")
    alert = Alert(phone.driver)
    assert "Reds 0–2 Oranges" in alert.text
    alert.accept()
    phone.wait(lambda: "Reds 0–2 Oranges" in phone.text("#tournament-results"), 15, "the corrected result")
    top = phone.find("#tournament-tables table[data-group='A'] tbody tr")
    assert top.get_attribute("data-team") == "7", top.text

    # The rest of the group stage over the wire, then a level semi-final ended from the page.
    async def groups_done():
        live = await connect_organiser(server)
        try:
            await play_group_stage(live)
            semi = next(m for m in live.snapshot["tournament"]["matches"] if m["stage"] == "semiFinal")
            return semi
        finally:
            await live.close()
    semi = run(groups_done())
    phone.wait(lambda: phone.find(f"#tournament-pitches .start-match[data-match='{semi['id']}']").is_enabled(), 15, "the semi-final")
    tap(phone, f"#tournament-pitches .start-match[data-match='{semi['id']}']")
    phone.wait(lambda: phone.find("#match").is_displayed(), 15, "the semi-final on the Gather tab")
    tap(phone, "[data-score='A'][data-delta='1']")
    tap(phone, "[data-score='B'][data-delta='1']")
    phone.wait(lambda: phone.text("#match-a-score") == "1" and phone.text("#match-b-score") == "1", 10, "1–1")
    tap(phone, "#end-gather")
    phone.wait(lambda: phone.find("#penalties-dialog").is_displayed(), 10, "the penalties question")
    no_axe_violations(phone, "penalties question")
    phone.fill("#penalties-dialog [name=a]", "4")
    phone.fill("#penalties-dialog [name=b]", "4")
    tap(phone, "#penalties-end")
    assert "cannot be equal" in phone.text("#penalties-error")
    phone.fill("#penalties-dialog [name=b]", "5")
    phone.screenshot("tournament-penalties.png")
    tap(phone, "#penalties-end")
    phone.wait(lambda: phone.find("#full-time").is_displayed(), 15, "full time after penalties")
    status, _, body = server.get("/api/tournament.json")
    finished = next(m for m in json.loads(body)["matches"] if m["id"] == semi["id"])
    assert finished["status"] == "finished" and finished["penalties"] == {"home": 4, "away": 5}, finished
    assert finished["winner"] == finished["away"]
    tap(phone, "#show-tournament")
    phone.wait(lambda: "(4–5 pens)" in phone.text("#tournament-bracket"), 15, "the bracket with the shoot-out")
    phone.driver.execute_script("document.querySelector('#tournament-bracket').scrollIntoView()")
    phone.screenshot("tournament-organiser-bracket.png")
    assert not phone.console_errors()


# MARK: - A spectator following a team


@pytest.fixture(scope="module")
def running_late():
    """Eight teams on two pitches, planned to start 20 minutes ago: match 1 played, the first match
    on pitch 2 live now (so the next on pitch 2 runs late)."""
    with running_late_day() as day:
        yield day


@pytest.mark.parametrize("width", (390, 360))
def test_a_spectator_follows_a_team(running_late, browsers, width):
    server, tournament = running_late
    blues = next(team for team in tournament["teams"] if team["name"] == "Blues")
    phone = browsers(server, width, 800)
    phone.open("/")
    phone.wait(lambda: phone.find("#tournament").is_displayed(), 15, "the tournament")
    # Tapping a team anywhere follows it.
    link = phone.find(f"#tournament-tables a.team-link[data-team='{blues['id']}']")
    phone.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", link)
    link.click()
    phone.wait(lambda: "team=" in phone.driver.current_url, 10, "the team's address")
    assert phone.driver.current_url.endswith(f"/?team={blues['id']}")
    phone.wait(lambda: phone.find("#tournament-follow").is_displayed(), 15, "the followed team")
    assert phone.text("#follow-title") == "Following Blues"
    nxt = next(m for m in sorted(tournament["matches"], key=lambda m: m["expectedAt"])
               if blues["id"] in (m["home"], m["away"]) and m["status"] != "finished")
    shown = phone.find("#follow-next")
    assert shown.get_attribute("data-match") == str(nxt["id"])
    late = round((nxt["expectedAt"] - nxt["plannedAt"]) / 60000)
    if nxt["status"] == "scheduled" and late > 0:
        assert f"running {late} min late" in shown.text, shown.text
    assert "Pitch" in phone.text("#follow-next .follow-where")
    calendar = phone.find("#follow-calendar").get_attribute("href")
    assert calendar.endswith(f"/api/tournament.ics?team={blues['id']}"), calendar
    table = phone.find("#tournament-follow table.group-table tr.followed")
    assert table.get_attribute("data-team") == str(blues["id"])
    no_axe_violations(phone, "follow a team")
    assert not phone.driver.execute_script(SMALL_TARGETS, "#tournament-follow")
    assert not phone.driver.execute_script(SMALL_TARGETS, "#tournament")
    assert phone.scroll_width() <= width, phone.scroll_width()
    assert not phone.cut_content()
    phone.screenshot(f"tournament-follow-{width}.png")
    phone.screenshot(f"tournament-follow-{width}-full.png", full_page=True)
    # The calendar feed the link names answers with this team's matches.
    status, headers, body = server.get(f"/api/tournament.ics?team={blues['id']}")
    assert status == 200 and b"BEGIN:VCALENDAR" in body


def test_a_team_running_late_says_so(running_late, browsers):
    server, tournament = running_late
    live_on_2 = match_of(tournament, 2)
    later = sorted((m for m in tournament["matches"] if m["pitch"] == live_on_2["pitch"] and m["status"] == "scheduled"),
                   key=lambda m: m["id"])[0]
    late = round((later["expectedAt"] - later["plannedAt"]) / 60000)
    assert late >= 15, later  # started 20 minutes after it was planned
    team = later["home"]
    phone = browsers(server, 390, 844)
    phone.open(f"/?team={team}")
    phone.wait(lambda: phone.find("#tournament-follow").is_displayed(), 15, "the followed team")
    phone.wait(lambda: f"running {late} min late" in phone.text("#follow-next"), 10, "the delay")
    phone.screenshot("tournament-follow-late.png")


def match_of(tournament, match_id):
    return next(m for m in tournament["matches"] if m["id"] == match_id)


# MARK: - The projector


def projector_pages(screen, expected_kinds, seen, timeout=40, every_page=False):
    """Waits until every page kind in `expected_kinds` has been on screen, checking each one as it
    comes: text at least 3% of the height, nothing cut, a screenshot."""
    def check():
        board = screen.find("#board")
        kind, index = board.get_attribute("data-page"), board.get_attribute("data-page-index")
        key = f"{kind}-{index}"
        if key not in seen:
            screen.wait(lambda: screen.find("#board").get_attribute("data-page-index") == index, 1)
            screen.screenshot(f"tournament-projector-{key}.png")
            small = screen.driver.execute_script(SMALL_TEXT, SHARE)
            assert not small, (key, small)
            assert not screen.cut_content(), (key, screen.cut_content())
            seen[key] = int(board.get_attribute("data-page-ms")) * int(board.get_attribute("data-pages"))
        kinds = all(any(name.startswith(k + "-") for name in seen) for k in expected_kinds)
        return kinds and (not every_page or len(seen) >= int(board.get_attribute("data-pages")))
    screen.wait(check, timeout, f"the pages {expected_kinds}")
    assert max(seen.values()) <= 30000, seen


def test_the_projector_pages_through_the_day_and_ends_on_the_champion(running_late):
    server, _ = running_late
    screen = Browser(server, 1920, 1080, mobile=False)
    try:
        screen.open("/scoreboard.html?tournament")
        screen.wait_text("#connection", "Live")
        screen.wait(lambda: screen.find("#board").get_attribute("data-page"), 10, "a page")
        seen = {}
        projector_pages(screen, ("now", "tables", "bracket"), seen)
        no_axe_violations(screen, "projector")
        # The live match on its pitch with its clock, the next one with its delay.
        screen.wait(lambda: screen.find("#board").get_attribute("data-page") == "now", 35, "now and next again")
        assert screen.find(".tb-pitch[data-pitch] .tb-clock").text not in ("", "--:--")
        assert "min late" in screen.text("#tb-page")

        async def finish():
            live = await connect_organiser(server)
            try:
                await perform(live, {"kind": "endGather", "pitch": match(live, 2)["pitch"]})
                await play_group_stage(live)
                await play_knockout(live)
                return live.snapshot["tournament"]
            finally:
                await live.close()
        done = run(finish())
        assert done["phase"] == "finished"
        champion = next(team["name"] for team in done["teams"] if team["id"] == done["champion"])
        screen.wait(lambda: screen.find("#board").get_attribute("data-page") == "champion", 15, "the champion")
        assert screen.text(".tb-champion-name") == champion
        small = screen.driver.execute_script(SMALL_TEXT, SHARE)
        assert not small, small
        screen.screenshot("tournament-projector-champion.png")
        assert not screen.console_errors()
    finally:
        screen.close()


def test_the_projector_shows_a_day_of_32_teams_on_8_pitches_within_30_seconds(browsers):
    with GatherServer() as server:
        register_organiser(server)

        async def set_up():
            live = await connect_organiser(server)
            try:
                pitches = await add_pitches(live, 8)
                names = [f"Athletic Club Number {index + 1:02}" for index in range(32)]
                await perform(live, create_action(names, 8, 2, pitches, now_ms()))
                await play(live, 1, 1, 1, end=False)
            finally:
                await live.close()
        run(set_up())
        screen = Browser(server, 1920, 1080, mobile=False)
        try:
            screen.open("/scoreboard.html?tournament")
            screen.wait_text("#connection", "Live")
            screen.wait(lambda: screen.find("#board").get_attribute("data-page"), 10, "a page")
            assert int(screen.find("#board").get_attribute("data-pages")) <= 8
            seen = {}
            projector_pages(screen, ("now", "tables", "bracket"), seen, timeout=40, every_page=True)
            assert len(seen) == int(screen.find("#board").get_attribute("data-pages")), seen
            # Two names of 23 characters and the score on one line, each name whole (no ellipsis).
            screen.wait(lambda: screen.find("#board").get_attribute("data-page") == "now", 35, "now and next again")
            line = screen.driver.execute_script(ONE_LINE, "#tb-page .tb-pitch[data-pitch] .tb-live")
            assert line["oneLine"] and not line["cut"], line
        finally:
            screen.close()
