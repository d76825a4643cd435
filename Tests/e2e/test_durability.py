"""Issue 4: nothing acknowledged is ever lost — kill -9, restarts, exports, backup."""
import asyncio
import csv
import io
import json
import os
import signal
import sqlite3
import subprocess
import time

import pytest

from gatherlib import BINARY, GatherServer, Live, run

TRIALS = int(os.environ.get("GATHER_CRASH_TRIALS", "20"))


async def organiser(server, name, register=True):
    live = await Live.connect(server)
    await live.next()
    session = await (live.register(name) if register else live.login(name))
    assert session.get("role") == "organiser", session
    return live, session["token"]


async def play_to_live(live, names=("A", "B")):
    for action in ([{"kind": "addPlayer", "name": n} for n in names]
                   + [{"kind": "createGather", "playerIds": [1, 2]}, {"kind": "assign", "playerId": 1, "to": "A"},
                      {"kind": "assign", "playerId": 2, "to": "B"}, {"kind": "startGather"}]):
        reply = await live.command(action)
        assert reply["type"] == "ack", (action, reply)
        await live.wait_snapshot(reply["version"])


def test_twenty_kill_9_trials_lose_nothing_acknowledged():
    """Each trial: fire commands without waiting, kill -9 mid-flight, restart on the same folders,
    check every acked change is there and the version did not go back, then resend every id."""
    server = GatherServer()
    try:
        server.start()
        sent_total = 0

        async def first_login():
            live, token = await organiser(server, "ann")
            await live.close()
            return token
        token = run(first_login())

        for trial in range(TRIALS):
            async def fire():
                live = await Live.connect(server)
                await live.next()
                await live.send({"type": "resume", "id": "r", "token": token})
                assert (await live.session_reply("r"))["role"] == "organiser"
                ids = [f"t{trial}-c{i}" for i in range(40)]
                for command_id in ids:
                    await live.send({"type": "command", "id": command_id, "base": live.version,
                                     "action": {"kind": "addPlayer", "name": command_id}})
                acked = {}
                # Read a few answers, then pull the plug while the rest are in flight.
                while len(acked) < 5:
                    message = await live.next(timeout=10)
                    if message["type"] == "ack":
                        acked[message["id"]] = message["version"]
                return ids, acked
            ids, acked = run(fire())
            os.kill(server.process.pid, signal.SIGKILL)
            server.process.wait(10)
            server.process = None
            server.start()

            async def verify():
                live = await Live.connect(server)
                snapshot = await live.next()
                names = [p["name"] for p in snapshot["state"]["players"]]
                for command_id, version in acked.items():
                    assert command_id in names, f"trial {trial}: acknowledged {command_id} lost"
                    assert snapshot["version"] >= version, f"trial {trial}: version went back"
                await live.send({"type": "resume", "id": "r", "token": token})
                assert (await live.session_reply("r"))["role"] == "organiser"
                for command_id in ids:
                    reply = await live.command({"kind": "addPlayer", "name": command_id}, command_id=command_id)
                    assert reply["type"] == "ack", reply
                    if command_id in acked:
                        assert reply["version"] == acked[command_id], "a resent id must get its original ack"
                state = await live.wait_snapshot(max(live.version, reply["version"]))
                names = [p["name"] for p in state["players"]]
                for command_id in ids:
                    assert names.count(command_id) == 1, f"trial {trial}: {command_id} applied {names.count(command_id)}×"
                await live.close()
            run(verify())
            sent_total += len(ids)
        print(f"{TRIALS} kill -9 trials, {sent_total} commands, none lost or doubled")
        assert server.stop() == 0
    finally:
        server.cleanup()


def restart(server):
    assert server.stop() == 0
    server.start()


def test_a_running_timer_keeps_running_through_a_restart():
    with GatherServer() as server:
        async def setup():
            live, _ = await organiser(server, "ann")
            await play_to_live(live)
            reply = await live.command({"kind": "startTimer"})
            state = await live.wait_snapshot(reply["version"])
            return state["gather"]["timer"]["endsAt"]
        ends_at = run(setup())
        restart(server)
        time.sleep(1.0)

        async def check():
            live = await Live.connect(server)
            timer = (await live.next())["state"]["gather"]["timer"]
            now_ms = int(time.time() * 1000)
            assert timer["status"] == "running" and timer["endsAt"] == ends_at
            assert abs(timer["remainingMs"] - (ends_at - now_ms)) < 1500
            tick = await live.until(lambda m: m["type"] == "tick", timeout=3)
            assert tick["timer"]["remainingMs"] < 600_000 - 1000
        run(check())


def test_a_paused_timer_stays_paused_through_a_restart():
    with GatherServer() as server:
        async def setup():
            live, _ = await organiser(server, "ann")
            await play_to_live(live)
            await live.command({"kind": "startTimer"})
            await asyncio.sleep(1.2)
            reply = await live.command({"kind": "pauseTimer"})
            return (await live.wait_snapshot(reply["version"]))["gather"]["timer"]
        paused = run(setup())
        restart(server)
        time.sleep(1.0)

        async def check():
            live = await Live.connect(server)
            timer = (await live.next())["state"]["gather"]["timer"]
            assert timer == paused and timer["status"] == "paused"
        run(check())


