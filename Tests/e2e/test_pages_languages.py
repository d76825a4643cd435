"""Every phone in its own language: Chromium with its language set (`--lang` and the
`intl.accept_languages` pref) and Chrome's mobileEmulation at 360 px, one browser per language.
For each of es, pt, fr, de, it: the spectator page speaks it (`<html lang>`, no sentence of the
English catalogue left visible apart from names and numbers), slides nowhere, its language picker
is a 44 px target and axe finds nothing; the organiser's console is localised mid-match; a
username rule is shown in Spanish; the choice made on the picker is kept across a reload.
Screenshots: Tests/e2e/artifacts/lang-*.png."""
from __future__ import annotations

import pytest

from gatherlib import PASSWORD, GatherServer
from languages_support import WIDTH, LanguageBrowser, catalogue, english_left, english_words
from pages_support import ORGANISER, ann_and_bob_playing, register_organiser, spilling_controls
from screens_support import broken_words


@pytest.fixture(scope="module")
def playing():
    with GatherServer() as server:
        register_organiser(server)
        ann_and_bob_playing(server)
        yield server


@pytest.mark.parametrize("language", ["es", "pt", "fr", "de", "it"])
def test_the_pages_speak_the_phones_language(language, playing):
    browser = LanguageBrowser(playing, language)
    try:
        browser.open("/")
        browser.live()
        browser.wait(lambda: browser.find("#phase").text not in ("", catalogue(language)["page.waiting_for_match"]),
                     what="the match")
        assert browser.driver.execute_script("return navigator.languages[0]").startswith(language)
        assert browser.lang() == language
        assert english_left(browser.visible_texts(), language) == []
        assert english_words(browser.visible_texts(), language) == []
        assert browser.scroll_width() <= WIDTH
        picker = browser.find("#language-switch")
        assert picker.size["height"] >= 44 and picker.size["width"] >= 44
        assert browser.axe() == []
        if language == "pt":
            browser.screenshot("lang-spectator-pt.png", full_page=True)

        browser.open("/organiser.html")
        browser.live()
        assert browser.lang() == language
        browser.fill("#login-form [name=username]", ORGANISER)
        browser.fill("#login-form [name=password]", PASSWORD)
        browser.click("#login-form button[type=submit]")
        browser.wait(lambda: browser.find("#signed-in").is_displayed(), what="the organiser console")
        assert browser.scroll_width() <= WIDTH
        assert browser.find("[data-i18n='org.log_out']").text == catalogue(language)["org.log_out"]
        browser.click("#show-gather")
        browser.wait(lambda: browser.find("#match-pitch").is_displayed(), what="the match being played")
        assert catalogue(language)["page.live"] in browser.find("#match-pitch").text
        assert english_left(browser.visible_texts(), language) == []
        assert english_words(browser.visible_texts(), language) == []
        assert broken_words(browser, "button") == [] and spilling_controls(browser) == []
        assert browser.scroll_width() <= WIDTH
        if language == "de":
            browser.screenshot("lang-organiser-de.png")
            browser.screenshot("lang-organiser-de-full.png", full_page=True)
    finally:
        browser.close()


def test_a_rejection_is_shown_in_spanish_and_a_chosen_language_is_kept(playing):
    browser = LanguageBrowser(playing, "es")
    try:
        browser.open("/organiser.html")
        browser.live()
        browser.fill("#register-form [name=username]", "b!")
        browser.driver.execute_script("document.querySelector('#register-form [name=username]').removeAttribute('pattern');"
                                      "document.querySelector('#register-form [name=username]').removeAttribute('minlength')")
        browser.fill("#register-form [name=password]", PASSWORD)
        browser.fill("#register-form [name=inviteCode]", playing.invite_code)
        browser.click("#register-form button[type=submit]")
        spanish = catalogue("es")["server.username_rule"]
        browser.wait(lambda: browser.find("#notice").text == spanish, what="the username rule in Spanish")
        browser.screenshot("lang-rejection-es.png")

        browser.driver.execute_script("const s = document.getElementById('language-switch'); s.value = 'fr';"
                                      "s.dispatchEvent(new Event('change'))")
        browser.wait(lambda: browser.lang() == "fr", what="the page in French")
        browser.driver.refresh()
        browser.wait(lambda: browser.lang() == "fr", what="French after a reload")
        assert browser.find("[data-i18n='org.log_in']").text == catalogue("fr")["org.log_in"]
        browser.open("/")
        browser.wait(lambda: browser.lang() == "fr", what="French on every page of this phone")
    finally:
        browser.close()


def test_the_projector_takes_its_language_from_the_address(playing):
    browser = LanguageBrowser(playing, "en", width=1920, height=1080, mobile=False)
    try:
        browser.open("/scoreboard.html?pitch=1&lang=es")
        browser.live()
        assert browser.lang() == "es"
        assert english_left(browser.visible_texts(), "es") == []
        assert browser.cut_content() == []
        browser.screenshot("lang-projector-es.png")
    finally:
        browser.close()
