"""The club's mail (PROTOCOL.md, "Telling people" and "Mail, settled"), end to end: two real
`gather club serve` instances on a real PostgreSQL behind nginx, mailing a real SMTP server
(aiosmtpd, STARTTLS required, its certificate from a CA the test makes and gives `--smtp-ca`),
and the club's clock moved by the test, never waited for.

Reminders reach exactly the members who have not answered, at the reminder's time, once: across
the SMTP server refusing the first two tries and both instances killed while a try is held
open; an offer's mail arrives within 5 s of the seat freeing, in quiet hours too, and a last-hours
promotion's too; a reminder due in quiet hours waits until 08:00; a cancelled date tells those who
were in, and a mail refused every time is retried on the contract's backoff, then shown failed.
Without `--smtp` the claims are `unsent`, listed on the organisers' page. The reminder as received
is rendered in Chromium for review."""
import base64
import html
import signal
import subprocess
import time
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from club_smtp import MailServer
from club_week_support import (HOUR, MINUTE, add_fixture, add_members, answered, first_start, fixture_dates, mine,
                               ok, organiser_date)
from clublib import new_id
from gatherlib import BINARY, PASSWORD
from pages_support import Browser

# Mostly waiting on other processes (NATS, PostgreSQL, an SMTP server, restarts): make test runs it
# in the serial lane beside the parallel phase (conftest.py).
pytestmark = pytest.mark.mostly_waits

HOST = "club.test"
FROM = "club@example.org"
EMAILS = {name: f"{name.lower().replace('ç', 'c')}@example.org" for name in ("Ana", "Bea", "Çelik", "Dee", "Eli", "Fay", "Hal")}


SMTP_USER, SMTP_PASSWORD = "clubmailer", "Sm7pPassw0rdNeverLogged"


@pytest.fixture()
def mail_server():
    server = MailServer(login=(SMTP_USER, SMTP_PASSWORD)).start()
    try:
        yield server
    finally:
        server.cleanup()


def mail_rows(club, owner, did, kind=None, slot=None) -> dict[str, dict]:
    """{memberId: row} of the date's `mail`, of one kind (and slot) when given."""
    rows = organiser_date(club, owner, did)["mail"]
    return {row["memberId"]: row for row in rows
            if (kind is None or row["kind"] == kind) and (slot is None or row["slot"] == slot)}


def wait_tries(server: MailServer, message_ids: list[str], count: int, timeout: float = 5):
    deadline = time.monotonic() + timeout
    while any(server.tries.get(m, 0) < count for m in message_ids):
        assert time.monotonic() < deadline, (count, server.tries)
        time.sleep(0.05)


def wait_rows(club, owner, did, predicate, timeout: float = 5):
    """Until every 48-hour reminder row of the date satisfies `predicate` (a try's outcome is
    recorded a moment after the SMTP server answered it)."""
    deadline = time.monotonic() + timeout
    while True:
        rows = mail_rows(club, owner, did, "reminder", 48)
        if rows and all(predicate(row) for row in rows.values()):
            return rows
        assert time.monotonic() < deadline, rows
        time.sleep(0.05)


def wait_row(club, owner, did, member_id, kind, predicate, timeout: float = 5) -> dict:
    """The member's `kind` row once `predicate` holds (a try's outcome is recorded a moment after
    the SMTP server answered it; meanwhile the row shows the claim's stale time)."""
    deadline = time.monotonic() + timeout
    while True:
        row = mail_rows(club, owner, did, kind).get(member_id)
        if row is not None and predicate(row):
            return row
        assert time.monotonic() < deadline, row
        time.sleep(0.05)


def local_instant(zone: ZoneInfo, day, hour: int, minute: int = 0) -> int:
    return int(datetime(day.year, day.month, day.day, hour, minute, tzinfo=zone).timestamp() * 1000)


