"""Nothing acknowledged is lost (PROTOCOL.md, "The week": "Every answer to a change comes after
its transaction committed"; issue 43): members answer through an instance while it is killed -9
and started again, then while PostgreSQL stops as a crash does (immediate shutdown) and starts
again. Every answer acknowledged is there afterwards; every one that was not is sent again with
its id and is then there exactly once. Meanwhile nginx sends everything to the living instance."""
import http.client
import signal
import threading
import time

from clublib import new_id
from club_week_support import (add_fixture, add_members, answers_by_member, first_start, fixture_dates,
                               organiser_date)
import pytest

# Mostly waiting on other processes (NATS, PostgreSQL, an SMTP server, restarts): make test runs it
# in the serial lane beside the parallel phase (conftest.py).
pytestmark = pytest.mark.mostly_waits


class Answers(threading.Thread):
    """Members answering `in` one after another (with a pause), each change's id kept with how
    it ended: its status and body, or the error that stood for an answer."""

    def __init__(self, club, members, date_id, bases, pause=0.05):
        super().__init__(daemon=True)
        self.club, self.members, self.date_id, self.bases, self.pause = club, members, date_id, bases, pause
        self.sent: list[tuple[dict, dict, object]] = []  # (member, change, (status, body) or exception)
        self._acks = threading.Semaphore(0)

    def run(self):
        for index, member in enumerate(self.members):
            change = {"id": new_id(), "date": self.date_id, "answer": "in", "guests": 0}
            try:
                outcome = self.club.api("POST", f"/club/api/m/{member['token']}/answer", change,
                                        base=self.bases[index % len(self.bases)])
            except (OSError, http.client.HTTPException) as error:  # refused or dropped while it is down
                outcome = error
            self.sent.append((member, change, outcome))
            if isinstance(outcome, tuple) and outcome[0] == 200:
                self._acks.release()
            time.sleep(self.pause)

    def wait_acks(self, count: int, timeout: float = 30):
        deadline = time.monotonic() + timeout
        for _ in range(count):
            assert self._acks.acquire(timeout=max(0.0, deadline - time.monotonic())), self.sent

    def acknowledged(self):
        return [(m, c, o) for m, c, o in self.sent if isinstance(o, tuple) and o[0] == 200]

    def unacknowledged(self):
        return [(m, c, o) for m, c, o in self.sent if not (isinstance(o, tuple) and o[0] == 200)]


def settle(club, owner, answers: Answers, date_id: str, timeout: float = 30):
    """After the thread: every acknowledged answer is there as it was acknowledged; every other
    is sent again with its own id (the club may be reconnecting: bounded retries) and is there."""
    answers.join(120)
    assert not answers.is_alive() and len(answers.sent) == len(answers.members), answers.sent
    view = answers_by_member(wait_serving(club, owner, date_id, timeout))
    for member, change, (status, body) in answers.acknowledged():
        acknowledged = body["date"]["mine"]["state"]
        assert view[member["id"]]["answer"] == "in" and view[member["id"]]["state"] == acknowledged, member
    for member, change, outcome in answers.unacknowledged():
        deadline = time.monotonic() + timeout
        while True:
            try:
                status, body = club.api("POST", f"/club/api/m/{member['token']}/answer", change)
            except (OSError, http.client.HTTPException) as error:
                status, body = 0, error
            if status == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert status == 200 and body["date"]["mine"]["answer"] == "in", (member, outcome, status, body)


def wait_serving(club, owner, date_id, timeout):
    """The organisers' date once both instances answer again (PostgreSQL back, reconnected)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            answers = [club.api("GET", f"/club/api/dates/{date_id}", token=owner, base=i.base_url)
                       for i in club.instances]
            if all(status == 200 for status, _ in answers):
                return organiser_date(club, owner, date_id)
        except (OSError, http.client.HTTPException):
            answers = "connection refused or dropped"
        assert time.monotonic() < deadline, answers
        time.sleep(0.2)


def test_an_instance_killed_and_postgres_crashed_mid_week_lose_nothing_acknowledged(club):
    owner = club.register_owner()
    weekday, time_of_day, _ = first_start(club.now(), club.time_zone, 3, "10:00")
    fixture = add_fixture(club, owner, title="Sunday 11-a-side", weekday=weekday, time=time_of_day, capacity=60)
    did = fixture_dates(club, owner, fixture["id"])[0]["id"]
    members = list(add_members(club, owner, [f"Player {n:02d}" for n in range(40)]).values())
    first, second = (instance.base_url for instance in club.instances)

    # An instance killed -9 while answers come through it, then started again.
    answers = Answers(club, members[:20], did, [first])
    answers.start()
    answers.wait_acks(5)
    club.instances[0].stop(signal.SIGKILL)
    for _ in range(4):  # nginx takes the dead instance out: every request reaches the other
        assert club.api("GET", "/club/api/club", token=owner)[0] == 200
    club.instances[0].start()
    settle(club, owner, answers, did)

    # PostgreSQL stopped as a crash does while answers come through both instances.
    answers = Answers(club, members[20:], did, [first, second], pause=0.1)
    answers.start()
    answers.wait_acks(5)
    club.restart_postgres("immediate")
    settle(club, owner, answers, did)

    date = organiser_date(club, owner, did)
    states = [entry["state"] for entry in date["answers"]]
    assert states == ["confirmed"] * 40 and date["confirmedSeats"] == 40, date
    club.assert_no_secret_printed()  # not even when the database went away under them
    print(f"club durability: {len(answers.acknowledged())} of 20 answers acknowledged across the PostgreSQL crash")
