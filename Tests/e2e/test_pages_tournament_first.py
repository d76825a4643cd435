"""A first tournament, run without the docs, and a projector that never cuts a name (issue 42,
points 4 and 9), over the real binary in real Chromium; one server for the whole file.

- The projector (`/scoreboard.html?tournament`, 1920×1080) with sixteen 30-character names (the
  longest the form takes: all "W", all "M", and real-looking ones) on 4 and on 8 pitches: on every
  page (now and next, tables, knockout) each name is whole (no clipping, no ellipsis), on at most
  two lines, in type at least 3.1% of the screen's height; knockout cards carry "Match 25".
- The start banner prints the tournament projector's address; the pitch's projector and the
  spectator page link to the tournament's view while there is one.
- The organiser's form ticks every pitch (one added while the form is open too); the preview says
  "Group A winner v Group B runner-up", not "A1 v B2"; a tournament team without players gets no
  "Who scored?"; the full-time card says what is next on the pitch, not "go to Players".
Screenshots: Tests/e2e/artifacts/projector-*.png and tournament-first-*.png."""
import json
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from gatherlib import PASSWORD, GatherServer, run
from pages_support import ORGANISER, Browser, register_organiser
from tournament_pages_support import add_pitches, connect_organiser, create_action, match, now_ms, perform, play

FLOOR = 0.031  # the smallest type of a name on the projector, as a share of the screen's height

# Sixteen names of exactly 30 characters (the most the form takes): the widest letters in one word
# and in two, and names a venue really sees. Team i plays in group i mod 4.
NAMES = ("W" * 30, "M" * 30, "Real Sociedad de Amigos del Ba", "Celtic Sunday League Old Stars",
         "WMWMWMWMWMWMWMW MWMWMWMWMWMWMW", "MMMMMMMMMMMMMM WWWWWWWWWWWWWWW", "Atlético Chamberí de Fútbol 11",
         "Borussia Mönchengladbach Alten", "Olympique Marseille Vétérans A", "Sporting Clube de Portugal Wed",
         "Wolverhampton Wanderers Mums F", "Manchester Wednesday Wanderers", "Deportivo Wanderers Montevideo",
         "Hamburger Sport-Verein Damen M", "Queens Park Rangers Women's XI", "Fluminense Futebol Clube Mamãe")
assert all(len(name) == 30 for name in NAMES) and len(set(NAMES)) == 16

# Every team name on the page, as a person sees it: the lines each occurrence takes, whether any
# part of it lies outside the box of an ancestor that clips (overflow other than visible: what an
# ellipsis or `overflow: hidden` hides) or outside the screen, and its type size.
NAMES_SEEN = """
const [names, floorShare] = arguments;
const floor = floorShare * innerHeight;
const faults = [], seen = [];
const clippers = (node) => { const list = []; for (let el = node.parentElement; el && el !== document.body; el = el.parentElement) {
  const s = getComputedStyle(el); if (s.overflowX !== 'visible' || s.overflowY !== 'visible') list.push(el); } return list; };
const walker = document.createTreeWalker(document.querySelector('#board'), NodeFilter.SHOW_TEXT);
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  const parent = node.parentElement;
  if (parent.closest('[hidden], .visually-hidden')) continue;
  const style = getComputedStyle(parent);
  if (style.display === 'none' || style.visibility === 'hidden') continue;
  for (const name of names) {
    for (let at = node.data.indexOf(name); at >= 0; at = node.data.indexOf(name, at + 1)) {
      const range = document.createRange();
      range.setStart(node, at); range.setEnd(node, at + name.length);
      const rects = [...range.getClientRects()].filter((r) => r.width > 0.5);
      const lines = new Set(rects.map((r) => Math.round(r.top))).size;
      const size = parseFloat(style.fontSize);
      const what = name.slice(0, 12) + '… in ' + parent.tagName.toLowerCase() + '.' + parent.className;
      seen.push(name);
      if (lines > 2) faults.push(what + ': ' + lines + ' lines');
      if (size < floor - 0.05) faults.push(what + ': ' + size.toFixed(1) + ' px < ' + floor.toFixed(1));
      if (style.textOverflow === 'ellipsis' && parent.scrollWidth > parent.clientWidth) faults.push(what + ': ellipsis');
      for (const r of rects) {
        if (r.left < -0.5 || r.right > innerWidth + 0.5 || r.top < -0.5 || r.bottom > innerHeight + 0.5) faults.push(what + ': off the screen');
        for (const box of clippers(node)) {
          const b = box.getBoundingClientRect();
          if (r.left < b.left - 0.5 || r.right > b.right + 0.5 || r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5) {
            faults.push(what + ': cut by ' + box.tagName.toLowerCase() + '.' + box.className); break; }
        }
      }
    }
  }
}
// Anything else on the page that spills out of a box that clips it.
for (const el of document.querySelectorAll('#tb-page, #tb-page *')) {
  const s = getComputedStyle(el);
  if (s.display === 'none') continue;
  const clipsX = s.overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1;
  const clipsY = s.overflowY !== 'visible' && el.scrollHeight > el.clientHeight + 1;
  if (clipsX || clipsY) faults.push('spills: ' + el.tagName.toLowerCase() + '.' + el.className + ' "' + el.textContent.trim().slice(0, 30) + '"');
}
return {faults, seen};
"""

