"""The tournament's endpoints over the real binary (PROTOCOL.md "Endpoints and pages", docs §11.2
and §17): the calendar feed read by Python's `icalendar` (CRLF, folded lines, escaped text, a UID
that never changes, SEQUENCE going up when a match moves, a team's own feed, 404 for an unknown
team), the CSV's byte-order mark and formula guard, and the JSON documents."""
import csv
import io
import json
from datetime import datetime, timedelta, timezone

import icalendar

from gatherlib import GatherServer, run, signed_in
from tournament_support import START_MS, acked, create_action, kick_off, match, play, tournament

# A long name with characters the RFC escapes, so DESCRIPTION lines need folding.
NAME = "Riverside Charity Cup; Under-12s, Over-40s — Autumn Edition"
TEAMS = ["=SUM(A1)", "Blues", "Greens", "Golds"]


def calendar(server, query=""):
    status, headers, body = server.get("/api/tournament.ics" + query)
    assert status == 200, (status, body)
    assert headers["content-type"].startswith("text/calendar")
    return body, icalendar.Calendar.from_ical(body)


def events(parsed):
    return {int(str(e["UID"]).split("-match-")[1].split("@")[0]): e for e in parsed.walk("VEVENT")}


def test_with_no_tournament_the_feed_is_an_empty_calendar_and_the_documents_are_empty():
    with GatherServer() as server:
        body, parsed = calendar(server)
        assert parsed.walk("VEVENT") == []
        assert str(parsed["METHOD"]) == "PUBLISH" and str(parsed["VERSION"]) == "2.0"
        assert body.endswith(b"END:VCALENDAR\r\n") and b"\n" not in body.replace(b"\r\n", b"")
        status, _, _ = server.get("/api/tournament.ics?team=1")
        assert status == 404
        status, headers, body = server.get("/api/tournament.csv")
        assert status == 200 and body.startswith(b"\xef\xbb\xbf")
        assert body[3:].decode().strip() == ("id,stage,group,pitch,planned_at,expected_at,home,away,score_home,"
                                             "score_away,penalties_home,penalties_away,status")
        assert json.loads(server.get("/api/tournament.json")[2]) is None
        assert json.loads(server.get("/api/tournaments.json")[2]) == {"tournaments": []}


def test_the_feed_follows_the_day_and_the_csv_guards_formulas():
    with GatherServer() as server:
        async def scenario():
            ann = await signed_in(server, "ann")
            await acked(ann, {"kind": "addPitch", "name": "Back pitch, by the river"})
            await acked(ann, create_action(TEAMS, groups=1, advance=2, name=NAME, pitches=[1, 2]))
            cup = tournament(ann)

            body, parsed = calendar(server)
            lines = body.split(b"\r\n")
            assert lines[-1] == b"" and all(b"\n" not in line and b"\r" not in line for line in lines)
            assert all(len(line) <= 75 for line in lines), "folded at 75 octets"
            assert any(line.startswith(b" ") for line in lines), "the long DESCRIPTION is folded"
            # The parser leaves an X- property as written: it is TEXT, escaped as the RFC says.
            unfolded = body.replace(b"\r\n ", b"")
            assert ("X-WR-CALNAME:" + NAME.replace(";", "\\;").replace(",", "\\,") + "\r\n").encode() in unfolded
            first = events(parsed)
            assert sorted(first) == [m["id"] for m in cup["matches"]]
            one = first[1]
            opponent = cup["teams"][cup["matches"][0]["away"] - 1]
            assert cup["matches"][0]["home"] == 1
            assert str(one["SUMMARY"]) == f"=SUM(A1) v {opponent['name']} (Group A)"
            assert str(one["DESCRIPTION"]) == f"Match 1 of {NAME}."
            assert one["DTSTART"].dt == datetime.fromtimestamp(START_MS / 1000, timezone.utc)
            assert one["DURATION"].dt == timedelta(minutes=10)
            assert str(one["LOCATION"]) in ("Pitch 1", "Back pitch, by the river")
            final = next(e for i, e in first.items() if cup["matches"][i - 1]["stage"] == "final")
            assert str(final["SUMMARY"]) == "Final: A1 v A2"

            # Match 1 kicks off late (the day was planned in the past): its start and the later
            # matches on its pitch move, and so does every match not started by now (release 5);
            # exactly their SEQUENCE goes up, every UID stays.
            planned = {m["id"]: m["expectedAt"] for m in tournament(ann)["matches"]}
            pitch = await kick_off(ann, 1)
            moved = [m["id"] for m in tournament(ann)["matches"] if m["expectedAt"] != planned[m["id"]]]
            assert 1 in moved and len([i for i in moved if match(ann, i)["pitch"] == pitch]) >= 2
            _, parsed = calendar(server)
            second = events(parsed)
            assert sorted(second) == sorted(first)
            for match_id in second:
                assert str(second[match_id]["UID"]) == str(first[match_id]["UID"])
                went_up = int(second[match_id]["SEQUENCE"]) > int(first[match_id]["SEQUENCE"])
                assert went_up == (match_id in moved), match_id
            await acked(ann, {"kind": "endGather", "pitch": pitch})

            # A team's own feed: only its matches; an unknown team 404.
            _, parsed = calendar(server, f"?team={opponent['id']}")
            own = events(parsed)
            assert sorted(own) == sorted(m["id"] for m in tournament(ann)["matches"]
                                         if opponent["id"] in (m["home"], m["away"]))
            assert str(parsed["X-WR-CALNAME"]).endswith("– " + opponent["name"])
            assert f"Full time: =SUM(A1) 0–0 {opponent['name']}." in str(own[1]["DESCRIPTION"])
            for query in ("?team=9", "?team=x", "?team=1&team=2"):
                assert server.get("/api/tournament.ics" + query)[0] == 404, query

            # The CSV: BOM, one row per match, the formula guarded.
            status, headers, body = server.get("/api/tournament.csv")
            assert status == 200 and headers["content-type"].startswith("text/csv")
            assert "gather-tournament.csv" in headers["content-disposition"]
            assert body.startswith(b"\xef\xbb\xbf")
            rows = list(csv.DictReader(io.StringIO(body[3:].decode())))
            assert [int(r["id"]) for r in rows] == [m["id"] for m in tournament(ann)["matches"]]
            assert rows[0]["home"] == "'=SUM(A1)" and rows[0]["status"] == "finished"
            assert rows[0]["score_home"] == "0" and rows[0]["score_away"] == "0"
            assert {r["pitch"] for r in rows} <= {"Pitch 1", "Back pitch, by the river"}
            final_row = next(r for r in rows if r["stage"] == "final")
            assert (final_row["home"], final_row["away"]) == ("A1", "A2")

            status, _, body = server.get("/api/tournament.json")
            assert json.loads(body) == tournament(ann)
            await ann.close()
        run(scenario())
