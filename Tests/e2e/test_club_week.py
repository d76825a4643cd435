"""A club's week through nginx and two real `gather club serve` instances on a real PostgreSQL
(PROTOCOL.md, "The week: a club that never sleeps"): from the fixture to Sunday, and the same
change sent twice. The club's clock is moved with `--test-clock`'s endpoint, never waited for.

The other parts of the week's contract have files of their own: test_club_safety.py (tokens,
privacy, SQL, bad bodies), test_club_live.py, test_club_durability.py, test_club_calendar.py."""
from zoneinfo import ZoneInfo
from datetime import datetime

from clublib import new_id
from club_week_support import (HOUR, MINUTE, add_fixture, add_members, answer, answer_for, answered,
                               answers_by_member, claim, first_start, fixture_dates, member_date, mine, ok,
                               organiser_date, refused)

NAMES = ["Ana", "Ben", "Cai", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo"]


def test_a_week_from_the_fixture_to_sunday_answers_guests_waitlist_offers_last_hours_and_closing(club):
    owner = club.register_owner()
    now = club.now()
    weekday, time, starts_at = first_start(now, club.time_zone, 3, "10:00")
    fixture = add_fixture(club, owner, title="Sunday 7-a-side", weekday=weekday, time=time, durationMinutes=90,
                          capacity=6, opensHoursBefore=144, closesMinutesBefore=60, claimHours=12,
                          lastMinuteHours=3)
    m = add_members(club, owner, NAMES)

    # The next 8 weeks of dates, 10:00 in the club's time zone each week (across a change of
    # daylight saving time too, when one falls in them).
    dates = fixture_dates(club, owner, fixture["id"])
    assert len(dates) == 8, dates
    zone = ZoneInfo(club.time_zone)
    for date in dates:
        local = datetime.fromtimestamp(date["startsAt"] / 1000, zone)
        assert (local.isoweekday(), local.strftime("%H:%M")) == (weekday, "10:00"), date
    date = dates[0]
    did = date["id"]
    assert date["startsAt"] == starts_at and date["opensAt"] == starts_at - 144 * HOUR, date
    assert date["closesAt"] == starts_at - 60 * MINUTE and date["capacity"] == 6, date
    assert (date["status"], date["confirmedSeats"], date["waiting"]) == ("scheduled", 0, 0), date

    # Answers with guests, taken whole, until the date is full.
    assert mine(answered(club, m["Ana"], did, "in", 1)) == {"answer": "in", "guests": 1, "state": "confirmed"}
    assert mine(answered(club, m["Ben"], did, "in"))["state"] == "confirmed"
    full = answered(club, m["Cai"], did, "in", 2)
    assert mine(full)["state"] == "confirmed" and full["confirmedSeats"] == 6, full
    assert mine(answered(club, m["Dee"], did, "out"))["state"] == "out"

    # The waitlist, in answer order.
    for position, (name, guests) in enumerate([("Eli", 0), ("Fay", 1), ("Gus", 0)], start=1):
        waiting = mine(answered(club, m[name], did, "in", guests))
        assert (waiting["state"], waiting["position"]) == ("waiting", position), (name, waiting)
    seen = member_date(club, m["Eli"]["token"], did)
    assert (seen["confirmedSeats"], seen["waiting"], seen["status"]) == (6, 3, "scheduled"), seen
    assert sorted((p["name"], p["guests"]) for p in seen["confirmed"]) == [("Ana", 1), ("Ben", 0), ("Cai", 2)]
    assert [(p["name"], p["guests"], p["position"]) for p in seen["waitingList"]] == [
        ("Eli", 0, 1), ("Fay", 1, 2), ("Gus", 0, 3)], seen

    # More guests than the full date has room for: refused, nothing changed.
    refused(answer(club, m["Ana"], did, "in", 2), 409, "no_room_for_guests")
    assert mine(member_date(club, m["Ana"]["token"], did)) == {"answer": "in", "guests": 1, "state": "confirmed"}
    # Next week's date is not open yet (it opens 144 hours before).
    assert dates[1]["opensAt"] > club.now()
    refused(answer(club, m["Jo"], dates[1]["id"], "in"), 409, "not_open_yet")

    # The organisers' view: every answer with its state, who has not answered, the message.
    view = organiser_date(club, owner, did)
    by_id = answers_by_member(view)
    assert {name: by_id[m[name]["id"]]["state"] for name in NAMES[:7]} == {
        "Ana": "confirmed", "Ben": "confirmed", "Cai": "confirmed", "Dee": "out",
        "Eli": "waiting", "Fay": "waiting", "Gus": "waiting"}, view
    assert [by_id[m[n]["id"]]["position"] for n in ("Eli", "Fay", "Gus")] == [1, 2, 3]
    assert sorted(view["notAnswered"]) == sorted(m[n]["id"] for n in ("Hal", "Ivy", "Jo")), view
    assert isinstance(view["message"], str) and "/club/" in view["message"], view

    # A seat frees up: the first waiting entry that fits is offered it, and claims it.
    before = club.now()
    assert mine(answered(club, m["Ben"], did, "out"))["state"] == "out"
    offer = mine(member_date(club, m["Eli"]["token"], did))
    assert offer["state"] == "offered", offer
    assert before + 12 * HOUR <= offer["offerExpiresAt"] <= club.now() + 12 * HOUR, offer
    assert mine(member_date(club, m["Fay"]["token"], did))["position"] == 1  # counted among those waiting
    refused(claim(club, m["Gus"], did), 409, "no_offer")
    claimed = ok(claim(club, m["Eli"], did))["date"]
    assert mine(claimed)["state"] == "confirmed" and claimed["confirmedSeats"] == 6, claimed

    # Fewer guests free a seat: Fay (two seats) does not fit, Gus (one) is offered it, and misses it.
    assert mine(answered(club, m["Ana"], did, "in", 0)) == {"answer": "in", "guests": 0, "state": "confirmed"}
    gus = mine(member_date(club, m["Gus"]["token"], did))
    assert gus["state"] == "offered", gus
    assert mine(member_date(club, m["Fay"]["token"], did)) == {"answer": "in", "guests": 1, "state": "waiting",
                                                                "position": 1}
    club.advance(gus["offerExpiresAt"] - club.now() + 1000)
    assert mine(member_date(club, m["Gus"]["token"], did)) == {"answer": "out", "guests": 0, "state": "out"}
    after_miss = member_date(club, m["Fay"]["token"], did)
    assert after_miss["confirmedSeats"] == 5 and mine(after_miss)["state"] == "waiting", after_miss

    # The free seat goes to a new answer that fits; the next one waits behind Fay.
    assert mine(answered(club, m["Hal"], did, "in"))["state"] == "confirmed"
    ivy = mine(answered(club, m["Ivy"], did, "in"))
    assert (ivy["state"], ivy["position"]) == ("waiting", 2), ivy

    # The last hours: a freed place goes straight to the first waiting entries that fit.
    club.advance(starts_at - 2 * HOUR - club.now())
    answered(club, m["Cai"], did, "out")
    for name in ("Fay", "Ivy"):
        promoted = mine(member_date(club, m[name]["token"], did))
        assert promoted["state"] == "confirmed" and "offerExpiresAt" not in promoted, (name, promoted)
    settled = member_date(club, m["Ana"]["token"], did)
    assert (settled["confirmedSeats"], settled["waiting"]) == (6, 0), settled

    # Closed: members are refused and nothing changes; organisers still answer for them.
    club.advance(starts_at - 60 * MINUTE - club.now() + MINUTE)
    refused(answer(club, m["Jo"], did, "in"), 409, "closed")
    refused(answer(club, m["Ana"], did, "out"), 409, "closed")
    assert mine(member_date(club, m["Ana"]["token"], did))["state"] == "confirmed"
    organisers = date_of(ok(answer_for(club, owner, m["Jo"], did, "in")))
    assert answers_by_member(organisers)[m["Jo"]["id"]]["state"] == "waiting", organisers
    organisers = date_of(ok(answer_for(club, owner, m["Ana"], did, "out")))
    by_id = answers_by_member(organisers)
    assert by_id[m["Ana"]["id"]]["state"] == "out" and by_id[m["Jo"]["id"]]["state"] == "confirmed", organisers

    # Once the match has begun, a place that does not fit cannot wait: `full`.
    club.advance(starts_at - club.now() + 10 * MINUTE)
    refused(answer_for(club, owner, m["Dee"], did, "in"), 409, "full")
    # The date stays listed until it ends, then leaves the window.
    assert did in [d["id"] for d in fixture_dates(club, owner, fixture["id"])]
    club.advance(starts_at + 91 * MINUTE - club.now())
    assert did not in [d["id"] for d in fixture_dates(club, owner, fixture["id"])]


def date_of(body: dict) -> dict:
    """An organiser's change answers `{date}` (precision 1)."""
    assert "date" in body and "answers" in body["date"], body
    return body["date"]


def test_the_same_change_sent_twice_gets_the_same_answer_on_either_instance_and_changes_nothing_more(club):
    owner = club.register_owner()
    first, second = (instance.base_url for instance in club.instances)
    weekday, time, _ = first_start(club.now(), club.time_zone, 3, "10:00")
    fixture = add_fixture(club, owner, title="Sunday 5-a-side", weekday=weekday, time=time, capacity=2)
    did = fixture_dates(club, owner, fixture["id"])[0]["id"]
    m = add_members(club, owner, ["Ana", "Ben", "Cai"])

    # A member's answer, replayed on the other instance after the date changed: the first body.
    change = {"id": new_id(), "date": did, "answer": "in", "guests": 0}
    path = f"/club/api/m/{m['Ana']['token']}/answer"
    status, body = club.api("POST", path, change, base=first)
    assert status == 200 and mine(body["date"])["state"] == "confirmed", body
    answered(club, m["Ben"], did, "in")
    assert club.api("POST", path, change, base=second) == (status, body)
    # The same id with other content is still that change: nothing more happens.
    assert club.api("POST", path, {**change, "answer": "out"}, base=second) == (status, body)
    assert mine(member_date(club, m["Ana"]["token"], did))["state"] == "confirmed"
    assert organiser_date(club, owner, did)["confirmedSeats"] == 2

    # A refusal is final for its id too: an offer made later does not change its answer.
    refusal = {"id": new_id(), "date": did}
    claim_path = f"/club/api/m/{m['Cai']['token']}/claim"
    assert mine(answered(club, m["Cai"], did, "in"))["state"] == "waiting"
    no_offer = club.api("POST", claim_path, refusal, base=first)
    refused(no_offer, 409, "no_offer")
    answered(club, m["Ben"], did, "out")
    assert mine(member_date(club, m["Cai"]["token"], did))["state"] == "offered"
    assert club.api("POST", claim_path, refusal, base=second) == no_offer
    assert mine(member_date(club, m["Cai"]["token"], did))["state"] == "offered"
    assert mine(ok(club.api("POST", claim_path, {"id": new_id(), "date": did}, base=second))["date"])["state"] == \
        "confirmed"

    # An organiser's changes: one member made, however often the request is repeated.
    add = {"id": new_id(), "name": "Dee"}
    made = club.api("POST", "/club/api/members", add, token=owner, base=first)
    assert made[0] == 200, made
    for base in (second, first):
        assert club.api("POST", "/club/api/members", add, token=owner, base=base) == made
    names = [member["name"] for member in ok(club.api("GET", "/club/api/club", token=owner))["members"]]
    assert sorted(names) == ["Ana", "Ben", "Cai", "Dee"], names
    # And an organiser's answer for someone.
    for_dee = {"id": new_id(), "memberId": made[1]["member"]["id"], "answer": "in", "guests": 0}
    once = club.api("POST", f"/club/api/dates/{did}/answer", for_dee, token=owner, base=first)
    assert once[0] == 200 and answers_by_member(date_of(once[1]))[for_dee["memberId"]]["state"] == "waiting", once
    assert club.api("POST", f"/club/api/dates/{did}/answer", for_dee, token=owner, base=second) == once
    assert organiser_date(club, owner, did)["waiting"] == 1