BOARD = "const b = document.getElementById('board'); return [b.dataset.page, b.dataset.pageIndex, b.dataset.pages];"


@pytest.fixture(scope="module")
def venue():
    with GatherServer() as server:
        register_organiser(server)
        yield server


def tidy(server):
    """No tournament left over from the test before."""
    async def go():
        live = await connect_organiser(server)
        try:
            if live.snapshot["tournament"] and live.snapshot["tournament"]["phase"] != "finished":
                for pitch in live.snapshot["pitches"]:
                    if pitch.get("gather"):
                        await perform(live, {"kind": "cancelGather", "pitch": pitch["id"]})
                await perform(live, {"kind": "cancelTournament"})
        finally:
            await live.close()
    run(go())


def day_of_longest_names(server, pitches: int, live_matches: int, knockout: bool = False) -> dict:
    """The sixteen names in four groups (two through, a third-place match) on `pitches` pitches, the
    first `live_matches` matches being played (after the whole group stage when `knockout`)."""
    tidy(server)

    async def go():
        live = await connect_organiser(server)
        try:
            ids = await add_pitches(live, pitches)
            await perform(live, create_action(NAMES, 4, 2, ids[:pitches], now_ms(), thirdPlace=True, name="Longest Names Cup"))
            if knockout:  # team 1 (30 "W"s) wins its group
                for m in list(live.snapshot["tournament"]["matches"]):
                    if m["stage"] == "group":
                        await play(live, m["id"], *((3, 0) if m["home"] == 1 else (0, 3) if m["away"] == 1 else (m["id"] % 3, 1)))
            scheduled = [m for m in live.snapshot["tournament"]["matches"] if m["status"] == "scheduled"]
            for m in scheduled[:live_matches]:
                await play(live, m["id"], 2, 1, end=False)
            return live.snapshot["tournament"]
        finally:
            await live.close()
    return run(go())


def projector(server) -> Browser:
    screen = Browser(server, 1920, 1080, mobile=False)
    screen.open("/scoreboard.html?tournament")
    screen.wait_text("#connection", "Live")
    screen.wait(lambda: screen.find("#tb-page").text.strip(), 10, "a page")
    return screen