def test_a_timer_that_ran_out_while_down_is_finished_at_the_right_instant():
    with GatherServer() as server:
        async def setup():
            live, _ = await organiser(server, "ann")
            await play_to_live(live)
            reply = await live.command({"kind": "setTimer", "minutes": 0, "seconds": 2})
            await live.wait_snapshot(reply["version"])
            reply = await live.command({"kind": "startTimer"})
            state = await live.wait_snapshot(reply["version"])
            return state["gather"]["timer"]["endsAt"], reply["version"]
        ends_at, version = run(setup())
        os.kill(server.process.pid, signal.SIGKILL)
        server.process.wait(10)
        server.process = None
        time.sleep(3)
        server.start()

        async def check():
            live = await Live.connect(server)
            snapshot = await live.next()
            gather = snapshot["state"]["gather"]
            assert snapshot["version"] == version + 1
            assert gather["timer"]["status"] == "finished" and gather["timer"]["remainingMs"] == 0
            full_time = gather["events"][-1]
            assert full_time["kind"] == "fullTime" and full_time["at"] == ends_at and full_time["by"] is None
        run(check())


def test_history_export_as_json_and_csv():
    with GatherServer() as server:
        async def play():
            live, _ = await organiser(server, "ann")
            await play_to_live(live, names=('Zoë "Ace", Jr.', "=cmd|' /C calc'!A0"))
            for team in ("A", "A", "B"):
                await live.command({"kind": "score", "team": team, "delta": 1})
            reply = await live.command({"kind": "renameTeam", "team": "B", "name": "Reds, \"the\" best"})
            await live.wait_snapshot(reply["version"])
            reply = await live.command({"kind": "endGather"})
            assert reply["type"] == "ack", reply
        run(play())
        status, headers, body = server.get("/api/history.json")
        assert status == 200 and headers["content-type"].startswith("application/json")
        history = json.loads(body)["history"]
        assert len(history) == 1
        assert history[0]["score"] == {"A": 2, "B": 1} and history[0]["winner"] == "A"
        assert history[0]["teams"]["B"]["name"] == 'Reds, "the" best'
        status, headers, body = server.get("/api/history.csv")
        assert status == 200 and headers["content-type"].startswith("text/csv")
        rows = list(csv.reader(io.StringIO(body.decode())))
        assert len(rows) == 2, rows
        record = dict(zip(rows[0], rows[1]))
        assert record["team_b"] == 'Reds, "the" best'
        assert 'Zoë "Ace", Jr.' in record["team_a_players"]
        assert record["team_b_players"].startswith("'=")  # a spreadsheet will not run it
        assert (record["score_a"], record["score_b"], record["winner"]) == ("2", "1", "A")


def test_backup_while_running_is_a_valid_database_with_the_same_state(tmp_path):
    with GatherServer() as server:
        async def play():
            live, _ = await organiser(server, "ann")
            await play_to_live(live)
            return live.snapshot, live.version
        state, version = run(play())
        copy = tmp_path / "copy" / "gather.sqlite"
        copy.parent.mkdir()
        result = subprocess.run([BINARY, "backup", str(copy), "--data-dir", server.data_dir], capture_output=True,
                                text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        assert sqlite3.connect(copy).execute("PRAGMA integrity_check").fetchone() == ("ok",)
        with GatherServer(data_dir=str(copy.parent)) as restored:
            async def check():
                live = await Live.connect(restored)
                snapshot = await live.next()
                assert snapshot["version"] == version
                assert snapshot["state"]["players"] == state["players"]
                assert snapshot["state"]["gather"]["teams"] == state["gather"]["teams"]
            run(check())


def test_bad_data_folders_fail_with_one_clear_line_and_change_nothing(tmp_path):
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("I am a file")
    server = GatherServer(data_dir=str(blocked))
    with pytest.raises(RuntimeError):
        server.start(timeout=20)
    time.sleep(0.3)
    assert any("data" in line for line in server.errors), server.errors
    assert blocked.read_text() == "I am a file"
    server.cleanup()

    newer = tmp_path / "newer"
    with GatherServer(data_dir=str(newer)) as first:
        pass
    database = sqlite3.connect(newer / "gather.sqlite")
    database.execute("INSERT INTO grdb_migrations (identifier) VALUES ('v999-from-the-future')")
    database.commit()
    database.close()
    before = (newer / "gather.sqlite").read_bytes()
    server = GatherServer(data_dir=str(newer))
    with pytest.raises(RuntimeError):
        server.start(timeout=20)
    time.sleep(0.3)
    assert any("newer" in line.lower() for line in server.errors), server.errors
    server.cleanup()
    assert sqlite3.connect(newer / "gather.sqlite").execute(
        "SELECT count(*) FROM grdb_migrations WHERE identifier = 'v999-from-the-future'").fetchone() == (1,)
