"""A co-organiser's first minute, from the laptop's terminal to the match being played: the banner
shows both QR codes, labelled (spectators; organisers with the invite); the organisers' one leads
to the trust steps, then to "New organiser" first with the code filled in, and after Register
straight to the pitch whose match is live (not to Players).
Screenshots: Tests/e2e/artifacts/invite-*.png."""
import re

from selenium.webdriver.common.by import By

from gatherlib import GatherServer, PASSWORD
from pages_support import organiser, perform, play, register_organiser, run

QR_LINE = re.compile(r"^  [█▄▀ ]{20,}$")


def banner_qr_codes(server) -> list[tuple[str, str, int]]:
    """(label, url, lines of QR code) for each QR code the banner prints."""
    codes, current = [], None
    for line in server.output:
        found = re.match(r"^  (SPECTATORS|ORGANISERS) scan this .*: (\S+)$", line)
        if found:
            current = [found.group(1), found.group(2), 0]
            codes.append(current)
        elif current is not None and QR_LINE.match(line):
            current[2] += 1
        else:
            current = None
    return [tuple(code) for code in codes]


def test_from_the_banners_qr_to_the_live_match(browsers):
    with GatherServer() as server:
        register_organiser(server)

        async def second_pitch_live():
            live = await organiser(server)
            try:
                await perform(live, {"kind": "addPitch", "name": "North (grass)"})
                for name in ("Ann", "Bob"):
                    await perform(live, {"kind": "addPlayer", "name": name})
                ids = [player["id"] for player in live.snapshot["players"]]
                await play(live, 2, [ids[0]], [ids[1]], names=("Reds", "Blues"), goals=[("A", ids[0], None)])
            finally:
                await live.close()
        run(second_pitch_live())

        codes = banner_qr_codes(server)
        labels = [label for label, _, _ in codes]
        assert labels == ["SPECTATORS", "ORGANISERS"], server.output
        assert all(lines >= 10 for _, _, lines in codes), codes
        spectators, invite = codes[0][1], codes[1][1]
        assert spectators == f"{server.base_url}/"
        assert invite == f"{server.base_url}/trust.html#invite={server.invite_code}"

        phone = browsers(server, 390, 844)
        phone.driver.get(invite)
        phone.wait(lambda: phone.find("#organiser-link").get_attribute("href").endswith(f"#invite={server.invite_code}"),
                   what="the trust page handing the code on")
        phone.screenshot("invite-1-trust-390.png")
        phone.click("#organiser-link")
        phone.wait_text("#connection", "Live")
        sections = phone.driver.find_elements(By.CSS_SELECTOR, "#signed-out > section")
        assert sections[0].find_element(By.CSS_SELECTOR, "form").get_attribute("id") == "register-form", "Register comes first"
        code = phone.find("#register-form [name=inviteCode]")
        assert code.get_attribute("value") == server.invite_code
        assert code.rect["y"] + code.rect["height"] <= 844, "the code is on the first screen"
        assert phone.find("#register-form button[type=submit]").rect["y"] + 44 <= 844, "Register is on the first screen"
        phone.screenshot("invite-2-register-390.png")
        assert phone.axe() == []

        phone.fill("#register-form [name=username]", "marco")
        phone.fill("#register-form [name=password]", PASSWORD)
        phone.click("#register-form button[type=submit]")
        phone.wait(lambda: phone.find("#signed-in").is_displayed(), what="the console")
        phone.wait(lambda: phone.find("#tab-gather").is_displayed() and phone.find("#match").is_displayed(),
                   what="the live match, not Players")
        assert phone.find("#pitch-select").get_attribute("value") == "2"
        assert phone.text("#match-a-name") == "Reds" and phone.text("#match-a-score") == "1"
        phone.screenshot("invite-3-live-match-390.png")
        assert phone.axe() == [] and phone.console_errors() == []
