"""The club's week against strangers and mistakes (PROTOCOL.md, "The week"; issue 43, "Safe by
default"), through nginx and two real instances: a guessed or replaced token is `404` and an
organiser's endpoint without an organiser's token `401`; a member's link shows only that
member's answers and the members' names; SQL in a name is stored as text; an oversized or
invalid body is `400 invalid` and changes nothing."""
import json
import secrets

from clublib import new_id
from club_week_support import (add_fixture, add_members, answer, answered, first_start, fixture_dates,
                               member_date, member_view, mine, ok, organiser_date, refused)


def week(club, capacity=4, names=("Ana", "Ben", "Cai"), emails=None):
    owner = club.register_owner()
    weekday, time, _ = first_start(club.now(), club.time_zone, 3, "10:00")
    fixture = add_fixture(club, owner, title="Sunday 7-a-side", weekday=weekday, time=time, capacity=capacity)
    did = fixture_dates(club, owner, fixture["id"])[0]["id"]
    return owner, fixture, did, add_members(club, owner, list(names), emails)


def test_a_guessed_or_replaced_token_is_not_found_and_organiser_endpoints_need_an_organiser(club):
    owner, _, did, m = week(club)
    answered(club, m["Ana"], did, "in")
    strangers = [secrets.token_urlsafe(16), secrets.token_urlsafe(16)[:21], secrets.token_urlsafe(17),
                 "A" * 22, "not-a-token"]
    # An encoded "../" is resolved by the server before routing (lws normalises the path), so it
    # names another endpoint, never a member: the club's own, which wants an organiser.
    for base in (club.base_url, *(i.base_url for i in club.instances)):
        refused(club.api("GET", "/club/api/m/%2e%2e%2fclub", base=base), 401, "unauthorized")
    for token in strangers:
        for base in (club.base_url, *(i.base_url for i in club.instances)):
            refused(club.api("GET", f"/club/api/m/{token}", base=base), 404, "not_found")
        refused(club.api("POST", f"/club/api/m/{token}/answer",
                         {"id": new_id(), "date": did, "answer": "in", "guests": 0}), 404, "not_found")
        refused(club.api("POST", f"/club/api/m/{token}/claim", {"id": new_id(), "date": did}), 404, "not_found")
        assert club.api("GET", f"/club/m/{token}/calendar.ics")[0] == 404

    # "New link": the old one stops at once, on every instance; the new one works.
    made = ok(club.api("POST", f"/club/api/members/{m['Ana']['id']}/link", {"id": new_id()}, token=owner))
    new_token = made["link"].rsplit("/", 1)[1]
    assert new_token != m["Ana"]["token"]
    for instance in club.instances:
        refused(club.api("GET", f"/club/api/m/{m['Ana']['token']}", base=instance.base_url), 404, "not_found")
        assert member_view(club, new_token, base=instance.base_url)["member"]["id"] == m["Ana"]["id"]
    refused(answer(club, m["Ana"], did, "out"), 404, "not_found")
    assert mine(member_date(club, new_token, did))["state"] == "confirmed"

    # The organisers' API: no token, a made-up one, a member's, a logged-out one: 401.
    made_up = secrets.token_urlsafe(32)
    for token in (None, made_up, new_token):
        refused(club.api("GET", "/club/api/club", token=token), 401, "unauthorized")
        refused(club.api("GET", f"/club/api/dates/{did}", token=token), 401, "unauthorized")
        refused(club.api("POST", "/club/api/members", {"id": new_id(), "name": "Zed"}, token=token),
                401, "unauthorized")
    ok(club.api("POST", "/club/api/logout", {"id": new_id()}, token=owner))
    refused(club.api("GET", "/club/api/club", token=owner), 401, "unauthorized")


def test_a_members_link_shows_only_their_own_answers_and_the_members_names(club):
    owner, _, did, m = week(club, capacity=2, emails={"Ben": "ben@example.org", "Cai": "cai@example.org"})
    answered(club, m["Ana"], did, "in")
    answered(club, m["Ben"], did, "in")
    answered(club, m["Cai"], did, "in", 1)
    view = member_view(club, m["Ana"]["token"])
    assert view["member"] == {"id": m["Ana"]["id"], "name": "Ana"}, view
    date = next(d for d in view["dates"] if d["id"] == did)
    assert mine(date)["state"] == "confirmed"
    assert [sorted(p) for p in date["confirmed"]] == [["guests", "name"]] * 2, date
    assert [sorted(p) for p in date["waitingList"]] == [["guests", "name", "position"]], date
    # Nothing of another member beyond their name: no id, email, link, token or answer time.
    text = json.dumps(view)
    for name in ("Ben", "Cai"):
        for secret in (m[name]["token"], m[name]["link"], f"{name.lower()}@example.org"):
            assert secret not in text, secret
    assert not found_keys(view, {"memberId", "email", "link", "token", "answeredAt", "notAnswered", "answers"})
    # A member acts only as themselves: a memberId in their body changes no one else.
    ben_before = mine(member_date(club, m["Ben"]["token"], did))
    status, _ = club.api("POST", f"/club/api/m/{m['Ana']['token']}/answer",
                         {"id": new_id(), "date": did, "answer": "out", "guests": 0, "memberId": m["Ben"]["id"]})
    assert mine(member_date(club, m["Ben"]["token"], did)) == ben_before
    assert status in (200, 400), status
    # A member's token is not an organiser's.
    refused(club.api("GET", f"/club/api/dates/{did}", token=m["Ana"]["token"]), 401, "unauthorized")


