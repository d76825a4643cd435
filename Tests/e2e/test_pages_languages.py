"""Every phone in its own language: Chromium with its language set (`--lang` and the
`intl.accept_languages` pref) and Chrome's mobileEmulation at 360 px, one browser per language.
For each of es, pt, fr, de, it: the spectator page speaks it (`<html lang>`, no sentence of the
English catalogue left visible apart from names and numbers), slides nowhere, its language picker
is a 44 px target and axe finds nothing; the organiser's console is localised mid-match; a
username rule is shown in Spanish; the choice made on the picker is kept across a reload.
Screenshots: Tests/e2e/artifacts/lang-*.png."""
from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from gatherlib import PASSWORD, GatherServer
from pages_support import (Browser, ORGANISER, ann_and_bob_playing, chromedriver_binary, chromium_binary,
                           register_organiser, spilling_controls, spki_pin)
from screens_support import broken_words

ROOT = Path(__file__).resolve().parents[2]
WIDTH, HEIGHT = 360, 640
# Names and numbers the state itself carries (the server's default names are data, not page text).
NAMES = {"Ann", "Bob", "Team A", "Team B", "Pitch 1", ORGANISER}

VISIBLE_TEXTS = """
const out = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const node = walker.currentNode, el = node.parentElement, text = node.textContent.trim();
  if (!text || !el || el.closest('[hidden], .visually-hidden, script, style, option')) continue;
  const style = getComputedStyle(el), box = el.getBoundingClientRect();
  if (style.display === 'none' || style.visibility === 'hidden' || (box.width === 0 && box.height === 0)) continue;
  out.push(text);
}
return out;
"""


class LanguageBrowser(Browser):
    """A phone whose browser language is `language`, as a phone set to it would be."""

    def __init__(self, server, language: str, width: int = WIDTH, height: int = HEIGHT, mobile: bool = True):
        self.width, self.height, self.mobile = width, height, mobile
        self.profile = tempfile.TemporaryDirectory(prefix="gather-chromium-")
        options = webdriver.ChromeOptions()
        options.binary_location = chromium_binary()
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--no-first-run", "--disable-background-networking", "--disable-component-update",
                         f"--user-data-dir={self.profile.name}", f"--window-size={width},{height}", f"--lang={language}",
                         f"--ignore-certificate-errors-spki-list={spki_pin(os.path.join(server.cert_dir, 'server.pem'))}"):
            options.add_argument(argument)
        options.add_experimental_option("prefs", {"intl.accept_languages": language})
        if mobile:
            options.add_experimental_option("mobileEmulation", {
                "deviceMetrics": {"width": width, "height": height, "pixelRatio": 3.0}})
        else:
            options.add_argument(f"--window-size={width},{height}")
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(chromedriver_binary()), options=options)
        self.driver.set_page_load_timeout(20)
        if not mobile:
            self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.server = server

    def live(self):
        self.wait(lambda: self.find("#connection").get_attribute("data-status") == "live", what="a live connection")

    def lang(self) -> str:
        return self.driver.execute_script("return document.documentElement.lang")

    def visible_texts(self) -> list[str]:
        return self.driver.execute_script(VISIBLE_TEXTS)


def catalogue(language: str) -> dict:
    return json.loads((ROOT / "Public" / "i18n" / f"{language}.json").read_text(encoding="utf-8"))


def english_left(texts: list[str], language: str) -> list[str]:
    """Visible texts that are a sentence of the English catalogue where `language` says it otherwise."""
    english, own = catalogue("en"), catalogue(language)
    sentences = set()
    for key, entry in english.items():
        if isinstance(entry, str) and own[key] != entry:
            text = re.sub(r"\{\w+\}", "", entry).strip(" :·…().")
            if len(text) >= 4:
                sentences.add(text)
    return [text for text in texts
            if text not in NAMES and (text.strip(" :·…().") in sentences
                                      or any(len(s.split()) > 2 and s in text for s in sentences))]


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
