"""A tournament made and played over the wire for the page tests: created, matches started,
goals scored and ended through a real wss organiser connection."""
import contextlib
import time

from gatherlib import Live
from pages_support import organiser, perform as send


async def perform(live: Live, action: dict) -> dict:
    """One acked command, then this connection's copy of the state at (or past) its version."""
    reply = await send(live, action)
    await live.wait_snapshot(reply["version"])
    return reply

TEAMS8 = ("Reds", "Blues", "Greens", "Whites", "Blacks", "Yellows", "Oranges", "Purples")


def create_action(names, groups, advance, pitches, starts_at_ms, **rules):
    return {"kind": "createTournament", "name": rules.pop("name", "Riverside Cup"), "teams": list(names),
            "groups": groups, "advance": advance, "pitches": list(pitches),
            "matchMinutes": rules.pop("matchMinutes", 10), "breakMinutes": rules.pop("breakMinutes", 5),
            "startsAt": starts_at_ms, **rules}


def place_words(label: str) -> str:
    """A knockout place as the pages say it (English): "A1" is "Group A winner", "W25" "Winner of match 25"."""
    if label[0] == "W":
        return f"Winner of match {label[1:]}"
    if label[0] == "L":
        return f"Loser of match {label[1:]}"
    rank = {"1": "winner", "2": "runner-up"}.get(label[1:])
    return f"Group {label[0]} {rank}" if rank else f"Group {label[0]} no. {label[1:]}"


def now_ms() -> int:
    return int(time.time() * 1000)


async def add_pitches(live: Live, count: int) -> list[int]:
    """The venue's pitches, adding until there are `count`; their ids in order."""
    while len(live.snapshot["pitches"]) < count:
        await perform(live, {"kind": "addPitch", "name": f"Pitch {len(live.snapshot['pitches']) + 1}"})
    return [pitch["id"] for pitch in live.snapshot["pitches"]][:count]


def match(live: Live, match_id: int) -> dict:
    return next(m for m in live.snapshot["tournament"]["matches"] if m["id"] == match_id)


async def play(live: Live, match_id: int, home: int, away: int, penalties=None, end: bool = True) -> int:
    """Starts match `match_id`, scores `home`–`away` and (if `end`) ends it; returns its pitch."""
    await perform(live, {"kind": "startMatch", "match": match_id})
    pitch = match(live, match_id)["pitch"]
    for side, count in (("A", home), ("B", away)):
        for _ in range(count):
            await perform(live, {"kind": "score", "pitch": pitch, "team": side, "delta": 1})
    if end:
        action = {"kind": "endGather", "pitch": pitch}
        if penalties is not None:
            action["penalties"] = {"A": penalties[0], "B": penalties[1]}
        await perform(live, action)
    return pitch


async def play_group_stage(live: Live, skip=()):
    """Every group match not yet played: home wins by (id % 3) goals, every third match a draw."""
    for m in list(live.snapshot["tournament"]["matches"]):
        if m["stage"] == "group" and m["status"] == "scheduled" and m["id"] not in skip:
            await play(live, m["id"], m["id"] % 3, 0)


async def play_knockout(live: Live):
    """Every knockout match in id order, the home side winning 2–1."""
    for m in list(live.snapshot["tournament"]["matches"]):
        current = match(live, m["id"])
        if current["stage"] != "group" and current["status"] == "scheduled":
            await play(live, m["id"], 2, 1)


async def connect_organiser(server) -> Live:
    return await organiser(server)


@contextlib.contextmanager
def venue_of_three_pitches():
    """A running server with the registered organiser and two pitches added to the first."""
    from gatherlib import GatherServer, run
    from pages_support import register_organiser

    with GatherServer() as server:
        register_organiser(server)

        async def two_pitches():
            live = await connect_organiser(server)
            try:
                await add_pitches(live, 2)
            finally:
                await live.close()
        run(two_pitches())
        yield server


@contextlib.contextmanager
def running_late_day(pitches: int = 2, players: tuple[str, ...] = (), **create):
    """Eight teams in 2 groups (2 through) on two pitches (of `pitches` added), planned to start 20
    minutes ago: match 1 played 2–1, the first match on the second pitch live at 1–0 (so the next
    there runs late); `players` added to the roster. Yields (server, the tournament as then)."""
    from gatherlib import GatherServer, run
    from pages_support import register_organiser

    with GatherServer() as server:
        register_organiser(server)

        async def set_up():
            live = await connect_organiser(server)
            try:
                added = await add_pitches(live, pitches)
                await perform(live, create_action(TEAMS8, 2, 2, added[:2], now_ms() - 20 * 60000, **create))
                await play(live, 1, 2, 1)
                await play(live, 2, 1, 0, end=False)
                for name in players:
                    await perform(live, {"kind": "addPlayer", "name": name, "age": 31, "skill": "amateur",
                                         "position": "striker"})
                return live.snapshot["tournament"]
            finally:
                await live.close()
        yield server, run(set_up())
