"""Helpers for the tournament e2e tests: commands that must be acked or rejected, a tournament
created over the wire, and one match played from kickoff to full time."""
import time

START_MS = 1_790_000_000_000


async def acked(live, action, base=None):
    reply = await live.command(action, base=base)
    assert reply["type"] == "ack", (action, reply)
    await live.wait_snapshot(reply["version"])
    return reply


async def rejected(live, action, code, contains=None, base=None, reason=None, params=None):
    """A command that must be refused with `code` (and, when given, the sentence key `reason` with
    at least `params`, what a page says in its reader's language); the state's version must not
    move (checked when the command goes from the client's newest version)."""
    version = live.version
    reply = await live.command(action, base=base)
    assert reply["type"] == "rejected", (action, reply)
    assert reply["code"] == code, (action, reply)
    if contains is not None:
        assert contains in reply["message"], (contains, reply["message"])
    if reason is not None:
        assert reply.get("reason") == reason, (action, reply)
        for name, value in (params or {}).items():
            assert reply["params"].get(name) == value, (name, reply)
    if base is None:
        # The client held the newest version (its own last change): a refusal leaves it there.
        assert reply["version"] == version, reply
    return reply


def create_action(names, groups, advance, pitches=(1, 2), **rules):
    return {"kind": "createTournament", "name": rules.pop("name", "Riverside Cup"), "teams": list(names),
            "groups": groups, "advance": advance, "pitches": list(pitches), "matchMinutes": rules.pop("matchMinutes", 10),
            "breakMinutes": rules.pop("breakMinutes", 5), "startsAt": rules.pop("startsAt", START_MS), **rules}


def tournament(live) -> dict:
    return live.snapshot["tournament"]


def match(live, match_id) -> dict:
    return next(m for m in tournament(live)["matches"] if m["id"] == match_id)


def pitch_of(live, pitch_id) -> dict:
    return next(p for p in live.snapshot["pitches"] if p["id"] == pitch_id)


async def kick_off(live, match_id):
    await acked(live, {"kind": "startMatch", "match": match_id})
    return match(live, match_id)["pitch"]


async def goals(live, pitch, home, away):
    for side, count in (("A", home), ("B", away)):
        for _ in range(count):
            await acked(live, {"kind": "score", "team": side, "delta": 1, "pitch": pitch})


async def play(live, match_id, home, away, penalties=None):
    """Starts match `match_id`, scores `home`–`away` on its pitch and ends it (with `penalties`,
    `(home, away)`, for a level knockout match). Returns the finished match."""
    pitch = await kick_off(live, match_id)
    await goals(live, pitch, home, away)
    end = {"kind": "endGather", "pitch": pitch}
    if penalties is not None:
        end["penalties"] = {"A": penalties[0], "B": penalties[1]}
    await acked(live, end)
    finished = match(live, match_id)
    assert finished["status"] == "finished", finished
    return finished


def wait_for(predicate, timeout=10.0, interval=0.05):
    """Polls `predicate` (bounded in time) until it is true."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return False