def test_reminders_once_to_those_who_have_not_answered_offers_at_once_quiet_hours_and_cancellation(
        club_factory, mail_server):
    url = mail_server.url.replace("smtp://", f"smtp://{SMTP_USER}:{SMTP_PASSWORD}@")
    club = club_factory(instances=2, extra_args=(
        "--smtp", url, "--mail-from", FROM, "--smtp-ca", mail_server.ca_path,
        "--public-url", f"http://{HOST}"))
    zone = ZoneInfo(club.time_zone)
    owner = club.register_owner()
    weekday, time_text, starts_at = first_start(club.now(), club.time_zone, 4, "10:00")
    fixture = add_fixture(club, owner, title="Sunday 7-a-side", weekday=weekday, time=time_text, capacity=3,
                          opensHoursBefore=144, closesMinutesBefore=60, claimHours=12, lastMinuteHours=3,
                          reminderHoursBefore=[48, 28])
    m = add_members(club, owner, ["Ana", "Bea", "Çelik", "Dee", "Eli", "Fay", "Gus", "Hal"], EMAILS)
    ok(club.api("PATCH", f"/club/api/members/{m['Çelik']['id']}", {"id": new_id(), "language": "fr"}, token=owner))
    ok(club.api("PATCH", f"/club/api/members/{m['Hal']['id']}", {"id": new_id(), "active": False}, token=owner))
    did = fixture_dates(club, owner, fixture["id"])[0]["id"]
    answered(club, m["Ana"], did, "in")
    answered(club, m["Bea"], did, "in")
    answered(club, m["Dee"], did, "out")
    # Gus has no email and Hal is inactive: neither is reminded; Çelik, Eli and Fay are.
    reminded = {m[n]["id"]: n for n in ("Çelik", "Eli", "Fay")}
    ids = {n: f"<reminder.48.{did}.{m[n]['id']}@{HOST}>" for n in ("Çelik", "Eli", "Fay")}

    # A minute before the reminder's time: nothing is claimed, nothing arrives.
    remind_at = starts_at - 48 * HOUR
    club.advance(remind_at - MINUTE - club.now())
    time.sleep(0.6)  # more than a sweep (0.5 s) of each instance
    assert mail_rows(club, owner, did) == {} and mail_server.tries == {}, mail_server.tries

    # Its time: claimed before the clock answers (pending), tried at once; refused twice.
    mail_server.refuse_first(lambda message_id: message_id.startswith("<reminder.48."), 2)
    club.advance(remind_at - club.now())
    rows = mail_rows(club, owner, did, "reminder", 48)
    assert set(rows) == set(reminded) and {r["state"] for r in rows.values()} <= {"pending", "sent"}, rows
    wait_tries(mail_server, list(ids.values()), 1)
    # Recorded as failed once: pending, the next try a minute after the first.
    wait_rows(club, owner, did, lambda r: r["state"] == "pending" and remind_at + MINUTE <= r["at"] <= remind_at + 2 * MINUTE)
    club.advance(MINUTE)
    wait_tries(mail_server, list(ids.values()), 2)
    wait_rows(club, owner, did, lambda r: r["state"] == "pending" and r["at"] <= remind_at + 6 * MINUTE)
    assert mail_server.accepted() == []

    # The third try (5 minutes after the first) of Eli's is held open and both instances are
    # killed meanwhile: the claim is left `sending`, and is taken again 5 minutes later with the
    # same Message-ID.
    mail_server.hold_next(lambda message_id: message_id == ids["Eli"])
    club.advance(4 * MINUTE)
    assert mail_server.holding.wait(10), mail_server.tries
    # The other two go through meanwhile (one sender is stuck, the other is not); once they are
    # recorded `sent`, Eli's is the only mail in flight when the instances die. (A sender killed
    # between the server's 250 and its record would send again, with the same Message-ID.)
    others = {m[n]["id"] for n in ("Çelik", "Fay")}
    deadline = time.monotonic() + 10
    while {k for k, r in mail_rows(club, owner, did, "reminder", 48).items() if r["state"] == "sent"} != others:
        assert time.monotonic() < deadline, mail_rows(club, owner, did)
        time.sleep(0.1)
    for instance in club.instances:
        instance.stop(signal.SIGKILL)
    mail_server.release()
    for instance in club.instances:
        instance.start()
    assert mail_rows(club, owner, did, "reminder", 48)[m["Eli"]["id"]]["state"] == "pending"
    club.advance(5 * MINUTE)
    got = mail_server.wait_for(lambda r: r.header("X-Gather-Kind") == "reminder", 3, timeout=10)
    time.sleep(0.6)  # a second copy would have come by now (the clock sweeps every 0.5 s)
    got = mail_server.accepted(lambda r: r.header("X-Gather-Kind") == "reminder")
    assert sorted(r.header("Message-ID") for r in got) == sorted(ids.values()), [r.header("Message-ID") for r in got]
    assert sorted(r.rcpt[0] for r in got) == sorted(EMAILS[n] for n in reminded.values())
    assert mail_server.tries[ids["Eli"]] == 4, mail_server.tries
    rows = mail_rows(club, owner, did, "reminder", 48)
    assert {r["state"] for r in rows.values()} == {"sent"} and set(rows) == set(reminded), rows

    # What Çelik received: in French, her name encoded, her link and the one-tap answers.
    celik = next(r for r in got if r.rcpt == [EMAILS["Çelik"]])
    head = celik.raw.split(b"\r\n\r\n", 1)[0]
    assert all(byte < 128 for byte in head) and b"\r\n\r\n" not in head, head
    assert celik.header("To") == f"Çelik <{EMAILS['Çelik']}>" and celik.header("X-Gather-Date") == did
    assert celik.header("X-Gather-Member") == m["Çelik"]["id"] and "vous venez" in celik.header("Subject")
    token = m["Çelik"]["token"]
    assert f"http://{HOST}/club/m/{token}?date={did}&answer=in" in celik.body, celik.body
    assert f"http://{HOST}/club/m/{token}?date={did}&answer=out" in celik.body
    assert "pas encore répondu" in celik.body and "2 sur 3 inscrits" in celik.body, celik.body
    render(club, celik)

    # 23:00 that evening (quiet hours): a seat frees up; the offer's mail comes within 5 s.
    day = datetime.fromtimestamp(remind_at / 1000, zone).date()
    club.advance(local_instant(zone, day, 23) - club.now())
    assert mine(answered(club, m["Eli"], did, "in"))["state"] == "confirmed"
    assert mine(answered(club, m["Fay"], did, "in"))["state"] == "waiting"
    freed = time.monotonic()
    answered(club, m["Ana"], did, "out")
    offer = mail_server.wait_for(lambda r: r.header("X-Gather-Kind") == "offer", 1, timeout=5)[0]
    assert offer.arrived - freed < 5 and offer.rcpt == [EMAILS["Fay"]], offer.arrived - freed
    assert offer.header("Message-ID") == f"<offer.1.{did}.{m['Fay']['id']}@{HOST}>"

    # The 28-hour reminder falls in quiet hours: held (not even listed) until 08:00, then sent to
    # the one who has still not answered.
    quiet_at = starts_at - 28 * HOUR
    morning = datetime.fromtimestamp(quiet_at / 1000, zone).date()
    club.advance(quiet_at - club.now())
    assert mail_rows(club, owner, did, "reminder", 28) == {}
    club.advance(local_instant(zone, morning, 7, 59) - club.now())
    time.sleep(0.6)
    assert mail_rows(club, owner, did, "reminder", 28) == {}
    club.advance(local_instant(zone, morning, 8) - club.now())
    assert set(mail_rows(club, owner, did, "reminder", 28)) == {m["Çelik"]["id"]}
    later = mail_server.wait_for(lambda r: ".28." in r.header("Message-ID"), 1, timeout=3)
    assert [r.rcpt for r in later] == [[EMAILS["Çelik"]]]
    deadline = time.monotonic() + 5
    while (row := mail_rows(club, owner, did, "reminder", 28)[m["Çelik"]["id"]])["state"] != "sent":
        assert time.monotonic() < deadline, row
        time.sleep(0.05)
    assert row["at"] >= local_instant(zone, morning, 8), row

    # Sunday's last hours: Fay claims her place, Çelik waits; when Eli drops out, Çelik takes
    # the place at once and is told so.
    ok(club.api("POST", f"/club/api/m/{m['Fay']['token']}/claim", {"id": new_id(), "date": did}))
    assert mine(answered(club, m["Çelik"], did, "in"))["state"] == "waiting"
    club.advance(starts_at - 2 * HOUR - club.now())
    freed = time.monotonic()
    answered(club, m["Eli"], did, "out")
    promoted = mail_server.wait_for(lambda r: r.header("X-Gather-Kind") == "promoted", 1, timeout=5)[0]
    assert promoted.arrived - freed < 5 and promoted.rcpt == [EMAILS["Çelik"]], promoted.arrived - freed
    assert promoted.header("Message-ID") == f"<promoted.0.{did}.{m['Çelik']['id']}@{HOST}>"
    assert "vous êtes inscrit" in promoted.body, promoted.body

    # Cancelled: every `in` answer (confirmed Bea, Fay and Çelik) is told, once. Bea's
    # mail is refused every time: tried at once, then 1, 5, 15, 30 and 60 minutes after, then
    # shown as failed, and never tried again.
    bea = f"<cancelled.0.{did}.{m['Bea']['id']}@{HOST}>"
    mail_server.refuse_first(lambda message_id: message_id == bea, 99)
    ok(club.api("POST", f"/club/api/dates/{did}/cancel", {"id": new_id()}, token=owner))
    cancelled = mail_server.wait_for(lambda r: r.header("X-Gather-Kind") == "cancelled", 2, timeout=5)
    wait_tries(mail_server, [bea], 1)
    first_try = club.now()
    for tries, after in enumerate((1, 5, 15, 30, 60), start=2):
        # Pending, the next try `after` minutes after the first (not yet: nothing more is tried).
        # (A claim being sent also shows `pending`, at its stale time, which is never in this minute.)
        row = wait_row(club, owner, did, m["Bea"]["id"], "cancelled", lambda r: r["state"] == "pending"
                       and first_try + (after - 1) * MINUTE < r["at"] <= first_try + after * MINUTE)
        assert mail_server.tries[bea] == tries - 1, (tries, mail_server.tries)
        club.advance(row["at"] - club.now())
        wait_tries(mail_server, [bea], tries)
    failed = wait_row(club, owner, did, m["Bea"]["id"], "cancelled", lambda r: r["state"] == "failed")
    assert failed["at"] >= first_try + 60 * MINUTE - 5000, failed
    club.advance(2 * 60 * MINUTE)
    time.sleep(0.6)
    assert mail_server.tries[bea] == 6, mail_server.tries
    cancelled = mail_server.accepted(lambda r: r.header("X-Gather-Kind") == "cancelled")
    assert sorted(r.rcpt[0] for r in cancelled) == sorted(EMAILS[n] for n in ("Çelik", "Fay"))
    assert "Sunday 7-a-side" in cancelled[0].header("Subject")
    counts = {}
    for r in mail_server.accepted():
        counts[r.header("Message-ID")] = counts.get(r.header("Message-ID"), 0) + 1
    assert set(counts.values()) == {1}, counts
    # Every conversation logged in over STARTTLS, and the SMTP password was never printed.
    assert len(mail_server.logins) == sum(mail_server.tries.values()), (mail_server.logins, mail_server.tries)
    assert all(login.endswith(":ok") for login in mail_server.logins), mail_server.logins
    assert SMTP_PASSWORD not in club.printed()
    club.assert_no_secret_printed()


