"""The console's Group and Activity views on a phone (Chromium at 390 px, mobileEmulation): who
organises and the owner's Remove / Make owner with a confirmation naming the person, rotating the
invite code with its new QR code, changing a password, logging out everywhere, and the activity
list paging back. axe-core finds nothing, every control is at least 44×44 px. Screenshots go to
/tmp/shots-organisers/ for people to look at."""
import asyncio
from pathlib import Path

from selenium.webdriver.common.by import By

from gatherlib import PASSWORD, GatherServer, Live, run
from pages_support import ORGANISER, organiser, perform

SHOTS = Path("/tmp/shots-organisers")

SMALL_TARGETS = """
const [scope] = arguments;
return [...document.querySelectorAll(scope + ' button, ' + scope + ' input, ' + scope + ' select')]
  .filter((el) => { const s = getComputedStyle(el); const b = el.getBoundingClientRect();
                    return s.display !== 'none' && s.visibility !== 'hidden' && b.width > 0; })
  .filter((el) => { const b = el.getBoundingClientRect(); return b.width < 44 || b.height < 44; })
  .map((el) => (el.id || el.textContent.trim() || el.name) + ' ' + Math.round(el.getBoundingClientRect().width)
                + 'x' + Math.round(el.getBoundingClientRect().height));
"""


def shot(browser, name: str):
    browser.screenshot(name, directory=SHOTS)


def full_shot(browser, name: str):
    browser.screenshot(name, full_page=True, directory=SHOTS, full_scale=1)


def clean(browser, scope: str):
    assert browser.axe() == [], [v["id"] for v in browser.axe()]
    assert browser.driver.execute_script(SMALL_TARGETS, scope) == []
    assert browser.scroll_width() <= browser.width
    assert browser.console_errors() == []


async def bob_and_a_match(server) -> Live:
    """The owner (captain) plays a little; bob joins and scores, and stays connected."""
    captain = await organiser(server)
    for name in ("Ann", "Bob", "Cid", "Dee"):
        await perform(captain, {"kind": "addPlayer", "name": name})
    await perform(captain, {"kind": "createGather", "playerIds": [1, 2, 3, 4]})
    for pid, team in ((1, "A"), (2, "A"), (3, "B"), (4, "B")):
        await perform(captain, {"kind": "assign", "playerId": pid, "to": team})
    await perform(captain, {"kind": "renameTeam", "team": "A", "name": "Whites"})
    await perform(captain, {"kind": "startGather"})
    await captain.close()
    bob = await Live.connect(server)
    await bob.next()
    assert (await bob.register("bob"))["role"] == "organiser"
    for _ in range(12):
        await perform(bob, {"kind": "score", "team": "A", "delta": 1, "playerId": 1, "assistId": 2})
    return bob


def owner_beside_bob(server, browsers):
    """An event loop, bob online after a match of 12 goals, and the owner's phone page logged in."""
    loop = asyncio.new_event_loop()
    bob = loop.run_until_complete(bob_and_a_match(server))
    return loop, bob, browsers(server, 390, 844).login(ORGANISER, PASSWORD)


def tab_rows(page, tab: str, selector: str, count: int, what: str) -> list:
    """Opens the organiser tab `tab` and returns its `count` list rows once they are all shown."""
    page.click(f"[data-tab={tab}]")
    page.wait(lambda: len(page.driver.find_elements(By.CSS_SELECTOR, selector)) == count, what=what)
    return page.driver.find_elements(By.CSS_SELECTOR, selector)


