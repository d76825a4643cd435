"""The club's pages (issue 43) against the real club: two `gather club serve` instances on a
private PostgreSQL behind nginx (Tests/e2e/clublib.py), headless Chromium at 360 and 390 px.

- A member's page with an open offer, in English and in Spanish: the count, the offer with its
  time and countdown, Claim / Pass; no sideways scroll, tap targets >= 44 px, axe 0; screenshots
  club-member-offer-*.png. Claim confirms the place (the API says so), and a change made by the
  organiser shows on the page by itself (live).
- A link from a mail (`?date=ID&answer=in`) only asks; nothing changes until the member says yes.
- The organisers' date view with a waitlist (positions in order, confirmed, not answered, out,
  the group-chat message), answering for someone, cancelling the date, adding a member (the link
  and its QR code); screenshots club-organiser-*.png.
"""
from __future__ import annotations

import json
import re
import time
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import pytest
from selenium.webdriver.support.ui import Select

from clublib import club, club_factory, club_postgres, new_id  # noqa: F401  (the fixtures)
from gatherlib import PASSWORD
from pages_support import Browser
from test_tap_targets import DESTRUCTIVE_GAP, MEASURE, MINIMUM

ROOT = Path(__file__).resolve().parents[2]
OWNER = "captain"


def words(language: str) -> dict:
    return json.loads((ROOT / "Public" / "i18n" / f"club.{language}.json").read_text(encoding="utf-8"))


def ok(response):
    status, body = response
    assert status == 200, body
    return body


class Week:
    """A club with one weekly game whose first date is open for answers, and its members."""

    def __init__(self, club, capacity: int, names: list[str]):
        self.club = club
        self.owner = club.register_owner(username=OWNER, password=PASSWORD)
        self.zone = ZoneInfo(self.organiser("GET", "/club/api/club")["timeZone"])
        # A date a day or two ahead, answers open for two weeks before it: open now.
        weekday = (datetime.now(self.zone) + timedelta(days=2)).isoweekday()
        fixture = self.organiser("POST", "/club/api/fixtures", {
            "title": "Sunday 7-a-side", "weekday": weekday, "time": "10:00", "durationMinutes": 60,
            "place": "Riverside", "capacity": capacity, "opensHoursBefore": 336})["fixture"]
        self.tokens, self.ids = {}, {}
        for name in names:
            added = self.organiser("POST", "/club/api/members", {"name": name})
            path = urlsplit(added["link"]).path
            assert re.fullmatch(r"/club/m/[A-Za-z0-9_-]{22}", path), added["link"]
            self.tokens[name] = path.rsplit("/", 1)[1]
            self.ids[name] = str(added["member"]["id"])
        dates = [date for date in self.organiser("GET", "/club/api/club")["dates"]
                 if str(date["fixtureId"]) == str(fixture["id"]) and date["status"] == "scheduled"]
        self.date = min(dates, key=lambda date: date["startsAt"])
        self.date_id = str(self.date["id"])

    def organiser(self, method: str, path: str, body: dict | None = None):
        if body is not None:
            body = {"id": new_id(), **body}
        return ok(self.club.api(method, path, body, token=self.owner))

    def answer(self, name: str, answer: str, guests: int = 0) -> dict:
        return ok(self.club.api("POST", f"/club/api/m/{self.tokens[name]}/answer",
                                {"id": new_id(), "date": self.date_id, "answer": answer, "guests": guests}))["date"]

    def mine(self, name: str) -> dict:
        view = ok(self.club.api("GET", f"/club/api/m/{self.tokens[name]}"))
        return next(date for date in view["dates"] if str(date["id"]) == self.date_id)

    def organisers_date(self) -> dict:
        return self.organiser("GET", f"/club/api/dates/{self.date_id}")

    def page(self, name: str) -> str:
        return f"/club/m/{self.tokens[name]}"


def thumbs_and_axe(browser: Browser, width: int, where: str):
    """No sideways scroll, every visible control a thumb's size (danger kept apart), axe 0."""
    assert browser.scroll_width() <= width, f"{where}: the page scrolls sideways"
    small, crowded, count = browser.driver.execute_script(MEASURE, MINIMUM, DESTRUCTIVE_GAP, {})
    assert count > 0
    assert small == [], f"{where}: controls under {MINIMUM}x{MINIMUM}: {small}"
    assert crowded == [], f"{where}: {crowded}"
    violations = browser.axe()
    assert violations == [], f"{where}: " + "; ".join(f"{v['id']}: {[n['target'] for n in v['nodes']]}" for v in violations)


def english_left(browser: Browser, language: str) -> list[str]:
    """English sentences of the club's catalogue still on a page meant to be in `language`."""
    english, own = words("en"), words(language)
    shown = browser.driver.execute_script("return document.body.innerText")
    return [text for key, text in english.items()
            if isinstance(text, str) and "{" not in text and len(text) > 3 and text != own.get(key)
            and re.search(rf"(?<!\w){re.escape(text)}(?!\w)", shown)]


