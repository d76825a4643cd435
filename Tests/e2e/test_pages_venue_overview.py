"""The venue overview (`/scoreboard.html?pitch=all`) laid out from the number of live pitches:
for 1, 2, 3, 4, 6, 8 and 16 pitches with the longest names the server allows, every card's text
lies inside its card and inside the screen, no card covers another or the QR corner, no word is
broken, and scores and names stay at least 3 % of the screen's height (readable from 10 m), at
1920×1080 and 1280×720. Screenshots: Tests/e2e/artifacts/venue-overview-N-WxH.png."""
import pytest
from selenium.webdriver.common.by import By

from gatherlib import GatherServer
from pages_support import Browser, register_organiser
from screens_support import broken_words, kick_off, long_venue, venue_boxes

COUNTS = (1, 2, 3, 4, 6, 8, 16)
SCREENS = ((1920, 1080), (1280, 720))
SHARE = 0.03


@pytest.fixture(scope="module")
def venue():
    with GatherServer() as server:
        register_organiser(server)
        pitches, players = long_venue(server, max(COUNTS))
        yield server, pitches, players


def test_the_overview_shows_every_count_of_pitches_whole_and_readable(venue):
    server, pitches, players = venue
    screens = [Browser(server, width, height, mobile=False) for width, height in SCREENS]
    try:
        for screen in screens:
            screen.open("/scoreboard.html?pitch=all")
            screen.wait_text("#connection", "Live")
        live = 0
        report = []
        for count in COUNTS:
            kick_off(server, pitches, players, live + 1, count)
            live = count
            for screen in screens:
                screen.wait(lambda s=screen: len(s.driver.find_elements(By.CSS_SELECTOR, "#venue .venue-pitch")) == count
                            and all(e.text != "--:--" for e in s.driver.find_elements(By.CSS_SELECTOR, ".venue-clock")),
                            15, f"{count} cards")
                # First with the new goals' scorers flashing, then as it stays once the flashes end.
                for moment in ("goal", "steady"):
                    if moment == "steady":
                        screen.wait(lambda s=screen: not s.driver.find_elements(By.CSS_SELECTOR, "[data-flash='true']"),
                                    15, "the flashes to end")
                    check(screen, count, moment, report)
        print("\n" + "\n".join(report))
    finally:
        for screen in screens:
            screen.close()


def check(screen, count, moment, report):
    boxes = venue_boxes(screen)
    size = f"{screen.width}x{screen.height}"
    screen.screenshot(f"venue-overview-{count}-{size}{'' if moment == 'steady' else '-goal'}.png")
    smallest = {key: min(values) if values else None for key, values in boxes["sizes"].items()}
    report.append(f"{count:2} pitches at {size} ({moment}): {boxes['layout']}; smallest px {smallest}")
    assert boxes["cards"] == count
    assert boxes["problems"] == [], (count, size, boxes["problems"])
    minimum = screen.height * SHARE
    for key in ("names", "teams", "scores"):
        assert len(boxes["sizes"][key]) >= count and min(boxes["sizes"][key]) >= minimum, (count, size, key, boxes["sizes"])
    assert broken_words(screen, "#venue") == [], (count, size)
    assert screen.scroll_width() <= screen.width and screen.cut_content() == [], (count, size, screen.cut_content())
    assert screen.console_errors() == []
