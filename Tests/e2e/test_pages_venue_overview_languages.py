"""The venue overview on the projector (1920×1080) with 8 live pitches, in each of the six
languages (`?lang=`): the longest names the server allows, every card's text inside its card
and the screen, no word broken, names and scores at least 3 % of the screen's height, and the
page's own words from that language's catalogue. Screenshots:
Tests/e2e/artifacts/venue-overview-8-<lang>.png."""
import json
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from gatherlib import GatherServer
from pages_support import Browser, register_organiser
from screens_support import broken_words, kick_off, long_venue, venue_boxes

LANGUAGES = ("en", "es", "pt", "fr", "de", "it")
PITCHES = 8
WIDTH, HEIGHT = 1920, 1080
I18N = Path(__file__).resolve().parents[2] / "Public" / "i18n"


@pytest.fixture(scope="module")
def eight_live():
    with GatherServer() as server:
        register_organiser(server)
        pitches, players = long_venue(server, PITCHES)
        kick_off(server, pitches, players, 1, PITCHES)
        yield server


@pytest.mark.parametrize("language", LANGUAGES)
def test_eight_live_pitches_read_whole_on_the_projector_in_every_language(eight_live, language):
    catalogue = json.loads((I18N / f"{language}.json").read_text())
    screen = Browser(eight_live, WIDTH, HEIGHT, mobile=False)
    try:
        screen.open(f"/scoreboard.html?pitch=all&lang={language}")
        screen.wait(lambda: len(screen.driver.find_elements(By.CSS_SELECTOR, "#venue .venue-pitch")) == PITCHES
                    and all(e.text != "--:--" for e in screen.driver.find_elements(By.CSS_SELECTOR, ".venue-clock"))
                    and not screen.driver.find_elements(By.CSS_SELECTOR, "[data-flash='true']"),
                    20, f"{PITCHES} live cards")
        assert screen.driver.execute_script("return document.documentElement.lang") == language
        assert catalogue["page.live"] in screen.text("#connection")
        screen.screenshot(f"venue-overview-{PITCHES}-{language}.png")
        boxes = venue_boxes(screen)
        assert boxes["cards"] == PITCHES and boxes["problems"] == [], boxes["problems"]
        for key in ("names", "teams", "scores"):
            assert min(boxes["sizes"][key]) >= HEIGHT * 0.03, (key, boxes["sizes"][key])
        assert broken_words(screen, "body") == []
        assert screen.scroll_width() <= WIDTH and screen.cut_content() == [], screen.cut_content()
        assert screen.console_errors() == []
    finally:
        screen.close()
