"""Picking players while other pitches play: the free players first, the busy ones folded under
"Playing on North pitch (16)"; and after "Add player" the cursor stays in the name field for the
next name. Screenshot: Tests/e2e/artifacts/picking-360.png."""
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from gatherlib import GatherServer, PASSWORD
from pages_support import ORGANISER, PITCH_NAMES, busy_venue, organiser, perform, run


def test_free_players_come_first_and_busy_ones_are_folded_by_pitch(browsers):
    with GatherServer() as server:
        busy_venue(server)  # 16 players on North pitch, 12 on South pitch, 2 free

        async def third_pitch():
            live = await organiser(server)
            try:
                await perform(live, {"kind": "addPitch", "name": "Back pitch"})
                return next(p["id"] for p in live.snapshot["pitches"] if p["name"] == "Back pitch")
            finally:
                await live.close()
        back = run(third_pitch())
        phone = browsers(server, 360, 640).login(ORGANISER, PASSWORD)
        Select(phone.find("#pitch-select")).select_by_value(str(back))
        phone.click("#select-toggle")
        phone.wait(lambda: phone.find("#selection-bar").is_displayed(), what="selecting")
        items = phone.driver.find_elements(By.CSS_SELECTOR, "#player-list > li")
        free = [item for item in items if "player" in item.get_attribute("class").split()]
        folds = [item for item in items if "busy-fold" in item.get_attribute("class").split()]
        assert len(free) == 2 and items[:2] == free, "the free players first"
        assert all(item.find_element(By.CSS_SELECTOR, "input[type=checkbox]").is_enabled() for item in free)
        assert [fold.find_element(By.TAG_NAME, "summary").text for fold in folds] == [
            f"Playing on {PITCH_NAMES[0]} (16)", f"Playing on {PITCH_NAMES[1]} (12)"]
        assert not any(fold.find_element(By.TAG_NAME, "details").get_attribute("open") for fold in folds), "folded"
        assert all(not row.is_displayed() for row in folds[0].find_elements(By.CSS_SELECTOR, "li.player"))
        phone.screenshot("picking-360.png", full_page=True)
        folds[0].find_element(By.TAG_NAME, "summary").click()
        busy = folds[0].find_elements(By.CSS_SELECTOR, "li.player")
        assert len(busy) == 16 and busy[0].is_displayed()
        assert not busy[0].find_element(By.CSS_SELECTOR, "input[type=checkbox]").is_enabled()
        assert phone.scroll_width() <= 360 and phone.cut_content() == []
        assert phone.axe() == []

        # Adding players one after another: the cursor stays in the name field.
        phone.click("#select-toggle")
        name = phone.find("#player-form [name=name]")
        for new in ("Zoë Ferreira-Núñez", "Yann Le Gall"):
            phone.fill("#player-form [name=name]", new)
            phone.click("#player-save")
            phone.wait(lambda n=new: any(e.text == n for e in phone.driver.find_elements(By.CSS_SELECTOR, "#player-list .who strong")),
                       what=f"{new} in the list")
            phone.wait(lambda: phone.driver.switch_to.active_element == name and name.get_attribute("value") == "",
                       what="the cursor back in an empty name field")
