"""A member's calendar, `/club/m/TOKEN/calendar.ics` (RFC 5545; PROTOCOL.md, "Calendars" and
precision 18), read with Python's `icalendar`, not our code: one event per date of the next 8
weeks; a confirmed one with a VALARM 2 hours before; waiting, out and not answered
`STATUS:TENTATIVE` (the state in the summary); a cancelled one `STATUS:CANCELLED`; a UID that
never changes and a SEQUENCE that rises with a change of the date or of the member's answer."""
from datetime import timedelta

from icalendar import Calendar

from clublib import new_id
from club_week_support import (add_fixture, add_members, answer_for, answered, first_start, fixture_dates, ok,
                               refused)

TITLE = "Sunday 7-a-side"


def calendar(club, token: str) -> dict[int, object]:
    """The member's events by their start (UTC ms), after checking the file's form."""
    status, body = club.api("GET", f"/club/m/{token}/calendar.ics")
    assert status == 200 and isinstance(body, str) and body.startswith("BEGIN:VCALENDAR"), (status, body)
    raw = body.encode()
    assert b"\r\n" in raw and b"\n" not in raw.replace(b"\r\n", b""), "lines end in CRLF"
    assert all(len(line) <= 75 for line in raw.split(b"\r\n")), "lines folded at 75 octets"
    events = Calendar.from_ical(body).walk("VEVENT")
    by_start = {int(event.decoded("DTSTART").timestamp() * 1000): event for event in events}
    assert len(by_start) == len(events), body
    return by_start


def alarm_triggers(event) -> list:
    return [alarm.decoded("TRIGGER") for alarm in event.walk("VALARM")]


def test_a_members_calendar_parses_with_icalendar_with_alarms_statuses_and_rising_sequences(club):
    owner = club.register_owner()
    weekday, time, _ = first_start(club.now(), club.time_zone, 3, "10:00")
    fixture = add_fixture(club, owner, title=TITLE, weekday=weekday, time=time, capacity=2, durationMinutes=90)
    dates = fixture_dates(club, owner, fixture["id"])
    m = add_members(club, owner, ["Ana", "Ben"])
    ana = m["Ana"]

    answered(club, ana, dates[0]["id"], "in")                      # confirmed
    ok(answer_for(club, owner, m["Ben"], dates[1]["id"], "in", 1))  # the date full...
    ok(answer_for(club, owner, ana, dates[1]["id"], "in"))           # ...Ana waits, first
    ok(answer_for(club, owner, ana, dates[2]["id"], "out"))          # out; dates[3]: not answered
    ok(club.api("POST", f"/club/api/dates/{dates[4]['id']}/cancel", {"id": new_id()}, token=owner))

    events = calendar(club, ana["token"])
    assert sorted(events) == [d["startsAt"] for d in dates], sorted(events)
    for date in dates:
        event = events[date["startsAt"]]
        assert TITLE in str(event["SUMMARY"]), event
        length = (event.decoded("DTEND") - event.decoded("DTSTART")) if "DTEND" in event else \
            event.decoded("DURATION")
        assert length == timedelta(minutes=90), event
    confirmed = events[dates[0]["startsAt"]]
    assert str(confirmed.get("STATUS", "CONFIRMED")) == "CONFIRMED", confirmed
    assert alarm_triggers(confirmed) == [timedelta(hours=-2)], confirmed
    waiting = events[dates[1]["startsAt"]]
    assert str(waiting["STATUS"]) == "TENTATIVE" and "Waiting" in str(waiting["SUMMARY"]), waiting
    for index in (2, 3):
        assert str(events[dates[index]["startsAt"]]["STATUS"]) == "TENTATIVE", events[dates[index]["startsAt"]]
    assert str(events[dates[4]["startsAt"]]["STATUS"]) == "CANCELLED"
    uids = {start: str(event["UID"]) for start, event in events.items()}
    assert len(set(uids.values())) == len(dates)
    sequences = {start: int(event.get("SEQUENCE", 0)) for start, event in events.items()}

    # Ana's answer changes on the first date, the third date's capacity changes: their
    # SEQUENCE rises, their UID stays; the others are as they were.
    answered(club, ana, dates[0]["id"], "out")
    ok(club.api("PATCH", f"/club/api/dates/{dates[3]['id']}", {"id": new_id(), "capacity": 5}, token=owner))
    again = calendar(club, ana["token"])
    assert {start: str(event["UID"]) for start, event in again.items()} == uids
    changed = {dates[0]["startsAt"], dates[3]["startsAt"]}
    for start, event in again.items():
        sequence = int(event.get("SEQUENCE", 0))
        assert sequence > sequences[start] if start in changed else sequence == sequences[start], (start, event)
    assert str(again[dates[0]["startsAt"]]["STATUS"]) == "TENTATIVE"
    assert not alarm_triggers(again[dates[0]["startsAt"]])

    # Only the member's own: a guessed token has no calendar.
    refused(club.api("GET", "/club/api/m/AAAAAAAAAAAAAAAAAAAAAA"), 404, "not_found")
    assert club.api("GET", "/club/m/AAAAAAAAAAAAAAAAAAAAAA/calendar.ics")[0] == 404
