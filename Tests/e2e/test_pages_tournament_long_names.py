"""A tournament day with the longest team names the contract allows (30 characters, one of them a
single word) on a 320 and a 360 px phone (Chrome mobileEmulation): the spectator page's pitch cards,
one pitch's match and the group tables never scroll sideways; a name wraps between its words, and
a word longer than the line breaks only because it cannot fit. A pitch of the running tournament
with no match on it says so in match words ("No tournament match right now.", its board "Waiting
for the next match"), in all six languages; a pitch outside the tournament keeps the gather words.
Screenshots: Tests/e2e/artifacts/long-names-*.png."""
import json
from pathlib import Path

import pytest

from gatherlib import GatherServer, run
from pages_support import Browser, register_organiser
from tournament_pages_support import add_pitches, connect_organiser, create_action, now_ms, perform, play

LONG = ("Real Sociedad de Amigos del Ba", "Wolverhamptonwanderersfootbal", "Sporting Club Atletico Vila Ve",
        "Borussia Freunde Nordstadt Wes", "Olympique Amateurs de la Riviè", "Deportivo Los Compadres Unido",
        "Associazione Calcio Amici Vecc", "Football Club Saturday Mornin")
LANGUAGES = ("en", "de", "es", "fr", "it", "pt")
I18N = Path(__file__).resolve().parents[2] / "Public" / "i18n"
# Where a team's name is shown whole on the spectator page.
NAMES = ".team-name, #list-a-title, #list-b-title, #tournament-tables th[scope=row] a"
# A word split over two lines that would have fit on one line of its element: a needless break.
NEEDLESS_BREAKS = """
const found = [];
for (const element of document.querySelectorAll(arguments[0])) {
  if (!element.getClientRects().length) continue;
  const style = getComputedStyle(element);
  const room = element.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const text = element.firstChild;
  if (!text || text.nodeType !== Node.TEXT_NODE) continue;
  for (const match of text.data.matchAll(/\\S+/g)) {
    const range = document.createRange();
    range.setStart(text, match.index);
    range.setEnd(text, match.index + match[0].length);
    const lines = [...range.getClientRects()].filter((rect) => rect.width > 0);
    const width = lines.reduce((sum, rect) => sum + rect.width, 0);
    if (lines.length > 1 && width <= room + 0.5) found.push(`${match[0]} (${Math.round(width)} px in ${Math.round(room)})`);
  }
}
return found;
"""


def catalogue(language: str) -> dict:
    return json.loads((I18N / f"{language}.json").read_text())


@pytest.fixture(scope="module")
def day():
    """Four pitches; the tournament plays on 1–3 (match 1 over, match 2 live, pitch 3's first
    match not started), pitch 4 is outside it."""
    with GatherServer() as server:
        register_organiser(server)

        async def set_up():
            live = await connect_organiser(server)
            try:
                pitches = await add_pitches(live, 4)
                await perform(live, create_action(LONG, 2, 2, pitches[:3], now_ms() - 20 * 60000))
                first = {m["pitch"]: m["id"] for m in sorted(live.snapshot["tournament"]["matches"],
                                                             key=lambda m: -m["id"])}
                await play(live, first[pitches[0]], 2, 1)
                await play(live, first[pitches[1]], 1, 0, end=False)
                return pitches
            finally:
                await live.close()
        yield server, run(set_up())


@pytest.mark.parametrize("width", (320, 360))
def test_long_team_names_wrap_and_nothing_scrolls_sideways(day, width):
    server, pitches = day
    browser = Browser(server, width, 640)
    try:
        problems = {}
        for path, view in (("/", "venue"), (f"/?pitch={pitches[1]}", "pitch")):
            browser.open(path)
            browser.wait_text("#connection", "Live")
            browser.wait(lambda: browser.driver.execute_script(
                "return document.querySelectorAll('#tournament-tables tbody tr').length >= 8"), what="the group tables")
            if view == "venue":
                browser.wait(lambda: len(browser.driver.find_elements("css selector", "#pitch-cards .pitch-card")) >= 2,
                             what="the pitch cards")
            else:
                browser.wait(lambda: browser.text("#team-a-name") in LONG, what="the live match's names")
            found = []
            if browser.scroll_width() > width:
                found.append(f"the page is {browser.scroll_width()} px wide")
            found += browser.cut_content()
            found += [f"needless break: {word}" for word in browser.driver.execute_script(NEEDLESS_BREAKS, NAMES)]
            if found:
                problems[view] = found
            browser.screenshot(f"long-names-{view}-{width}.png", full_page=True)
            if width == 360:
                violations = browser.axe()
                assert not violations, (view, [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in violations])
        assert problems == {}, problems
    finally:
        browser.close()


def test_an_empty_pitch_of_the_tournament_says_match_words_in_six_languages(day):
    server, pitches = day
    browser = Browser(server, 360, 640, language="en")
    try:
        for language in LANGUAGES:
            words = catalogue(language)
            browser.open(f"/?pitch={pitches[2]}&lang={language}")
            browser.wait(lambda: browser.text("#phase") == words["page.no_tournament_match_now"],
                         what=f"{language}: the tournament's empty pitch in match words")
            browser.open(f"/?pitch={pitches[3]}&lang={language}")
            browser.wait(lambda: browser.text("#phase") == words["page.no_match_now"],
                         what=f"{language}: a pitch outside the tournament keeps its words")
            browser.open(f"/scoreboard.html?pitch={pitches[2]}&lang={language}")
            browser.wait(lambda: browser.text("#status") == words["page.waiting_for_tournament_match"].rstrip("…"),
                         what=f"{language}: the empty tournament pitch's board")
            if language == "en":
                browser.screenshot("long-names-empty-pitch-board.png")
            browser.open(f"/scoreboard.html?pitch={pitches[3]}&lang={language}")
            browser.wait(lambda: browser.text("#status") == words["page.waiting_for_match"].rstrip("…"),
                         what=f"{language}: the board of a pitch outside the tournament")
        assert catalogue("en")["page.no_tournament_match_now"] != catalogue("en")["page.no_match_now"]
    finally:
        browser.close()