def offer_week(club) -> Week:
    """Capacity 2: Ann and Bob in, Chidimma and Dmitri waiting; Bob drops out, so Chidimma is offered."""
    week = Week(club, capacity=2, names=["Ann", "Bob", "Chidimma", "Dmitri"])
    for name in ("Ann", "Bob", "Chidimma", "Dmitri"):
        week.answer(name, "in")
    week.answer("Bob", "out")
    mine = week.mine("Chidimma")["mine"]
    assert mine["state"] == "offered" and mine["offerExpiresAt"] > time.time() * 1000, mine
    return week


def count_line(date: dict, language: str) -> str:
    said = words(language)
    line = said["count.in"].replace("{confirmed}", str(date["confirmedSeats"])).replace("{capacity}", str(date["capacity"]))
    if date["waiting"]:
        waiting = said["count.waiting"]
        form = waiting["one"] if date["waiting"] == 1 and "one" in waiting else waiting["other"]
        line += " · " + form.replace("{count}", str(date["waiting"]))
    return line


def test_a_members_page_with_an_open_offer_in_english_and_spanish_and_claim(club):
    week = offer_week(club)
    date = week.mine("Chidimma")
    expires = datetime.fromtimestamp(date["mine"]["offerExpiresAt"] / 1000, week.zone).strftime("%H:%M")
    card = f'.club-date[data-date="{week.date_id}"]'
    for language, (width, height) in (("es", (360, 640)), ("fr", (320, 568)), ("en", (360, 640)), ("en", (390, 844))):
        said = words(language)
        browser = Browser(club, width, height, language=language)
        try:
            browser.open(week.page("Chidimma"))
            browser.wait(lambda: browser.find(f"{card} .offer").is_displayed(), what="the offer")
            browser.wait_text("#connection", said["live.live"])
            assert browser.driver.execute_script("return document.documentElement.lang") == language
            offer = browser.text(f"{card} .offer-text")
            assert offer.startswith(said["offer.yours_until"].split("{time}")[0].strip()) and expires in offer, offer
            left = browser.text(f"{card} .countdown")
            match = re.fullmatch(r"(\d+) \S+ (\d\d) \S+|(\d\d):(\d\d)", left)
            assert match, left
            if match.group(1):
                seconds_left = date["mine"]["offerExpiresAt"] / 1000 - time.time()
                assert abs(int(match.group(1)) * 3600 + int(match.group(2)) * 60 - seconds_left) < 180, (left, seconds_left)
            assert browser.text(f"{card} .count") == count_line(date, language)
            assert browser.text(f"{card} .claim") == said["offer.claim"]
            assert browser.text(f"{card} .pass") == said["offer.pass"]
            if language != "en":
                assert english_left(browser, language) == []
            browser.screenshot(f"club-member-offer-{language}-{width}.png")
            thumbs_and_axe(browser, width, f"member page {language} {width}")
            if width == 390:
                browser.click(f"{card} .claim")
                browser.wait(lambda: browser.find(card).get_attribute("data-state") == "confirmed", what="the claim")
                assert browser.text(f"{card} .mine").startswith(said["mine.confirmed"])
                assert week.mine("Chidimma")["mine"]["state"] == "confirmed"
                entry = next(a for a in week.organisers_date()["answers"] if str(a["memberId"]) == week.ids["Chidimma"])
                assert entry["state"] == "confirmed"
                # Live: the organiser answers Dmitri out elsewhere; this page follows by itself.
                week.organiser("POST", f"/club/api/dates/{week.date_id}/answer",
                               {"memberId": week.ids["Dmitri"], "answer": "out", "guests": 0})
                now = week.mine("Chidimma")
                browser.wait(lambda: browser.text(f"{card} .count") == count_line(now, language), timeout=3,
                             what="the live count")
                browser.screenshot(f"club-member-claimed-{language}-{width}.png")
            assert browser.console_errors() == []
        finally:
            browser.close()


def test_a_link_from_a_mail_only_asks(club):
    week = Week(club, capacity=4, names=["Ann"])
    browser = Browser(club, 360, 640, language="en")
    try:
        browser.open(f"{week.page('Ann')}?date={week.date_id}&answer=in")
        browser.wait(lambda: browser.find("#ask").is_displayed(), what="the question")
        time.sleep(1)  # had the page answered by itself, it would have by now
        assert week.mine("Ann")["mine"] is None
        thumbs_and_axe(browser, 360, "the question")
        browser.click("#ask-yes")
        browser.wait(lambda: browser.find(f'.club-date[data-date="{week.date_id}"]').get_attribute("data-state") == "confirmed",
                     what="the answer")
        assert week.mine("Ann")["mine"]["state"] == "confirmed"
        assert "date=" not in browser.driver.current_url
    finally:
        browser.close()


