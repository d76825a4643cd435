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
import pytest
from selenium.webdriver.common.by import By

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
            if knockout:
                for m in list(live.snapshot["tournament"]["matches"]):
                    if m["stage"] == "group":
                        await play(live, m["id"], m["id"] % 3, 1)
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


def check_pages(screen, kinds: set[str], shots: dict[str, str], timeout: float = 40, on_page=None) -> dict:
    """Checks every page of `kinds` as it comes round (the pages turn by themselves) until the cycle
    is complete (only the first pages when `kinds` is {"now"}, which come first); screenshots the
    first page of a kind named in `shots`; `on_page(kind, index)` reads more of a checked page.
    Returns {(kind, index): names seen there}."""
    checked, observed, faults = {}, {}, []

    def each():
        kind, index, pages = screen.driver.execute_script(BOARD)
        observed[index] = kind
        if kind in kinds and (kind, index) not in checked:
            result = screen.driver.execute_script(NAMES_SEEN, list(NAMES), FLOOR)
            extra = on_page(kind, index) if on_page else None
            if screen.driver.execute_script(BOARD)[:2] == [kind, index]:  # the page did not turn while read
                checked[(kind, index)] = result["seen"]
                faults.extend(f"{kind} {index}: {fault}" for fault in result["faults"])
                if extra:
                    faults.extend(f"{kind} {index}: {fault}" for fault in extra)
                if kind in shots:
                    screen.screenshot(shots.pop(kind))
        unchecked = [i for i, k in observed.items() if k in kinds and (k, i) not in checked]
        whole = len(observed) == int(pages) or (kinds == {"now"} and any(k != "now" for k in observed.values()))
        return whole and not unchecked and checked
    screen.wait(each, timeout, f"the pages {sorted(kinds)}")
    assert faults == [], "\n".join(faults)
    return checked


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
        seen = check_pages(screen, {"tables", "bracket"}, {"bracket": "projector-knockout-match-numbers.png", "tables": "projector-tables-longest.png"}, 45, numbered)
        assert not screen.console_errors()
    finally:
        screen.close()
    tables = {name for (kind, _), names in seen.items() if kind == "tables" for name in names}
    assert tables == set(NAMES), set(NAMES) - tables
    assert sorted(cards) == [m["id"] for m in knockout], sorted(cards)
    assert "Winner of match 25" in cards[29], cards[29]