def found_keys(value, keys: set[str]) -> set[str]:
    if isinstance(value, dict):
        return (keys & set(value)) | set().union(*(found_keys(v, keys) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(found_keys(v, keys) for v in value))
    return set()


def test_sql_in_a_name_a_title_or_a_place_is_stored_and_shown_as_text(club):
    owner = club.register_owner()
    names = ["Robert'); DROP TABLE members;--", "x' OR '1'='1", "Zoë O'Neil; SELECT pg_sleep(30)--",
             "$1 \\' \"; COMMIT; --"]
    m = add_members(club, owner, names)
    weekday, time, _ = first_start(club.now(), club.time_zone, 3, "10:00")
    title, place = "Sunday'; DELETE FROM dates;--", "Riverside\"); TRUNCATE answers; --"
    fixture = add_fixture(club, owner, title=title, place=place, weekday=weekday, time=time, capacity=4)
    assert (fixture["title"], fixture["place"]) == (title, place), fixture
    dates = fixture_dates(club, owner, fixture["id"])
    assert len(dates) == 8 and all(d["title"] == title and d["place"] == place for d in dates), dates
    for name in names:
        answered(club, m[name], dates[0]["id"], "in")
    view = ok(club.api("GET", "/club/api/club", token=owner))
    assert sorted(member["name"] for member in view["members"]) == sorted(names)
    seen = member_date(club, m[names[0]]["token"], dates[0]["id"])
    assert sorted(p["name"] for p in seen["confirmed"]) == sorted(names) and seen["confirmedSeats"] == 4, seen
    # Unique ignoring case, as text: the same name again is a conflict, not a second member.
    refused(club.api("POST", "/club/api/members", {"id": new_id(), "name": names[1].upper()}, token=owner),
            409, "conflict")


def test_oversized_and_invalid_bodies_are_400_invalid_and_change_nothing(club):
    owner, fixture, did, m = week(club)
    answered(club, m["Ana"], did, "in", 1)

    def everything():
        # `now` is the club's clock at the read (so pages count down on the server's time): not a change.
        view = {k: v for k, v in member_view(club, m["Ana"]["token"]).items() if k != "now"}
        listed = {k: v for k, v in ok(club.api("GET", "/club/api/club", token=owner)).items() if k != "now"}
        return (listed, organiser_date(club, owner, did), view)
    before = everything()
    answer_path = f"/club/api/m/{m['Ana']['token']}/answer"

    def good(**change):
        """A change Ana may make (out), with a fresh id: a refusal is final for its id, so no
        two cases may share one."""
        return {"id": new_id(), "date": did, "answer": "out", "guests": 0, **change}

    def without(key):
        return {k: v for k, v in good().items() if k != key}
    bad_answers = ["{", "[]", "null", '"out"', "{\"id\": 1}", {}, good(id=""), good(id="a" * 65), good(id="bad id!"),
                   good(answer="maybe"), good(guests=4), good(guests=-1), good(guests="1"), good(guests=1.5),
                   without("answer"), without("date"), without("id"),
                   # A good change made larger than the 16 KiB a body may be by spaces alone.
                   json.dumps(good()) + " " * (16 * 1024 + 100)]
    for body in bad_answers:
        refused(club.api("POST", answer_path, body), 400, "invalid")
    new_fixture = {"title": "Tuesday", "weekday": 2, "time": "19:00", "durationMinutes": 60, "place": "",
                   "capacity": 10}
    bad_fixtures = [{"weekday": 0}, {"weekday": 8}, {"time": "25:00"}, {"time": "10:60"}, {"time": "1000"},
                    {"durationMinutes": 9}, {"durationMinutes": 241}, {"capacity": 1}, {"capacity": 61},
                    {"title": ""}, {"title": "t" * 61}, {"place": "p" * 81}, {"opensHoursBefore": 0},
                    {"opensHoursBefore": 337}, {"closesMinutesBefore": 1441}, {"claimHours": 0}, {"claimHours": 73},
                    {"lastMinuteHours": 49}, {"reminderHoursBefore": [48, 24, 4, 1]},
                    {"opensHoursBefore": 1, "closesMinutesBefore": 120}]  # opening not before closing
    for change in bad_fixtures:
        refused(club.api("POST", "/club/api/fixtures", {"id": new_id(), **new_fixture, **change}, token=owner),
                400, "invalid")
    for name in ("", "n" * 41, "bell\u0007", "line\nbreak"):
        refused(club.api("POST", "/club/api/members", {"id": new_id(), "name": name}, token=owner), 400, "invalid")
    refused(club.api("PATCH", f"/club/api/dates/{did}", {"id": new_id(), "capacity": 1}, token=owner),
            400, "invalid")
    refused(club.api("POST", "/club/api/test/clock", {"id": new_id(), "advanceMs": -1000}), 400, "invalid")
    # Far beyond: nginx refuses it before any instance reads it (client_max_body_size).
    assert club.api("POST", answer_path, json.dumps(good()) + " " * (1 << 20))[0] == 413
    assert everything() == before