def sign_in(browser: Browser):
    browser.open("/club/")
    browser.wait(lambda: browser.find("#login-form").is_displayed(), what="the sign-in form")
    browser.fill("#login-form [name=username]", OWNER)
    browser.fill("#login-form [name=password]", PASSWORD)
    browser.click("#login-form button[type=submit]")
    browser.wait(lambda: browser.find("#signed-in").is_displayed(), what="the club page")
    browser.wait_text("#connection", "Live")


def test_the_organisers_date_view_with_a_waitlist(club):
    week = Week(club, capacity=2, names=["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"])
    week.answer("Ann", "in")
    week.answer("Bob", "in")
    week.answer("Cid", "in", guests=1)
    week.answer("Dee", "in")
    week.answer("Eve", "out")
    truth = week.organisers_date()
    waiting = sorted((a for a in truth["answers"] if a["state"] == "waiting"), key=lambda a: a["position"])
    assert [(a["name"], a["position"]) for a in waiting] == [("Cid", 1), ("Dee", 2)]
    for width, height in ((360, 640), (390, 844)):
        browser = Browser(club, width, height, language="en")
        try:
            sign_in(browser)
            row = f'.date-row[data-date="{week.date_id}"]'
            browser.wait(lambda: browser.find(row), what="the date in the list")
            browser.click(row)
            browser.wait(lambda: browser.find("#date-view").is_displayed(), what="the date view")
            lists = browser.driver.execute_script("""
                const out = {};
                for (const h3 of document.querySelectorAll('#date-view h3')) {
                  const list = h3.nextElementSibling;
                  if (list && list.matches('.answer-list')) out[h3.textContent] = [...list.children].map((li) => li.textContent);
                }
                return out;""")
            assert lists["Waiting (2)"] == ["1. Cid +1", "2. Dee"], lists
            assert sorted(lists["Confirmed (2)"]) == ["Ann", "Bob"], lists
            assert lists["Not answered (1)"] == ["Fay"], lists
            assert lists["Out (1)"] == ["Eve"], lists
            assert browser.find("#group-message").get_attribute("value") == truth["message"]
            browser.screenshot(f"club-organiser-date-waitlist-{width}.png")
            browser.screenshot(f"club-organiser-date-waitlist-{width}-full.png", full_page=True)
            thumbs_and_axe(browser, width, f"date view {width}")
            if width == 390:
                # Answering for Fay, who only texts: she waits third.
                Select(browser.find("#for-member")).select_by_visible_text("Fay")
                browser.click("#for-in")
                browser.wait(lambda: "3. Fay" in browser.text("#date-view"), what="Fay waiting third")
                fay = next(a for a in week.organisers_date()["answers"] if a["name"] == "Fay")
                assert (fay["state"], fay["position"]) == ("waiting", 3)
                # Cancelling the date asks first, then the date is cancelled for everyone.
                browser.click("#cancel-date")
                browser.wait(lambda: browser.find("#confirm").is_displayed(), what="the question")
                # (The modal covers the page: its own buttons are what a thumb can reach.)
                sizes = browser.driver.execute_script(
                    "return [...document.querySelectorAll('#confirm button')].map((b) => [b.getBoundingClientRect().width, b.getBoundingClientRect().height]);")
                assert len(sizes) == 2 and all(w >= MINIMUM and h >= MINIMUM for w, h in sizes), sizes
                assert browser.axe() == []
                browser.click("#confirm-yes")
                browser.wait(lambda: week.organisers_date()["status"] == "cancelled", what="the cancelled date")
                browser.wait(lambda: browser.find(row).get_attribute("data-status") == "cancelled"
                             or "Cancelled" in browser.text("#date-view"), what="the page showing it")
                # A member added here gets a link and its QR code at once.
                browser.driver.execute_script("window.scrollTo(0, 0)")  # the tabs, out from under the sticky bar
                browser.click("#show-members")
                browser.fill("#add-name", "Gus")
                browser.fill("#add-email", "gus@example.org")
                browser.click("#add-member")
                browser.wait(lambda: browser.find("#new-link .member-link").text, what="Gus's link")
                link = browser.text("#new-link .member-link")
                assert re.fullmatch(r"https?://[^/]+/club/m/[A-Za-z0-9_-]{22}", link), link
                browser.wait(lambda: browser.driver.execute_script(
                    "const i = document.querySelector('#new-link img.qr'); return i.complete && i.naturalWidth > 0;"),
                    what="the QR code")
                members = week.organiser("GET", "/club/api/club")["members"]
                assert [m.get("email") for m in members if m["name"] == "Gus"] == ["gus@example.org"]
                browser.screenshot("club-organiser-new-member-390.png", full_page=True)
                thumbs_and_axe(browser, width, "members tab")
            assert browser.console_errors() == []
        finally:
            browser.close()