def check_pages(screen, kinds: set[str], shots: dict[str, str], on_page=None) -> dict:
    """Checks every page of `kinds`, turning the pages with the arrow key a presenter's clicker
    sends (they also turn by themselves, every few seconds): each is measured where it shows;
    the first of a kind named in `shots` is also a screenshot; `on_page(kind, index)` reads more
    of it and returns faults. Returns {(kind, index): names seen there}."""
    checked, observed, faults = {}, {}, []
    pages = int(screen.driver.execute_script(BOARD)[2])
    for _ in range(3 * pages):
        kind, index, _ = screen.driver.execute_script(BOARD)
        observed[index] = kind
        if kind in kinds and (kind, index) not in checked:
            result = screen.driver.execute_script(NAMES_SEEN, list(NAMES), FLOOR)
            extra = on_page(kind, index) if on_page else None
            if screen.driver.execute_script(BOARD)[:2] == [kind, index]:  # the page did not turn while read
                checked[(kind, index)] = result["seen"]
                faults.extend(f"{kind} {index}: {fault}" for fault in result["faults"] + (extra or []))
                if kind in shots:
                    screen.screenshot(shots.pop(kind))
        if len(observed) == pages and all((k, i) in checked for i, k in observed.items() if k in kinds):
            break
        screen.driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
        screen.wait(lambda: screen.driver.execute_script(BOARD)[1] != index, 5, "the next page")
    assert len(observed) == pages, observed
    assert {k for k in observed.values() if k in kinds} == kinds, observed
    assert faults == [], "\n".join(faults)
    return checked


# MARK: - Point 9: a first tournament without the docs

SHORT = ("Reds", "Blues", "Greens", "Whites", "Blacks", "Yellows", "Oranges", "Purples",
         "Lions", "Tigers", "Bears", "Wolves", "Eagles", "Hawks", "Sharks", "Foxes")

SMALL_TARGETS = """
return [...document.querySelectorAll(arguments[0])].filter((el) => {
  const box = el.getBoundingClientRect(); const style = getComputedStyle(el);
  return box.width > 0 && style.visibility !== 'hidden' && !el.closest('[hidden]');
}).filter((el) => { const target = el.closest('label.check') || el; const box = target.getBoundingClientRect();
  return box.height < 44 - 0.5 || box.width < 44 - 0.5;
}).map((el) => el.tagName + ' ' + (el.textContent || el.name || '').trim().slice(0, 30));
"""
TARGETS = "button, a[href], summary, input:not([type=hidden]), select, textarea"


def tap(browser, css):
    """Clicks an element after bringing it to the middle of the screen (the sticky header covers the top)."""
    element = browser.find(css)
    browser.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def no_axe_violations(browser, where):
    violations = browser.axe()
    assert not violations, (where, [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in violations])


def test_the_banner_prints_the_tournament_screen(venue):
    lines = [line for line in venue.output if "scoreboard.html?tournament" in line]
    assert len(lines) == 1 and lines[0].strip().startswith("Tournament projector"), lines
    assert lines[0].strip().endswith("/scoreboard.html?tournament"), lines


