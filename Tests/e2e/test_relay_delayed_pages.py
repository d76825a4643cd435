"""A remote follower can tell the score is stale: through a real relay with nats-server stopped
mid-match, the spectator page and the projector say "Delayed", their clocks stop (greyed) at the
moment the venue was last heard, and the match says "Score as of HH:MM:SS" while the pitch moves
on (a goal the follower cannot see yet); when NATS is back everything snaps to the truth.
Screenshots: Tests/e2e/artifacts/delayed-follower-*.png."""
import re
import time

from gatherlib import PASSWORD, Live, run
from natslib import venue_and_relay
from test_relay_pages import RelaySite, reds_playing

AS_OF = re.compile(r"^Score as of \d\d:\d\d:\d\d$")
GREY = "rgb(91, 107, 98)"  # app.css --muted


def start_match(server):
    reds_playing(server, {"kind": "setTimer", "minutes": 20, "seconds": 0}, {"kind": "startTimer"},
                 {"kind": "score", "team": "A", "delta": 1})


def goal(server, team):
    async def go():
        ann = await Live.connect(server, subprotocols=("gather.v2",))
        await ann.next()
        assert (await ann.login("ann", PASSWORD)).get("role") == "organiser"
        assert (await ann.command({"kind": "score", "team": team, "delta": 1}))["type"] == "ack"
        await ann.close()
    run(go())


def test_a_follower_sees_delayed_a_stopped_clock_and_the_score_as_of_then_the_truth(browsers):
    with venue_and_relay() as (broker, server, relay):
        start_match(server)
        site = RelaySite(relay, server)
        phone = browsers(site, 360, 640).open("/?pitch=1")
        board = browsers(site, 1280, 720).open("/scoreboard.html?pitch=1")
        for page in (phone, board):
            page.wait_text("#connection", "Live", timeout=15)
            page.wait(lambda p=page: p.text("#score-a") == "1", 15, "the match")
        assert not phone.find("#as-of").is_displayed()

        stopped = time.monotonic()
        broker.stop()
        phone.wait_text("#connection", "Delayed", timeout=20)
        delayed_after = time.monotonic() - stopped
        board.wait_text("#connection", "Delayed", timeout=5)
        goal(server, "B")  # the pitch moves on; the follower cannot know
        frozen = (phone.text("#clock"), board.text("#clock"))
        time.sleep(2.2)
        assert (phone.text("#clock"), board.text("#clock")) == frozen, "the clocks stop while the link is down"
        assert AS_OF.match(phone.text("#as-of")), phone.text("#as-of")
        assert phone.text("#phase") == "Delayed"
        assert AS_OF.match(board.text("#status")), board.text("#status")
        assert phone.driver.execute_script("return getComputedStyle(document.querySelector('#clock')).color") == GREY
        assert (phone.text("#score-a"), phone.text("#score-b")) == ("1", "0"), "the last score heard, said to be old"
        notice = phone.text("#link-lost") if phone.find("#link-lost").is_displayed() else ""
        phone.screenshot("delayed-follower-360x640.png")
        board.screenshot("delayed-follower-board-1280x720.png")
        assert phone.axe() == [] and phone.console_errors() == []
        print(f"\n'Delayed' shown {delayed_after:.1f} s after nats-server stopped; notice: {notice!r}")

        broker.start()
        for page in (phone, board):
            page.wait_text("#connection", "Live", timeout=30)
            page.wait(lambda p=page: p.text("#score-b") == "1", 15, "the goal scored meanwhile")
        assert not phone.find("#as-of").is_displayed() and not phone.find("#link-lost").is_displayed()
        assert phone.text("#phase") == "Live"
        ticking = phone.text("#clock")
        phone.wait(lambda: phone.text("#clock") != ticking, 5, "the clock counting again")
        assert phone.driver.execute_script("return getComputedStyle(document.querySelector('#clock')).color") != GREY
        phone.screenshot("delayed-follower-back-360x640.png")
