"""Every phone in its own language, the rest of the pages: for each of es, pt, fr, de, it at 360 px,
the tournament as a spectator sees it (tables, bracket, results) and following a team (`/?team=N`),
the organiser's Tournament tab (the day; the new-tournament form with a broken rule and its
preview), the Players, Pitches, Group and Activity tabs with their confirmations, the invite
flow's headings (and the installed app's description) and the trust page: no sentence of the
English catalogue and no English word left visible, no horizontal scroll, 44 px targets, axe 0;
the words the result card draws. The projector's tournament pages at
1920×1080 in German and Spanish with 8 live pitches: nothing clipped. The duplicate question in
French at 360 px. Screenshots: Tests/e2e/artifacts/lang-*.png."""
from __future__ import annotations

import json

import pytest
from selenium.webdriver.common.by import By

from gatherlib import PASSWORD, GatherServer, run
from languages_support import ROOT, LanguageBrowser, catalogue, english_left, english_words
from pages_support import ORGANISER, ann_and_bob_playing, organiser, perform as send, register_organiser
from tournament_pages_support import (TEAMS8, add_pitches, connect_organiser, create_action, now_ms, perform, play,
                                      running_late_day, venue_of_three_pitches)

LANGUAGES = ["es", "pt", "fr", "de", "it"]
TOURNAMENT = "Riverside Cup"
DATA = set(TEAMS8) | {TOURNAMENT, "Pitch 2", "Pitch 3", "Ann", "Bob"}


def fill(text: str, **params) -> str:
    for name, value in params.items():
        text = text.replace("{" + name + "}", str(value))
    return text


def speaks(browser: LanguageBrowser, language: str, where: str, names=DATA, targets: bool = True):
    """The page as it stands: in `language` only, nothing sliding sideways, big targets, axe clean."""
    assert browser.lang() == language, where
    texts = browser.visible_texts()
    assert english_left(texts, language, names) == [], where
    assert english_words(texts, language, names) == [], where
    assert browser.scroll_width() <= browser.width, (where, browser.scroll_width())
    if targets:
        assert browser.small_targets() == [], where
    violations = browser.axe()
    assert not violations, (where, [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in violations])


def english_description() -> str:
    return json.loads((ROOT / "Public" / "manifest.webmanifest").read_text(encoding="utf-8"))["description"]


def log_in(browser: LanguageBrowser):
    browser.open("/organiser.html")
    browser.live()
    browser.fill("#login-form [name=username]", ORGANISER)
    browser.fill("#login-form [name=password]", PASSWORD)
    browser.click("#login-form button[type=submit]")
    browser.wait(lambda: browser.find("#signed-in").is_displayed(), what="the organiser console")


def tap(browser: LanguageBrowser, css: str):
    element = browser.find(css)
    browser.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


