"""Shared pytest settings for the end-to-end suite.

`make test` runs the suite in two phases: everything not marked `timing` in parallel (one
worker per test file, at nice 10), then the `timing` tests one at a time, so that a test
asserting a latency or a rate never shares the two cores with the rest of the suite at equal
priority. The `mostly_waits` tests (the three-minute bad uplink, the hub node, leaf and venue
killed mid-match, NATS stopped and back, a clock's ticks, a deadline, idle connections, a few
password checks, a token bucket, a flooded door: a few seconds of CPU each, bounds of a second and
more or a comparison of two medians) run one at a time at normal priority beside the parallel
phase; the unit tests run at nice 19 beside the timing tests.
"""
import pytest

from pages_support import Browser
# The club's rig (a private PostgreSQL per worker, instances behind nginx) for any test file.
from clublib import club, club_factory, club_postgres  # noqa: F401


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "timing: asserts a latency, a rate or a deadline; run alone in the serial phase of make test")
    config.addinivalue_line(
        "markers", "mostly_waits: a test that mostly waits (a goal every few seconds over a slow link, a "
                   "process killed and back, a clock's ticks, a deadline, NATS, PostgreSQL or an SMTP server) "
                   "with bounds of a second or more, if any, and a few seconds of CPU: make test runs these one "
                   "at a time at normal priority beside the parallel phase (nice 10)")


@pytest.fixture()
def browsers():
    """Opens headless Chromium windows (a phone by default) and closes them after the test."""
    opened = []

    def open_browser(server, width=390, height=844):
        browser = Browser(server, width, height)
        opened.append(browser)
        return browser
    yield open_browser
    for browser in opened:
        browser.close()


# The parallel phase hands out whole files in collection order; the few that take longest start
# first, so none of them begins last and keeps one worker busy after the others are done.
# (Measured with --durations; a file not named here keeps its alphabetical place after these.)
LONGEST_FIRST = ("test_pages_venue_overview.py", "test_pages_a11y.py", "test_pages_tournament_first.py", "test_pages_languages_tournament.py", "test_pages_pitches_views.py",
                 "test_pages_sunday.py", "test_durability.py", "test_pages_tournament.py", "test_pages_small_phones.py",
                 "test_pages_pitches.py", "test_tap_targets.py", "test_organisers.py",
                 "test_pages_small_things.py", "test_pages_organisers.py", "test_pages_languages.py",
                 "test_hardening.py", "test_pages_referees.py", "test_club_pages.py", "test_club_race.py",
                 "test_club_mail.py", "test_club_list.py")


def pytest_collection_modifyitems(session, config, items):
    rank = {name: index for index, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest keep their order
