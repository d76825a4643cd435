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

from gatherlib import BINARY, GatherServer, Live, pitch_gather, run

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


# MARK: - Twenty kill -9 trials with two pitches live

SCORES_PER_TRIAL = 20


def trial_commands(trial):
    """40 (id, action) pairs: 20 new players interleaved with 20 goals that go round pitch 1 and 2
    and both teams, so every acked change of every kind has a pitch and a team to be looked for."""
    commands = []
    for i in range(SCORES_PER_TRIAL):
        commands.append((f"t{trial}-p{i}", {"kind": "addPlayer", "name": f"t{trial}-p{i}"}))
        commands.append((f"t{trial}-s{i}", {"kind": "score", "pitch": 1 + i % 2, "team": "AB"[i // 2 % 2],
                                            "delta": 1}))
    return commands


MAX_SCORE = 99
GOALS_PER_TEAM_PER_TRIAL = SCORES_PER_TRIAL // 4


def goals_over_the_room(state):
    """(pitch, seq) of the latest goals to cancel so that every team has room for the next trial's
    goals: 20 trials score 100 per team and a score stops at 99. Only a handful are cancelled, so
    the gathers' timelines (and every snapshot) stay as small as the test allows."""
    doomed = []
    for pitch in (1, 2):
        for team in "AB":
            standing = [g["seq"] for g in goal_events(state, pitch) if g["team"] == team and not g["cancelled"]]
            excess = len(standing) - (MAX_SCORE - GOALS_PER_TEAM_PER_TRIAL)
            doomed += [(pitch, seq) for seq in standing[len(standing) - max(0, excess):]]
    return doomed


def goal_events(state, pitch):
    return [e for e in pitch_gather(state, pitch)["events"] if e["kind"] == "goal"]


async def resumed(server, token):
    live = await Live.connect(server)
    await live.next()
    await live.send({"type": "resume", "id": "r", "token": token})
    assert (await live.session_reply("r"))["role"] == "organiser"
    return live


async def send_all(live, commands):
    """Pipelines the commands, then reads until every one is answered; returns the replies by id."""
    for command_id, action in commands:
        await live.send({"type": "command", "id": command_id, "base": live.version, "action": action})
    wanted = {command_id for command_id, _ in commands}
    replies = {}
    while wanted - replies.keys():
        message = await live.next(timeout=10)
        if message.get("id") in wanted and message["type"] in ("ack", "rejected", "error"):
            replies[message["id"]] = message
    if replies:
        await live.wait_snapshot(max(r["version"] for r in replies.values() if "version" in r))
    return replies


async def two_gathers_running(server):
    """Ann adds pitch 2 and starts a 10:00 timer on a live gather on each pitch; returns her
    token and each pitch's `endsAt`."""
    live, token = await organiser(server, "ann")
    setup = [("pitch", {"kind": "addPitch", "name": "Pitch 2"})]
    setup += [(name, {"kind": "addPlayer", "name": name}) for name in ("one-a", "one-b", "two-a", "two-b")]
    replies = await send_all(live, setup)
    assert all(r["type"] == "ack" for r in replies.values()), replies
    ids = {p["name"]: p["id"] for p in live.snapshot["players"]}
    for pitch, (a, b) in ((1, ("one-a", "one-b")), (2, ("two-a", "two-b"))):
        for action in ({"kind": "createGather", "playerIds": [ids[a], ids[b]]},
                       {"kind": "assign", "playerId": ids[a], "to": "A"},
                       {"kind": "assign", "playerId": ids[b], "to": "B"},
                       {"kind": "startGather"}, {"kind": "startTimer"}):
            reply = await live.command({**action, "pitch": pitch})
            assert reply["type"] == "ack", (pitch, action, reply)
            await live.wait_snapshot(reply["version"])
    ends_at = {pitch: pitch_gather(live.snapshot, pitch)["timer"]["endsAt"] for pitch in (1, 2)}
    await live.close()
    return token, ends_at


def kill_9(server):
    os.kill(server.process.pid, signal.SIGKILL)
    server.process.wait(10)
    server.process = None


def test_twenty_kill_9_trials_with_two_pitches_live_lose_nothing_acknowledged():
    """Each trial: fire 40 commands without waiting, kill -9 after a few acks, restart on the same
    folders and port, check every acked change is there, the version did not go back and both
    timers still run to the same instant, then resend every id: each is applied exactly once.
    Each trial's players are removed afterwards (the roster holds at most 200), and a few goals
    are cancelled near the end (a score stops at 99; 20 trials score 100 per team)."""
    server = GatherServer()
    try:
        server.start()
        token, ends_at = run(two_gathers_running(server))
        goals_sent = {1: 0, 2: 0}
        for trial in range(TRIALS):
            commands = trial_commands(trial)
            scored_on = {command_id: action["pitch"] for command_id, action in commands if action["kind"] == "score"}

            async def fire():
                live = await resumed(server, token)
                for command_id, action in commands:
                    await live.send({"type": "command", "id": command_id, "base": live.version, "action": action})
                acked = {}
                # Read a few answers, then pull the plug while the rest are in flight.
                while len(acked) < 5:
                    message = await live.next(timeout=10)
                    assert message["type"] not in ("rejected", "error"), message
                    if message["type"] == "ack":
                        acked[message["id"]] = message["version"]
                return acked, live.version
            acked, seen_version = run(fire())
            kill_9(server)
            server.start()

            async def verify():
                live = await Live.connect(server)
                snapshot = await live.next()
                state = snapshot["state"]
                assert snapshot["version"] >= max(seen_version, *acked.values()), f"trial {trial}: version went back"
                names = [p["name"] for p in state["players"]]
                for command_id in acked.keys() - scored_on.keys():
                    assert command_id in names, f"trial {trial}: acknowledged {command_id} lost"
                for pitch in (1, 2):
                    acked_goals = sum(1 for c in acked if scored_on.get(c) == pitch)
                    assert len(goal_events(state, pitch)) >= goals_sent[pitch] + acked_goals, \
                        f"trial {trial}: an acknowledged goal on pitch {pitch} was lost"
                    timer = pitch_gather(state, pitch)["timer"]
                    assert timer["status"] == "running" and timer["endsAt"] == ends_at[pitch], (trial, pitch, timer)

                await live.send({"type": "resume", "id": "r", "token": token})
                assert (await live.session_reply("r"))["role"] == "organiser"
                replies = await send_all(live, commands)
                for command_id, reply in replies.items():
                    assert reply["type"] == "ack", reply
                    if command_id in acked:
                        assert reply["version"] == acked[command_id], "a resent id must get its original ack"
                state = live.snapshot
                names = [p["name"] for p in state["players"]]
                for command_id, action in commands:
                    if action["kind"] == "addPlayer":
                        assert names.count(command_id) == 1, \
                            f"trial {trial}: {command_id} applied {names.count(command_id)}×"
                for pitch in (1, 2):
                    goals_sent[pitch] += sum(1 for p in scored_on.values() if p == pitch)
                    assert len(goal_events(state, pitch)) == goals_sent[pitch], \
                        f"trial {trial}: pitch {pitch} has {len(goal_events(state, pitch))} goals for {goals_sent[pitch]} ids"

                cleanup = [(f"t{trial}-remove-{p['id']}", {"kind": "removePlayer", "playerId": p["id"]})
                           for p in state["players"] if p["name"].startswith(f"t{trial}-")]
                cleanup += [(f"t{trial}-cancel-{pitch}-{seq}", {"kind": "cancelGoal", "pitch": pitch, "seq": seq})
                            for pitch, seq in goals_over_the_room(state)]
                replies = await send_all(live, cleanup)
                assert all(r["type"] == "ack" for r in replies.values()), replies
                assert len(live.snapshot["players"]) == 4
                for pitch in (1, 2):
                    gather = pitch_gather(live.snapshot, pitch)
                    for team in "AB":
                        standing = [g for g in goal_events(live.snapshot, pitch) if g["team"] == team and not g["cancelled"]]
                        assert gather["score"][team] == len(standing) <= MAX_SCORE - GOALS_PER_TEAM_PER_TRIAL
                await live.close()
            run(verify())
        print(f"{TRIALS} kill -9 trials, {TRIALS * len(trial_commands(0))} commands on two pitches, "
              "none lost or doubled")
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
        kill_9(server)
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
        rows = list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))
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
        copy.parent.mkdir(mode=0o700)  # the server refuses a folder others can write
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
