"""Issue 23, the protocol over the real binary: one goal counted once between two organisers
(`possible_duplicate`, `confirmed`), full time that stays (`lastResult`, across a restart), and
undo of a cancelled goal (`restoreGoal`, with its conflicts)."""
import re
import uuid

from gatherlib import GatherServer, Live, pitch_gather, run, signed_in
from pages_support import perform

DUPLICATE = re.compile(r"^maria added a goal for Whites (just now|\d+ s ago)\. Add another\?$")


async def live_match(server):
    """maria and ann on their own connections (gather.v2, like the pages); Ann (1) plays for
    Whites, Bob (2) for Team B, live on pitch 1."""
    maria = await signed_in(server, "maria", subprotocols=("gather.v2",))
    ann = await signed_in(server, "ann", subprotocols=("gather.v2",))
    for action in ({"kind": "addPlayer", "name": "Ann"}, {"kind": "addPlayer", "name": "Bob"},
                   {"kind": "createGather", "playerIds": [1, 2]}, {"kind": "assign", "playerId": 1, "to": "A"},
                   {"kind": "assign", "playerId": 2, "to": "B"}, {"kind": "renameTeam", "team": "A", "name": "Whites"},
                   {"kind": "startGather"}):
        await perform(maria, action)
    await ann.wait_snapshot(maria.version)
    return maria, ann


def test_two_organisers_one_goal_is_asked_once_and_counted_once_unless_confirmed():
    async def go(server):
        maria, ann = await live_match(server)
        goal = await maria.command({"kind": "score", "team": "A", "delta": 1})
        assert goal["type"] == "ack"
        await ann.wait_snapshot(goal["version"])
        # ann saw maria's goal (her base is current) and presses +1 a moment later: asked.
        asked = await ann.command({"kind": "score", "team": "A", "delta": 1}, command_id="ann-1")
        assert asked["type"] == "rejected" and asked["code"] == "possible_duplicate", asked
        assert DUPLICATE.match(asked["message"]), asked["message"]
        assert asked["version"] == goal["version"], "nothing changed"
        # The answer is final for that id: sent again, even confirmed, it is repeated unchanged.
        again = await ann.command({"kind": "score", "team": "A", "delta": 1, "confirmed": True}, command_id="ann-1")
        assert again == asked
        # The other team, and maria's own second press, are not asked.
        other = await ann.command({"kind": "score", "team": "B", "delta": 1})
        assert other["type"] == "ack", other
        # "Add another": a new command with confirmed: true counts a second goal.
        confirmed = await ann.command({"kind": "score", "team": "A", "delta": 1, "confirmed": True})
        assert confirmed["type"] == "ack", confirmed
        state = await ann.wait_snapshot(confirmed["version"])
        assert pitch_gather(state, 1)["score"] == {"A": 2, "B": 1}
        own = await ann.command({"kind": "score", "team": "A", "delta": 1})
        assert own["type"] == "ack", "an organiser's own second press is a second goal"
        # A stale base is judged first: maria, who had not seen ann's goals, gets a conflict.
        stale = await maria.command({"kind": "score", "team": "A", "delta": 1}, base=goal["version"])
        assert stale["type"] == "rejected" and stale["code"] == "conflict", stale
        assert "ann changed Whites's score" in stale["message"]
        # confirmed must be a boolean.
        bad = await ann.command({"kind": "score", "team": "A", "delta": 1, "confirmed": "yes"})
        assert bad["code"] == "invalid" and "confirmed" in bad["message"]
        final = await ann.wait_snapshot(own["version"])
        assert pitch_gather(final, 1)["score"] == {"A": 3, "B": 1}
        await maria.close()
        await ann.close()

    with GatherServer() as server:
        run(go(server))