def test_a_first_tournament_talks_about_matches_from_the_form_to_the_next_match(venue, browsers):
    """The form at 390 px ticks every pitch, those added while it is open too; the preview says who
    plays the knockout in words; a team without players gets no "Who scored?"; the full-time card
    says what is next on the pitch."""
    tidy(venue)
    phone = browsers(venue, 390, 844).login(ORGANISER, PASSWORD)
    tap(phone, "#show-tournament")
    phone.wait(lambda: phone.find("#tournament-form").is_displayed(), what="the new tournament form")

    async def two_more_pitches():
        live = await connect_organiser(venue)
        try:
            ids = await add_pitches(live, 3)
            return ids, {pitch["id"]: pitch["name"] for pitch in live.snapshot["pitches"]}
        finally:
            await live.close()
    pitches, pitch_names = run(two_more_pitches())
    boxes = lambda: phone.driver.find_elements(By.CSS_SELECTOR, "#tournament-form [name=pitch]")
    phone.wait(lambda: len(boxes()) == 3, 10, "the pitches added while the form was open")
    assert [box.is_selected() for box in boxes()] == [True, True, True]

    phone.fill("#tournament-form [name=name]", "First Cup")
    phone.fill("#tournament-form [name=teams]", "\n".join(SHORT))
    phone.driver.execute_script("document.querySelector('#tournament-form [name=groups]').value = '4'")
    phone.fill("#tournament-form [name=advance]", "2")
    tap(phone, "#tournament-preview")
    phone.wait(lambda: phone.find("#tournament-create-confirm").is_displayed(), what="the preview")
    lines = {int(e.get_attribute("data-match")): e.text for e in phone.driver.find_elements(By.CSS_SELECTOR, ".tpreview-schedule li")}
    knockout = [text.split(": ", 1)[1] for _, text in sorted(lines.items()) if "Group" not in text.split(": ", 1)[0]]
    assert knockout == ["Group A winner v Group B runner-up", "Group C winner v Group D runner-up",
                        "Group B winner v Group A runner-up", "Group D winner v Group C runner-up",
                        "Winner of match 25 v Winner of match 26", "Winner of match 27 v Winner of match 28",
                        "Winner of match 29 v Winner of match 30"], knockout
    no_axe_violations(phone, "the preview")
    assert not phone.driver.execute_script(SMALL_TARGETS, f"#tab-tournament :is({TARGETS})")
    phone.driver.execute_script("document.querySelector('.tpreview-schedule li[data-match=\"25\"]').scrollIntoView({block: 'center'})")
    phone.screenshot("tournament-first-preview-390.png")
    tap(phone, "#tournament-create-confirm")
    phone.wait(lambda: phone.driver.find_elements(By.CSS_SELECTOR, "#tournament-pitches .tpitch"), 15, "the tournament day")
    assert sorted(get_json(venue, "/api/tournament.json")["rules"]["pitches"]) == sorted(pitches)

    # The first match on pitch 1 from its button: a team of names, no players; +1 asks nobody.
    tap(phone, f"#tournament-pitches .tpitch[data-pitch='{pitches[0]}'] .start-match")
    phone.wait(lambda: phone.find("#match").is_displayed(), 15, "the match on its tab")
    assert phone.text("#show-gather") == "Match"
    assert phone.text("#cancel-gather") == "Cancel match (back to the schedule)"
    tap(phone, "[data-score='A'][data-delta='1']")
    phone.wait_text("#match-a-score", "1")
    phone.wait(lambda: phone.driver.find_elements(By.CSS_SELECTOR, "#timeline li.goal"), 10, "the goal in the timeline")
    assert not phone.find("#scorer").is_displayed()
    assert phone.driver.execute_script("return document.querySelector('#scorer').hidden") is True
    assert "Who scored?" not in phone.text("#timeline")
    tap(phone, "#end-gather")
    from selenium.webdriver.common.alert import Alert
    Alert(phone.driver).accept()
    phone.wait(lambda: phone.find("#full-time").is_displayed(), 15, "full time")
    day = get_json(venue, "/api/tournament.json")
    following = min((m for m in day["matches"] if m["pitch"] == pitches[0] and m["status"] == "scheduled"),
                    key=lambda m: (m["expectedAt"], m["id"]))
    names = {team["id"]: team["name"] for team in day["teams"]}
    words = phone.text("#full-time")
    assert f"Next on {pitch_names[pitches[0]]}: Match {following['id']} · " in words, words
    assert f"{names[following['home']]} v {names[following['away']]}. Start it from the Tournament tab." in words, words
    assert "Players" not in words and "gather" not in words.lower(), words
    no_axe_violations(phone, "full time on a tournament day")
    assert not phone.driver.execute_script(SMALL_TARGETS, f"#tab-gather :is({TARGETS})")
    phone.driver.execute_script("document.querySelector('#full-time').scrollIntoView()")
    phone.screenshot("tournament-first-full-time-390.png")
    assert not phone.console_errors()