@pytest.fixture(scope="module")
def day():
    """Eight teams on two of three pitches, planned 20 minutes ago: match 1 played, match 2 live
    (so pitch 2 runs late); two players on the roster."""
    with running_late_day(pitches=3, players=("Ann", "Bob"), name=TOURNAMENT) as day:
        yield day


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_tournament_speaks_the_phones_language(language, day):
    server, tournament = day
    own = catalogue(language)
    browser = LanguageBrowser(server, language)
    try:
        # The spectator's tables, bracket and results.
        browser.open("/")
        browser.live()
        browser.wait(lambda: browser.find("#tournament").is_displayed(), 15, "the tournament")
        assert own["tour.phase_groups"] in browser.text("#tournament-phase")
        speaks(browser, language, "spectator tournament")
        if language == "pt":
            browser.screenshot("lang-tournament-spectator-pt.png", full_page=True)

        # Following a team whose next match runs late.
        later = sorted((m for m in tournament["matches"] if m["pitch"] == 2 and m["status"] == "scheduled"),
                       key=lambda m: m["expectedAt"])[0]
        browser.open(f"/?team={later['home']}")
        browser.live()
        browser.wait(lambda: browser.find("#tournament-follow").is_displayed(), 15, "the followed team")
        late = round((later["expectedAt"] - later["plannedAt"]) / 60000)
        browser.wait(lambda: fill(own["tour.running_late"], minutes=late) in browser.text("#follow-next"), 10, "the delay")
        speaks(browser, language, "following a team")
        if language == "pt":
            browser.screenshot("lang-tournament-follow-pt.png", full_page=True)

        # The organiser's Tournament tab: the day, with the teams' QR codes open.
        log_in(browser)
        tap(browser, "#show-tournament")
        browser.wait(lambda: browser.driver.find_elements(By.CSS_SELECTOR, "#tournament-pitches .tpitch"), 15, "the tournament day")
        tap(browser, "#tournament-day details.manage summary")
        assert own["tour.start_match"] in browser.text("#tournament-pitches")
        speaks(browser, language, "organiser tournament day")
        if language == "de":
            browser.screenshot("lang-tournament-organiser-de.png", full_page=True)

        # Players: the roster, the selection mode, deleting asks first.
        tap(browser, "#show-players")
        browser.wait(lambda: browser.driver.find_elements(By.CSS_SELECTOR, "#player-list .player"), 10, "the roster")
        speaks(browser, language, "players")
        tap(browser, "#player-list .player .danger")
        alert = browser.wait(lambda: browser.driver.switch_to.alert, what="the confirmation")
        assert alert.text == fill(own["org.confirm_delete_player"], name="Ann"), alert.text
        alert.dismiss()
        tap(browser, "#select-toggle")
        browser.wait(lambda: browser.find("#selection-bar").is_displayed(), what="the selection bar")
        speaks(browser, language, "picking players")
        tap(browser, "#select-toggle")

        # Pitches: the manage area and its confirmation.
        tap(browser, "#pitch-manage summary")
        speaks(browser, language, "pitches")
        tap(browser, "#pitch-list li:nth-child(3) .danger")
        alert = browser.wait(lambda: browser.driver.switch_to.alert, what="the confirmation")
        assert alert.text == fill(own["org.confirm_remove_pitch"], pitch="Pitch 3"), alert.text
        alert.dismiss()
        tap(browser, "#pitch-manage summary")

        # Group: organisers, and the owner's new invite code asks first in a dialog.
        tap(browser, "#show-invite")
        browser.wait(lambda: browser.driver.find_elements(By.CSS_SELECTOR, "#organiser-list .organiser-row"), 10, "the organisers")
        speaks(browser, language, "group")
        tap(browser, "#rotate-invite")
        browser.wait(lambda: browser.find("#confirm").is_displayed(), what="the dialog")
        assert browser.text("#confirm-title") == own["org.confirm_rotate_title"]
        speaks(browser, language, "new invite code dialog")
        browser.click("#confirm-no")

        # Activity.
        tap(browser, "#show-activity")
        browser.wait(lambda: browser.driver.find_elements(By.CSS_SELECTOR, "#activity-list .activity-item"), 10, "the activity")
        speaks(browser, language, "activity")
    finally:
        browser.close()