def test_the_last_result_stays_on_its_pitch_across_a_restart_until_the_next_gather():
    async def play_and_end(server):
        maria, ann = await live_match(server)
        for action in ({"kind": "score", "team": "A", "delta": 1, "playerId": 1},
                       {"kind": "score", "team": "B", "delta": 1}):
            await perform(maria, action)
        await ann.wait_snapshot(maria.version)
        end = await perform(ann, {"kind": "endGather"})
        state = await ann.wait_snapshot(end["version"])
        pitch = state["pitches"][0]
        assert pitch["gather"] is None
        history = state["history"][0]
        assert pitch["lastResult"] == {
            "historyId": history["id"], "endedAt": history["endedAt"],
            "teams": {"A": {"name": "Whites", "score": 1, "playerIds": [1], "colour": "blue"},
                      "B": {"name": "Team B", "score": 1, "playerIds": [2], "colour": "red"}},
            "winner": "draw",
            "goals": [{"team": "A", "playerId": 1, "assistId": None, "matchMs": 0},
                      {"team": "B", "playerId": None, "assistId": None, "matchMs": 0}],
        }
        await maria.close()
        await ann.close()
        return pitch["lastResult"]

    async def after_restart(server, expected):
        # A gather.v1 client sees it in `pitches` too.
        v1 = await Live.connect(server)
        await v1.next()
        assert v1.snapshot["pitches"][0]["lastResult"] == expected
        await v1.close()
        ann = await Live.connect(server, subprotocols=("gather.v2",))
        await ann.next()
        assert ann.snapshot["pitches"][0]["lastResult"] == expected
        assert (await ann.login("ann"))["role"] == "organiser"
        created = await perform(ann, {"kind": "createGather", "playerIds": [1, 2]})
        state = await ann.wait_snapshot(created["version"])
        assert state["pitches"][0]["lastResult"] is None, "the next gather clears it"
        cancelled = await perform(ann, {"kind": "cancelGather"})
        state = await ann.wait_snapshot(cancelled["version"])
        assert state["pitches"][0]["lastResult"] is None, "cancelling does not bring it back"
        await ann.close()

    with GatherServer() as server:
        expected = run(play_and_end(server))
        assert server.stop() == 0
        server.start()
        run(after_restart(server, expected))


def test_restore_goal_undoes_a_cancellation_and_conflicts_as_a_subject():
    async def go(server):
        maria, ann = await live_match(server)
        goal = await perform(maria, {"kind": "score", "team": "A", "delta": 1, "playerId": 1})
        await ann.wait_snapshot(goal["version"])
        seen = ann.version
        cancel = await perform(maria, {"kind": "score", "team": "A", "delta": -1})
        state = await maria.wait_snapshot(cancel["version"])
        seq = next(e["seq"] for e in pitch_gather(state, 1)["events"] if e["kind"] == "goal")
        # ann had not seen the cancellation: her restore from that base conflicts.
        stale = await ann.command({"kind": "restoreGoal", "seq": seq}, base=seen)
        assert stale["type"] == "rejected" and stale["code"] == "conflict" and "maria changed" in stale["message"], stale
        await ann.wait_snapshot(cancel["version"])
        restored = await ann.command({"kind": "restoreGoal", "seq": seq})
        assert restored["type"] == "ack", restored
        state = await ann.wait_snapshot(restored["version"])
        gather = pitch_gather(state, 1)
        assert gather["score"]["A"] == 1
        events = {e["seq"]: e for e in gather["events"]}
        assert events[seq]["cancelled"] is False and events[seq]["playerId"] == 1, "its scorer is kept"
        cancellation = next(e for e in gather["events"] if e["kind"] == "goalCancelled")
        assert cancellation["cancels"] == seq and cancellation["undone"] is True
        restoration = gather["events"][-1]
        assert restoration["kind"] == "goalRestored" and restoration["restores"] == seq and restoration["by"] == "ann"
        # A goal that stands, an unknown seq, a seq that is not a goal: not_found.
        for wrong in (seq, 999, cancellation["seq"]):
            reply = await ann.command({"kind": "restoreGoal", "seq": wrong})
            assert reply["code"] == "not_found", reply
        # At 99 there is no room: cancel a goal, score 99, then the restore is out_of_range.
        cancel = await perform(ann, {"kind": "cancelGoal", "seq": seq})
        for _ in range(99):
            await perform(ann, {"kind": "score", "team": "A", "delta": 1})
        full = await ann.command({"kind": "restoreGoal", "seq": seq})
        assert full["code"] == "out_of_range" and "99" in full["message"], full
        await maria.close()
        await ann.close()

    with GatherServer() as server:
        run(go(server))