def test_the_preview_names_the_places_in_the_phones_language(venue):
    """The preview at 360 px on a Spanish phone: the knockout's places in the catalogue's words
    ("1.º del grupo A vs. 2.º del grupo B"), nothing left as "A1"."""
    tidy(venue)
    words = json.loads((Path(__file__).resolve().parents[2] / "Public" / "i18n" / "es.json").read_text(encoding="utf-8"))
    place = lambda key, **values: words[key].format(**values)
    phone = Browser(venue, 360, 640, language="es")
    try:
        phone.open("/organiser.html")
        phone.wait(lambda: phone.find("#connection").get_attribute("data-status") == "live", 10, "the connection")
        phone.fill("#login-form [name=username]", ORGANISER)
        phone.fill("#login-form [name=password]", PASSWORD)
        phone.click("#login-form button[type=submit]")
        phone.wait(lambda: phone.find("#signed-in").is_displayed(), what="the organiser console")
        tap(phone, "#show-tournament")
        phone.wait(lambda: phone.find("#tournament-form").is_displayed(), what="the new tournament form")
        phone.fill("#tournament-form [name=teams]", "\n".join(SHORT))
        phone.driver.execute_script("document.querySelector('#tournament-form [name=groups]').value = '4'")
        phone.fill("#tournament-form [name=advance]", "2")
        tap(phone, "#tournament-preview")
        phone.wait(lambda: phone.find("#tournament-create-confirm").is_displayed(), what="the preview")
        lines = [e.text for e in phone.driver.find_elements(By.CSS_SELECTOR, ".tpreview-schedule li[data-match='25'], "
                                                                                ".tpreview-schedule li[data-match='29']")]
        versus = words["tour.versus"]
        assert lines[0].endswith(f"{words['tour.quarter_final']}: {place('tour.group_winner', group='A')} {versus} "
                                 f"{place('tour.group_runner_up', group='B')}"), lines
        assert lines[1].endswith(f"{place('tour.winner_of', match=25)} {versus} {place('tour.winner_of', match=26)}"), lines
        assert phone.scroll_width() <= 360
        no_axe_violations(phone, "the preview in Spanish")
        assert not phone.driver.execute_script(SMALL_TARGETS, f"#tab-tournament :is({TARGETS})")
        phone.driver.execute_script("document.querySelector('.tpreview-schedule li[data-match=\"25\"]').scrollIntoView({block: 'center'})")
        phone.screenshot("tournament-first-preview-es-360.png")
    finally:
        phone.close()


def get_json(server, path: str):
    status, _, body = server.get(path)
    assert status == 200, (path, status)
    return json.loads(body)


def test_the_pitch_screen_and_the_spectator_link_to_the_tournament_screen(venue, browsers):
    """While a tournament is on: the pitch's projector (1920×1080) and the spectator page (360 px)
    each have a link to `/scoreboard.html?tournament`; without one, the projector's is gone."""
    if not get_json(venue, "/api/tournament.json"):  # run alone: the day of the test before
        async def first_cup():
            live = await connect_organiser(venue)
            try:
                await perform(live, create_action(SHORT, 4, 2, [1], now_ms(), name="First Cup"))
            finally:
                await live.close()
        run(first_cup())
    screen = Browser(venue, 1920, 1080, mobile=False)
    try:
        screen.open("/scoreboard.html?pitch=1")
        screen.wait_text("#connection", "Live")
        link = screen.wait(lambda: screen.find("#tournament-link").is_displayed() and screen.find("#tournament-link"), 10, "the link")
        assert link.get_attribute("href").endswith("/scoreboard.html?tournament") and link.text == "Tournament screen"
        assert link.size["height"] >= 44 and link.size["width"] >= 44
        no_axe_violations(screen, "the pitch's screen")
        screen.screenshot("tournament-first-pitch-screen-link.png")
        link.click()
        screen.wait(lambda: screen.find("#board").get_attribute("data-mode") == "tournament", 10, "the tournament screen")
        assert not screen.find("#tournament-link").is_displayed()

        phone = browsers(venue, 360, 640)
        phone.open("/")
        phone.wait_text("#connection", "Live")
        link = phone.wait(lambda: phone.find("#tournament-screen-link").is_displayed() and phone.find("#tournament-screen-link"), 10, "the link")
        assert link.get_attribute("href").endswith("/scoreboard.html?tournament")
        assert link.size["height"] >= 44
        assert phone.scroll_width() <= 360
        no_axe_violations(phone, "the spectator page")
        phone.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", link)
        phone.screenshot("tournament-first-spectator-link-360.png")

        # No tournament: no link on the pitch's screen.
        tidy(venue)
        screen.open("/scoreboard.html?pitch=all")
        screen.wait_text("#connection", "Live")
        screen.wait(lambda: screen.driver.execute_script("return document.querySelector('#venue') !== null"), 5, "the overview")
        assert not screen.find("#tournament-link").is_displayed()
    finally:
        screen.close()