def test_the_owner_sees_the_group_removes_with_a_named_confirmation_and_rotates_the_code(browsers):
    with GatherServer() as server:
        loop, bob, page = owner_beside_bob(server, browsers)
        rows = tab_rows(page, "invite", "#organiser-list li", 2, "the list")
        assert "captain" in rows[0].text and "owner" in rows[0].text and "(you)" in rows[0].text
        assert "online now" in rows[0].text and "online now" in rows[1].text
        assert rows[0].find_elements(By.CSS_SELECTOR, "button") == []
        assert [b.text for b in rows[1].find_elements(By.CSS_SELECTOR, "button")] == ["Make owner", "Remove"]
        assert page.find("#rotate-invite").is_displayed()
        assert page.text("#invite-code") == server.invite_code
        assert page.find("#invite-qr").get_attribute("src").endswith(f"/qr.svg?invite={server.invite_code}")
        clean(page, "#tab-invite")
        full_shot(page, "group-owner-390.png")

        # Remove bob: the question names him; his phone becomes a spectator at once.
        rows[1].find_element(By.XPATH, ".//button[text()='Remove']").click()
        page.wait(lambda: page.find("#confirm").is_displayed(), what="the confirmation")
        assert page.text("#confirm-title") == "Remove bob?"
        assert page.text("#confirm-yes") == "Remove bob"
        clean(page, "#confirm")
        shot(page, "group-remove-confirm-390.png")
        page.click("#confirm-yes")
        ended = loop.run_until_complete(bob.until(lambda m: m["type"] == "session", timeout=5))
        assert ended == {"type": "session", "role": "spectator", "reason": "removed"}
        page.wait(lambda: len(page.driver.find_elements(By.CSS_SELECTOR, "#organiser-list li")) == 1, what="bob gone")
        page.wait(lambda: "no longer an organiser" in page.text("#notice"), what="the notice")

        # Rotate the code: the old one stops at once, the QR code carries the new one.
        old = server.invite_code
        page.click("#rotate-invite")
        page.wait(lambda: page.find("#confirm").is_displayed(), what="the confirmation")
        assert page.text("#confirm-yes") == "New invite code"
        page.click("#confirm-yes")
        page.wait(lambda: page.text("#invite-code") not in ("", old), what="a new code")
        new = page.text("#invite-code")
        assert f"invite={new}" in page.find("#invite-qr").get_attribute("src")
        page.wait(lambda: page.driver.execute_script(
            "const i = document.querySelector('#invite-qr'); return i.complete && i.naturalWidth > 0;"), what="the QR")
        shot(page, "group-rotated-390.png")
        # The QR code is the organiser page with the code after '#': a new code, a new picture.
        codes_drawn = {code: server.get(f"/qr.svg?invite={code}") for code in (old, new)}
        assert all(status == 200 for status, _, _ in codes_drawn.values())
        assert codes_drawn[old][2] != codes_drawn[new][2]
        assert codes_drawn[new][2] != server.get("/qr.svg?page=organiser")[2]

        async def codes():
            live = await Live.connect(server)
            await live.next()
            assert (await live.register("eve", invite=old))["code"] == "bad_invite"
            assert (await live.register("eve", invite=new))["role"] == "organiser"
            await live.close()
        loop.run_until_complete(codes())
        loop.run_until_complete(bob.close())
        loop.close()


def test_activity_shows_who_did_what_newest_first_and_pages_back(browsers):
    with GatherServer() as server:
        loop, bob, page = owner_beside_bob(server, browsers)
        first = tab_rows(page, "activity", "#activity-list li", 20, "a page")[0].text
        assert "Added a goal for Whites (Ann, assist Bob)" in first and "bob" in first
        assert page.find("#activity-older").is_displayed()
        clean(page, "#tab-activity")
        full_shot(page, "activity-390.png")
        page.click("#activity-older")
        page.wait(lambda: len(page.driver.find_elements(By.CSS_SELECTOR, "#activity-list li")) == 23, what="older")
        items = page.driver.find_elements(By.CSS_SELECTOR, "#activity-list li")
        assert "Added Ann to the roster" in items[-1].text and "captain" in items[-1].text
        assert not page.find("#activity-older").is_displayed()
        shot(page, "activity-older-390.png")
        loop.run_until_complete(bob.close())
        loop.close()


def test_an_organiser_changes_their_password_and_logs_out_everywhere(browsers):
    with GatherServer() as server:
        async def set_up():
            await (await organiser(server)).close()
            live = await Live.connect(server)
            await live.next()
            assert (await live.register("bob"))["role"] == "organiser"
            return live
        loop = asyncio.new_event_loop()
        tablet = loop.run_until_complete(set_up())
        page = browsers(server, 390, 844).login("bob", PASSWORD)
        page.click("[data-tab=invite]")
        page.wait(lambda: len(page.driver.find_elements(By.CSS_SELECTOR, "#organiser-list li")) == 2, what="the list")
        assert not page.find("#rotate-invite").is_displayed()
        assert page.driver.find_elements(By.CSS_SELECTOR, "#organiser-list button") == []
        clean(page, "#tab-invite")
        full_shot(page, "group-organiser-390.png")

        page.fill("#password-form [name=currentPassword]", "not my password")
        page.fill("#password-form [name=newPassword]", "a brand new secret")
        page.click("#password-form button[type=submit]")
        page.wait(lambda: page.text("#notice") == "That is not your current password.", what="the refusal")
        page.fill("#password-form [name=currentPassword]", PASSWORD)
        page.fill("#password-form [name=newPassword]", "a brand new secret")
        page.click("#password-form button[type=submit]")
        page.wait(lambda: "Password changed; 1 other session logged out" in page.text("#notice"), what="the change")
        ended = loop.run_until_complete(tablet.until(lambda m: m["type"] == "session", timeout=5))
        assert ended["reason"] == "password_changed"
        shot(page, "group-password-changed-390.png")

        page.click("#logout-everywhere")
        page.wait(lambda: page.find("#confirm").is_displayed(), what="the confirmation")
        assert page.text("#confirm-title") == "Log out everywhere?"
        page.click("#confirm-yes")
        page.wait(lambda: page.find("#signed-out").is_displayed(), what="logged out")
        page.wait(lambda: page.text("#notice") == "You logged out everywhere.", what="the notice")
        shot(page, "logged-out-everywhere-390.png")
        loop.run_until_complete(tablet.close())
        loop.close()
