"""What the fixture recipes (`make_release*_fixture.py`) share: the six players every fixture
holds, and how a fixture is written (a real `gather serve` on a temporary folder, stopped
cleanly, its database checkpointed and vacuumed, then copied here).

Changing this file changes how future fixtures are made, never the committed `.sqlite` files.
"""
import asyncio
import shutil
import sqlite3
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "e2e"))

from gatherlib import GatherServer  # noqa: E402

PLAYERS = [
    {"name": "Ann", "age": 31, "skill": "professional", "position": "striker", "favouriteTeam": "Arsenal"},
    {"name": "Bob", "age": 28, "skill": "amateur", "position": "goalkeeper"},
    {"name": "Cid", "skill": "beginner", "position": "defender"},
    {"name": "Dee", "age": 40, "skill": "amateur", "position": "goalkeeper", "favouriteTeam": "Celtic"},
    {"name": "Eve", "position": "midfielder"},
    {"name": "Fay", "skill": "professional", "position": "winger"},
]


def write_fixture(name: str, build):
    """Runs `build(server)` (a coroutine function) against a fresh server, then writes the
    server's database, self-contained (no WAL), to `Tests/Fixtures/<name>`."""
    out = HERE / name
    with GatherServer() as server:
        asyncio.run(build(server))
        server.stop()
        source = Path(server.data_dir) / "gather.sqlite"
        connection = sqlite3.connect(source)
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.execute("VACUUM")
        connection.close()
        if out.exists():
            out.unlink()
        shutil.copyfile(source, out)
    print(f"wrote {out} ({out.stat().st_size} bytes)")


async def ann_and_bob(server):
    """`ann` then `bob` registered as organisers on two connections (that order makes ann the
    owner), and `do(who, action)`: one command sent by `who`, acked, and seen by both."""
    from gatherlib import Live

    ann = await Live.connect(server)
    await ann.next()
    assert (await ann.register("ann"))["type"] == "session"
    bob = await Live.connect(server)
    await bob.next()
    assert (await bob.register("bob"))["type"] == "session"

    async def do(who, action):
        await who.wait_snapshot(max(ann.version, bob.version))
        reply = await who.command(action)
        assert reply["type"] == "ack", (action, reply)
        await ann.wait_snapshot(reply["version"])
        await bob.wait_snapshot(reply["version"])
        return reply

    return ann, bob, do