def render(club, received):
    """The received reminder as a mail client shows it (headers decoded, the text), at 390 px."""
    rows = "".join(f"<tr><th>{name}</th><td>{html.escape(received.header(name))}</td></tr>"
                   for name in ("From", "To", "Subject", "Date"))
    page = ("<!doctype html><html lang='fr'><meta charset='utf-8'><meta name='viewport' content='width=device-width'><title>Mail</title>"
            "<style>body{font:15px system-ui,sans-serif;margin:12px}th{text-align:left;padding-right:8px;color:#555}"
            "pre{white-space:pre-wrap;overflow-wrap:anywhere;font:15px system-ui,sans-serif}</style>"
            f"<table>{rows}</table><hr><pre>{html.escape(received.body)}</pre></html>")
    browser = Browser(club, 390, 844, language="fr")
    try:
        browser.driver.get("data:text/html;base64," + base64.b64encode(page.encode()).decode())
        browser.screenshot("club-reminder-mail.png", full_page=True)
    finally:
        browser.close()


def test_without_smtp_the_reminders_are_listed_unsent_for_the_organisers(club_factory):
    club = club_factory(instances=1)
    owner = club.register_owner()
    weekday, time_text, starts_at = first_start(club.now(), club.time_zone, 4, "10:00")
    fixture = add_fixture(club, owner, title="Sunday 7-a-side", weekday=weekday, time=time_text, capacity=3,
                          reminderHoursBefore=[48])
    m = add_members(club, owner, ["Ana", "Bea", "Gus"], {"Ana": "ana@example.org", "Bea": "bea@example.org"})
    did = fixture_dates(club, owner, fixture["id"])[0]["id"]
    answered(club, m["Ana"], did, "in")
    club.advance(starts_at - 48 * HOUR - club.now() + 30_000)
    date = organiser_date(club, owner, did)
    assert date["mail"] == [{"memberId": m["Bea"]["id"], "kind": "reminder", "slot": 48, "state": "unsent",
                             "at": starts_at - 48 * HOUR}], date["mail"]
    assert "1 of 3 in" in date["message"], date["message"]

    # The organisers' page lists who would have been reminded, beside the message to copy.
    browser = Browser(club, 390, 844, language="en")
    try:
        browser.open("/club/")
        browser.wait(lambda: browser.find("#login-form").is_displayed(), what="the sign-in form")
        browser.fill("#login-form [name=username]", "owner")
        browser.fill("#login-form [name=password]", PASSWORD)
        browser.click("#login-form button[type=submit]")
        browser.wait(lambda: browser.find("#signed-in").is_displayed(), what="the club page")
        row = f'.date-row[data-date="{did}"]'
        browser.wait(lambda: browser.find(row), what="the date in the list")
        browser.click(row)
        browser.wait(lambda: browser.find("#date-view").is_displayed(), what="the date view")
        browser.wait(lambda: browser.find(".mail-list li"), what="the mail list")
        items = [item.text for item in browser.driver.find_elements("css selector", ".mail-list li")]
        assert len(items) == 1 and items[0].startswith("Bea · reminder · not sent (no mail set up)"), items
        assert browser.find("#group-message").get_attribute("value") == date["message"]
        browser.driver.execute_script("document.querySelector('.mail-list').scrollIntoView()")
        browser.screenshot("club-organiser-unsent-mail-390.png")
    finally:
        browser.close()


@pytest.mark.parametrize("args, said", [
    (["--smtp", "smtp://user:s3cret-pw@localhost:2525", "--smtp-plain", "--mail-from", FROM], "refuses a user or password"),
    (["--smtp", "smtp://localhost:2525"], "--mail-from"),
    (["--smtp", "http://localhost:2525", "--mail-from", FROM], "smtp://"),
    (["--mail-from", FROM], "go with --smtp"),
    (["--smtp", "smtp://localhost:2525", "--mail-from", "not an address"], "--mail-from"),
])
def test_smtp_options_are_refused_before_anything_starts(args, said):
    done = subprocess.run([BINARY, "club", "serve", "--postgres", "postgresql://gather@127.0.0.1:1/none", *args],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode != 0 and said in done.stderr, (done.returncode, done.stderr)
    assert "s3cret-pw" not in done.stdout + done.stderr