@pytest.fixture(scope="module")
def venue():
    with venue_of_three_pitches() as server:
        yield server


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_new_tournament_form_and_its_rules_speak_the_phones_language(language, venue):
    own = catalogue(language)
    browser = LanguageBrowser(venue, language)
    try:
        log_in(browser)
        tap(browser, "#show-tournament")
        browser.wait(lambda: browser.find("#tournament-form").is_displayed(), what="the new tournament form")
        browser.fill("#tournament-form [name=name]", TOURNAMENT)
        browser.fill("#tournament-form [name=teams]", "\n".join(TEAMS8))
        browser.fill("#tournament-form [name=advance]", "5")
        tap(browser, "#tournament-preview")
        problems = browser.text("#tournament-preview-area .problems")
        assert fill(own["tour.rule_advance_most"]["other"], count=3, smallest=4) in problems, problems
        speaks(browser, language, "a broken rule")

        browser.fill("#tournament-form [name=advance]", "2")
        tap(browser, "#tournament-preview")
        browser.wait(lambda: browser.find("#tournament-create-confirm").is_displayed(), what="the preview")
        assert browser.text("#tpreview-summary").startswith(fill(own["tour.teams_count"]["other"], count=8))
        speaks(browser, language, "the preview")
        if language == "de":
            browser.screenshot("lang-tournament-preview-de.png", full_page=True)
    finally:
        browser.close()


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_invitation_and_the_trust_page_speak_the_phones_language(language, venue):
    own = catalogue(language)
    browser = LanguageBrowser(venue, language)
    try:
        browser.open(f"/organiser.html#invite={venue.invite_code}")
        browser.live()
        browser.wait(lambda: browser.find("#register-form").find_element(By.XPATH, "ancestor::section//h2").text
                     == own["org.invited_heading"], what="the invitation's heading")
        speaks(browser, language, "invited", names=DATA | {venue.invite_code})
        # The app a phone installs from here is described in its language (the name is the brand).
        manifest = browser.driver.execute_cdp_cmd("Page.getAppManifest", {})
        assert manifest["errors"] == [] and manifest["url"].endswith(f"/i18n/manifest.{language}.webmanifest"), manifest["url"]
        app = manifest["manifest"]
        assert app["name"] == "Football Gather Live" and app["startUrl"].endswith("/organiser.html")
        assert english_words([app["description"]], language) == [] and app["description"] != english_description()
        browser.open(f"/trust.html#invite={venue.invite_code}")
        browser.wait(lambda: browser.lang() == language and browser.find("#short-check").text not in ("", own["trust.loading"]),
                     what="the trust page and its fingerprint")
        assert browser.text("h1") == own["trust.heading"]
        # The fingerprint is data: hex digits ("6BE9") hold no words of any language.
        fingerprint = {browser.text("#short-check"), browser.find("#full-fingerprint").get_attribute("textContent")}
        speaks(browser, language, "trust page", names=DATA | fingerprint)
        if language == "fr":
            browser.screenshot("lang-trust-fr.png", full_page=True)
    finally:
        browser.close()


# The words the result card draws on its canvas, recorded as the page draws them.
CARD_WORDS = """
const done = arguments[arguments.length - 1];
const drawn = [];
const fillText = CanvasRenderingContext2D.prototype.fillText;
CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) { drawn.push(String(text)); return fillText.call(this, text, ...rest); };
import('/js/result-card.js').then(({ drawResultCard }) => {
  drawResultCard({ teams: { A: { name: 'Reds', score: 2 }, B: { name: 'Blues', score: 1 } }, winner: 'A', historyId: 1,
    goals: [{ team: 'A', playerId: null, matchMs: 60000 }], endedAt: Date.now() }, { pitchName: 'Pitch 2', venue: '' });
}).catch((error) => drawn.push('error: ' + error)).finally(() => {
  CanvasRenderingContext2D.prototype.fillText = fillText;
  done(drawn);
});
"""


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_result_card_speaks_the_phones_language(language, venue):
    own = catalogue(language)
    browser = LanguageBrowser(venue, language)
    try:
        browser.open("/")
        browser.live()
        drawn = browser.driver.execute_async_script(CARD_WORDS)
        assert drawn[0] == f"{own['page.full_time']} · Pitch 2", drawn
        assert fill(own["page.team_won"], team="Reds") in drawn, drawn
        assert english_words(drawn, language, DATA) == [], drawn
    finally:
        browser.close()


