"""A database written by the fourth release (`Tests/Fixtures/release4.sqlite`, made by
`make_release4_fixture.py`) served by today's binary: every change, account, gather, tournament
and history row is there; and a `correctResult` on a cup match that 20 Sundays since pushed out of
the state's recent history (one release 4 corrected in the tournament only), reaches its history row, `/api/history.json` and
`/api/history.csv` (docs/PROTOCOL.md "One result everywhere"), across a restart too."""
import csv
import io
import json
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from gatherlib import GatherServer, Live, run

FIXTURE = Path(__file__).resolve().parents[1] / "Fixtures" / "release4.sqlite"


def fixture_rows(sql):
    connection = sqlite3.connect(f"file:{FIXTURE}?mode=ro", uri=True)
    try:
        return connection.execute(sql).fetchall()
    finally:
        connection.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    data = tmp_path_factory.mktemp("release4") / "data"
    data.mkdir(mode=0o700)
    shutil.copyfile(FIXTURE, data / "gather.sqlite")
    with GatherServer(data_dir=str(data)) as running:
        yield running


def get_json(server, path):
    status, _, body = server.get(path)
    assert status == 200, (path, status)
    return json.loads(body)


def history_csv(server):
    status, _, body = server.get("/api/history.csv")
    assert status == 200
    return {row["id"]: row for row in csv.DictReader(io.StringIO(body.decode("utf-8-sig")))}


async def signed_in_again(server, username):
    live = await Live.connect(server)
    await live.next()
    session = await live.login(username)
    assert session.get("role") == "organiser", session
    return live, session


def test_todays_binary_serves_everything_release_four_wrote(server):
    (version,), = fixture_rows("SELECT version FROM meta")
    stored = [(row_id, json.loads(text)) for row_id, text in fixture_rows("SELECT id, json FROM history ORDER BY seq DESC")]

    async def scenario():
        live, session = await signed_in_again(server, "ann")
        assert session["owner"] is True, session
        state = live.snapshot
        assert live.version == version
        assert [p["name"] for p in state["players"]] == ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"]
        assert [p["name"] for p in state["pitches"]] == ["Pitch 1", "Back pitch", "Five-a-side cage"]
        assert [e["id"] for e in state["history"]] == [row_id for row_id, _ in stored[:20]]
        cup = state["tournament"]
        assert (cup["name"], cup["phase"], cup["champion"]) == ("Riverside Cup", "finished", 1)
        assert cup["matches"][2]["score"] == {"home": 3, "away": 0}, "Reds v Greens as corrected"
        assert cup["matches"][6]["penalties"] == {"home": 5, "away": 4}
        assert state["pitches"][2]["gather"]["phase"] == "live"
        assert state["pitches"][2]["gather"]["score"] == {"A": 1, "B": 0}
        await live.send({"type": "activity", "id": "a1", "limit": 200})
        reply = await live.until(lambda m: m.get("id") == "a1" and m["type"] == "activity")
        assert [i["version"] for i in reply["items"]] == list(range(version, max(version - 200, 0), -1))
        await live.close()
    run(scenario())

    # The exports: every history row, newest first, as stored; both tournaments.
    exported = get_json(server, "/api/history.json")["history"]
    assert [e["id"] for e in exported] == [row_id for row_id, _ in stored]
    assert [e["score"] for e in exported] == [entry["score"] for _, entry in stored]
    assert set(history_csv(server)) == {row_id for row_id, _ in stored}
    listed = get_json(server, "/api/tournaments.json")["tournaments"]
    assert [(t["name"], t["cancelled"]) for t in listed] == [("Riverside Cup", False), ("Spring Cup", True)]


def test_a_correction_reaches_a_cup_match_older_than_the_recent_twenty(server):
    # Reds v Greens, corrected to 3–0 by release 4 in the tournament only; now 4–0.
    reds_greens = get_json(server, "/api/tournament.json")["matches"][2]
    entry_id = reds_greens["historyId"]
    played = next(e for e in get_json(server, "/api/history.json")["history"] if e["id"] == entry_id)
    assert played["score"] == {"A": 1, "B": 0} and "correctedAt" not in played, "as release 4 left it"

    async def correct():
        live, _ = await signed_in_again(server, "bob")
        assert entry_id not in [e["id"] for e in live.snapshot["history"]], "past the recent 20"
        reply = await live.command({"kind": "correctResult", "match": reds_greens["id"], "score": {"home": 4, "away": 0}})
        assert reply["type"] == "ack", reply
        await live.close()
    before = int(time.time() * 1000)
    run(correct())

    def assert_corrected():
        entry = next(e for e in get_json(server, "/api/history.json")["history"] if e["id"] == entry_id)
        assert (entry["score"], entry["winner"], entry["correctedBy"]) == ({"A": 4, "B": 0}, "A", "bob"), entry
        assert before - 1000 <= entry["correctedAt"] <= int(time.time() * 1000) + 1000, entry
        row = history_csv(server)[entry_id]
        assert (row["score_a"], row["score_b"], row["winner"], row["corrected_by"]) == ("4", "0", "A", "bob"), row
        assert get_json(server, "/api/tournament.json")["matches"][2]["score"] == {"home": 4, "away": 0}

    assert_corrected()
    server.stop()
    server.start()
    assert_corrected()