# MARK: - Point 4: the projector never cuts a name


@pytest.mark.parametrize("pitches", (4, 8))
def test_the_projector_shows_the_longest_names_whole_now_and_next(venue, pitches):
    day = day_of_longest_names(venue, pitches, pitches)
    live = [m for m in day["matches"] if m["status"] == "live"]
    assert sorted(m["pitch"] for m in live) == sorted(day["rules"]["pitches"])
    # The first page of now-and-next holds the first four pitches: their 8 names live.
    first_four = {NAMES[m[side] - 1] for m in live if m["pitch"] in day["rules"]["pitches"][:4] for side in ("home", "away")}
    screen = projector(venue)
    try:
        seen = check_pages(screen, {"now"}, {"now": f"projector-now-next-longest-{pitches}-pitches.png"})
        assert len(first_four) == 8 and first_four <= set(seen[("now", "0")]), seen[("now", "0")]
        assert len(seen) == pitches // 4, seen.keys()
        # Back with the clicker's other key.
        before = screen.driver.execute_script(BOARD)[1]
        screen.driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
        screen.wait(lambda: screen.driver.execute_script(BOARD)[1] == str((int(before) - 1) % int(screen.driver.execute_script(BOARD)[2])),
                    5, "the page before")
        assert not screen.console_errors()
    finally:
        screen.close()


def test_the_projector_tables_and_knockout_keep_every_name_whole_and_number_the_matches(venue):
    day = day_of_longest_names(venue, 4, 2, knockout=True)
    knockout = [m for m in day["matches"] if m["stage"] != "group"]
    assert knockout[0]["id"] == 25 and day["phase"] == "knockout", (knockout[0], day["phase"])
    screen = projector(venue)
    cards = {}

    def numbered(kind, index):
        """Each knockout card names its match ("Match 25"): the cards after it say "Winner of match 25"."""
        if kind != "bracket":
            return []
        shown = {int(card.get_attribute("data-match")): card.text
                 for card in screen.driver.find_elements(By.CSS_SELECTOR, "#tb-page .tb-match[data-match]")}
        cards.update(shown)
        return [f"card {number} lacks 'Match {number}': {text!r}" for number, text in shown.items() if f"Match {number}" not in text]
    try:
        seen = check_pages(screen, {"tables", "bracket"}, {"bracket": "projector-knockout-match-numbers.png", "tables": "projector-tables-longest.png"}, numbered)

        async def to_the_final():
            """The rest of the knockout, team 1 (30 "W"s) winning every match it plays."""
            live = await connect_organiser(venue)
            try:
                for m in [m for m in live.snapshot["tournament"]["matches"] if m["stage"] != "group"]:
                    m = match(live, m["id"])
                    if m["status"] == "scheduled":
                        await perform(live, {"kind": "startMatch", "match": m["id"]})
                    m = match(live, m["id"])
                    goals = ("B", "A") if m["away"] == 1 else ("A", "B")
                    for side in goals[:1] * 2 + goals[1:]:
                        await perform(live, {"kind": "score", "pitch": m["pitch"], "team": side, "delta": 1})
                    await perform(live, {"kind": "endGather", "pitch": m["pitch"]})
                return live.snapshot["tournament"]
            finally:
                await live.close()
        done = run(to_the_final())
        assert done["phase"] == "finished" and done["champion"] == 1, (done["phase"], done["champion"])
        screen.wait(lambda: screen.driver.execute_script(BOARD)[0] == "champion", 15, "the champion")
        champion = check_pages(screen, {"champion"}, {"champion": "projector-champion-longest.png"})
        assert NAMES[0] in champion[("champion", "0")]
        assert not screen.console_errors()
    finally:
        screen.close()
    tables = {name for (kind, _), names in seen.items() if kind == "tables" for name in names}
    assert tables == set(NAMES), set(NAMES) - tables
    assert sorted(cards) == [m["id"] for m in knockout], sorted(cards)
    assert "Winner of match 25" in cards[29], cards[29]
