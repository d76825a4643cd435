"""Steps of a club's week through the API, written against PROTOCOL.md ("The week"), shared by
the week's tests and the race: members with their personal links, fixtures whose first date
falls where a test needs it (in the club's time zone), answers, and the views that show them.

Each step asserts the contract's status and shape, so a failing test says which step broke."""
from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from clublib import Club, new_id

HOUR = 3_600_000
MINUTE = 60_000
TOKEN = re.compile(r"^[A-Za-z0-9_-]{22}$")


def refused(result: tuple[int, object], status: int, code: str):
    """Asserts the contract's error: `status`, `{"error": {"code": code, "message", "params"}}`."""
    got_status, body = result
    assert got_status == status and isinstance(body, dict) and body.get("error", {}).get("code") == code, result
    assert isinstance(body["error"].get("message"), str) and body["error"]["message"], result
    return body["error"]


def ok(result: tuple[int, object]) -> dict:
    status, body = result
    assert status == 200 and isinstance(body, dict), result
    return body


# MARK: - Members and fixtures

def link_token(link: str) -> str:
    """The TOKEN of an absolute personal link `…/club/m/TOKEN` (22 characters of base64url)."""
    parts = urlsplit(link)
    assert parts.scheme in ("http", "https") and parts.netloc, link
    head, _, token = parts.path.rpartition("/")
    assert head.endswith("/club/m") and TOKEN.match(token), link
    return token


def add_members(club: Club, owner: str, names: list[str], emails: dict[str, str] | None = None) -> dict[str, dict]:
    """{name: {"id", "name", "token", "link"}}, each added by the organiser."""
    members = {}
    for name in names:
        body = {"id": new_id(), "name": name}
        if emails and name in emails:
            body["email"] = emails[name]
        made = ok(club.api("POST", "/club/api/members", body, token=owner))
        assert made["member"]["name"] == name and isinstance(made["member"]["id"], str), made
        members[name] = {"id": made["member"]["id"], "name": name, "link": made["link"],
                         "token": link_token(made["link"])}
    return members


def first_start(now_ms: int, time_zone: str, days_ahead: int, local_time: str) -> tuple[int, str, int]:
    """(weekday 1–7, "HH:MM", startsAt ms) of the local day `days_ahead` after the club's today
    at `local_time` in `time_zone` (Python's zoneinfo, not the server's code)."""
    zone = ZoneInfo(time_zone)
    today = datetime.fromtimestamp(now_ms / 1000, zone).date()
    day = today + timedelta(days=days_ahead)
    hour, minute = map(int, local_time.split(":"))
    start = datetime(day.year, day.month, day.day, hour, minute, tzinfo=zone)
    return day.isoweekday(), local_time, int(start.astimezone(timezone.utc).timestamp() * 1000)


def add_fixture(club: Club, owner: str, **fields) -> dict:
    fields = {"durationMinutes": 90, "place": "Riverside", **fields}
    made = ok(club.api("POST", "/club/api/fixtures", {"id": new_id(), **fields}, token=owner))
    assert isinstance(made["fixture"]["id"], str), made
    return made["fixture"]


def fixture_dates(club: Club, owner: str, fixture_id: str) -> list[dict]:
    """The organiser's dates of one fixture (`GET /club/api/club`), earliest first."""
    view = ok(club.api("GET", "/club/api/club", token=owner))
    return sorted((d for d in view["dates"] if d["fixtureId"] == fixture_id), key=lambda d: d["startsAt"])


# MARK: - Answers and views

def date_body(body: dict) -> dict:
    """The date of `GET /club/api/dates/DID` (written "→ the date with answers…"; accepted
    also as `{date}`, the shape precision 1 gives an organiser's change)."""
    return body if "answers" in body else body["date"]


def organiser_date(club: Club, owner: str, date_id: str, base: str | None = None) -> dict:
    date = date_body(ok(club.api("GET", f"/club/api/dates/{date_id}", token=owner, base=base)))
    assert date["id"] == date_id, date
    return date


def answers_by_member(date: dict) -> dict[str, dict]:
    return {entry["memberId"]: entry for entry in date["answers"]}


def member_view(club: Club, token: str, base: str | None = None) -> dict:
    return ok(club.api("GET", f"/club/api/m/{token}", base=base))


def member_date(club: Club, token: str, date_id: str, base: str | None = None) -> dict:
    return next(d for d in member_view(club, token, base)["dates"] if d["id"] == date_id)


def answer(club: Club, member: dict, date_id: str, said: str, guests: int = 0, base: str | None = None,
           change_id: str | None = None) -> tuple[int, object]:
    """A member's own answer through their link: (status, body)."""
    return club.api("POST", f"/club/api/m/{member['token']}/answer",
                    {"id": change_id or new_id(), "date": date_id, "answer": said, "guests": guests}, base=base)


def answered(club: Club, member: dict, date_id: str, said: str, guests: int = 0, base: str | None = None) -> dict:
    """`answer` that must succeed: the member's date from the answer (`{date}`)."""
    body = ok(answer(club, member, date_id, said, guests, base))
    assert body["date"]["id"] == date_id and body["date"]["mine"]["answer"] == said, body
    return body["date"]


def claim(club: Club, member: dict, date_id: str, verb: str = "claim") -> tuple[int, object]:
    return club.api("POST", f"/club/api/m/{member['token']}/{verb}", {"id": new_id(), "date": date_id})


def answer_for(club: Club, owner: str, member: dict, date_id: str, said: str, guests: int = 0) -> tuple[int, object]:
    """An organiser's answer for a member (`POST /club/api/dates/DID/answer`)."""
    return club.api("POST", f"/club/api/dates/{date_id}/answer",
                    {"id": new_id(), "memberId": member["id"], "answer": said, "guests": guests}, token=owner)


MINE = ("answer", "guests", "state", "position", "offerExpiresAt")


def mine(date: dict) -> dict:
    """The member's own answer in a date of their view: the contract's fields `{answer, guests,
    state, position?, offerExpiresAt?}`, an optional one left out when absent or null."""
    assert date["mine"] is not None, date
    return {key: date["mine"][key] for key in MINE if date["mine"].get(key) is not None}