@pytest.fixture(scope="module")
def eight_live():
    """Sixteen teams in four groups on eight pitches, every pitch playing its first match."""
    names = ["Borussia Mönchengladbach Alt", "Sporting Clube Lusitano", "Real Sociedad Veteranos", "Olympique Lyonnais Amis",
             "Atlético Vallecano", "Juventus Nord Amatori", "Fluminense do Bairro", "Eintracht Nordend"] + \
            [f"Club {index:02}" for index in range(9, 17)]
    with GatherServer() as server:
        register_organiser(server)

        async def set_up():
            live = await connect_organiser(server)
            try:
                pitches = await add_pitches(live, 8)
                await perform(live, create_action(names, 4, 2, pitches, now_ms() - 5 * 60000, name=TOURNAMENT))
                for match in [m for m in live.snapshot["tournament"]["matches"] if m["stage"] == "group"][:8]:
                    await play(live, match["id"], 1, 0, end=False)
                return names
            finally:
                await live.close()
        yield server, run(set_up())


@pytest.mark.parametrize("language", ["de", "es"])
def test_the_projector_fits_every_page_in_german_and_spanish(language, eight_live):
    server, names = eight_live
    screen = LanguageBrowser(server, "en", width=1920, height=1080, mobile=False)
    try:
        screen.open(f"/scoreboard.html?tournament&lang={language}")
        screen.live()
        screen.wait(lambda: screen.find("#board").get_attribute("data-page"), 10, "a page")
        seen, faults = set(), []

        def check():
            # Browser.wait retries on an exception: a fault is recorded here and asserted after.
            kind, index, pages = screen.driver.execute_script(
                "const b = document.getElementById('board'); return [b.dataset.page, b.dataset.pageIndex, b.dataset.pages];")
            key = (kind, index)  # read at once: the page may turn between two reads
            if key not in seen:
                seen.add(key)
                texts = screen.visible_texts()
                faults.extend((key, fault) for fault in
                              english_left(texts, language, set(names) | DATA) + english_words(texts, language, set(names) | DATA)
                              + screen.clipped_text() + screen.cut_content())
                if screen.lang() != language:
                    faults.append((key, screen.lang()))
                if language == "es":
                    screen.screenshot(f"lang-projector-tournament-es-{key[0]}-{key[1]}.png")
            return len(seen) >= int(pages)
        screen.wait(check, 45, "every page of the day")
        assert faults == [], "\n".join(map(str, faults))
        assert {kind for kind, _ in seen} == {"now", "tables", "bracket"}, seen
    finally:
        screen.close()


def test_the_duplicate_question_in_french_at_360():
    async def maria_scores(server):
        live = await organiser(server, "maria")
        try:
            return await send(live, {"kind": "score", "team": "A", "delta": 1})
        finally:
            await live.close()

    with GatherServer() as server:
        register_organiser(server)
        ann_and_bob_playing(server, team_b="Whites")
        own = catalogue("fr")
        browser = LanguageBrowser(server, "fr")
        try:
            log_in(browser)
            tap(browser, "#show-gather")
            browser.wait(lambda: browser.find("#match").is_displayed(), what="the match")
            run(maria_scores(server))
            browser.wait(lambda: browser.text("#match-a-score") == "1", what="maria's goal")
            tap(browser, "[data-score=A][data-delta='1']")
            browser.wait(lambda: browser.find("#duplicate").is_displayed(), what="the question")
            question = browser.text("#duplicate-text")
            # "maria a ajouté un but pour Team A il y a 3 s. En ajouter un autre ?": the server's sentence in French.
            assert question.startswith("maria ") and "added a goal" not in question, question
            assert own["org.add_another"] in browser.text("#duplicate-add")
            for css in ("#duplicate-add", "#duplicate-skip"):
                size = browser.find(css).size
                assert size["height"] >= 44 and size["width"] >= 44, css
            speaks(browser, "fr", "the duplicate question", names=DATA | {"maria", "Team A", "Whites"})
            browser.screenshot("lang-duplicate-fr.png")
        finally:
            browser.close()
