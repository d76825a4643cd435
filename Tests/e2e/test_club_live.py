"""`/club/live` across instances (PROTOCOL.md, "The week": "a change made through one reaches
the pages connected to any other within 1 s"; precision 12): a member's page and an
organisers' page connected to instance 2, and one through nginx, see a change made through
instance 1 within 1 s of sending it; a bad token is answered `unauthorized` and closed (1008)."""
import secrets
import time

import pytest

from club_week_support import add_fixture, add_members, answer, first_start, fixture_dates, ok

ROUNDS = 6


@pytest.mark.timing
@pytest.mark.mostly_waits
def test_a_change_through_one_instance_reaches_followers_on_the_other_and_through_nginx_within_1_s(club):
    owner = club.register_owner()
    weekday, time_of_day, _ = first_start(club.now(), club.time_zone, 3, "10:00")
    fixture = add_fixture(club, owner, title="Sunday 7-a-side", weekday=weekday, time=time_of_day, capacity=10)
    did = fixture_dates(club, owner, fixture["id"])[0]["id"]
    m = add_members(club, owner, ["Ana", "Ben"])
    near, far = club.instances[0].base_url, club.instances[1].base_url

    with club.live(m["Ana"]["token"], "member", base=far) as member_page, \
            club.live(owner, "organiser", base=far) as organisers_page, \
            club.live(m["Ana"]["token"], "member") as through_nginx:
        for follower in (member_page, organisers_page, through_nginx):
            follower.following()
            assert follower.subprotocol == "club.v1"
        lags = []
        for round_ in range(ROUNDS):
            sent = time.monotonic()
            ok(answer(club, m["Ben"], did, "in" if round_ % 2 == 0 else "out", base=near))
            for follower in (member_page, organisers_page, through_nginx):
                lags.append(follower.changed(did, after=sent, timeout=1.0) - sent)
        print(f"club live: {len(lags)} changes followed across instances, slowest {max(lags) * 1000:.0f} ms")
        assert max(lags) <= 1.0, lags

    for kind in ("member", "organiser"):
        with club.live(secrets.token_urlsafe(16), kind, base=far) as stranger:
            _, message = stranger.wait(lambda _: True, timeout=5)
            assert (message.get("type"), message.get("code")) == ("error", "unauthorized"), message
            assert stranger.wait_closed() == 1008
