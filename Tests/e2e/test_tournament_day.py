"""A whole tournament day over the wire: 8 teams in 2 groups, 2 through, a third-place match,
played from creation to champion on two pitches, with the real binary stopped and started on the
same data folder in the middle of a live semi-final (PROTOCOL.md "A tournament day")."""
import json

from gatherlib import GatherServer, Live, pitch_gather, run, signed_in
from tournament_support import acked, create_action, goals, kick_off, match, play, rejected, tournament

TEAMS = ["Reds", "Blues", "Greens", "Golds", "Whites", "Blacks", "Oranges", "Purples"]


def expected_table(team_ids, results):
    """Points, then goal difference, then goals for, then seeding: the group's order worked out
    here from the results, independently of the server."""
    rows = {t: {"team": t, "points": 0, "goalsFor": 0, "goalsAgainst": 0, "played": 0} for t in team_ids}
    for home, away, h, a in results:
        if home not in rows:
            continue
        for team, scored, conceded in ((home, h, a), (away, a, h)):
            rows[team]["played"] += 1
            rows[team]["goalsFor"] += scored
            rows[team]["goalsAgainst"] += conceded
            rows[team]["points"] += 3 if scored > conceded else 1 if scored == conceded else 0
    order = sorted(team_ids, key=lambda t: (-rows[t]["points"], -(rows[t]["goalsFor"] - rows[t]["goalsAgainst"]),
                                            -rows[t]["goalsFor"], t))
    return [rows[t] for t in order]


def test_an_eight_team_day_from_creation_to_champion_with_a_restart_in_a_live_semi_final():
    with GatherServer() as server:
        async def first_half():
            ann = await signed_in(server, "ann")
            await acked(ann, {"kind": "addPitch", "name": "Back pitch"})
            await acked(ann, create_action(TEAMS, groups=2, advance=2, thirdPlace=True, matchMinutes=1, breakMinutes=0))
            cup = tournament(ann)
            assert [g["teams"] for g in cup["groups"]] == [[1, 3, 5, 7], [2, 4, 6, 8]]
            stages = [m["stage"] for m in cup["matches"]]
            assert stages == ["group"] * 12 + ["semiFinal"] * 2 + ["thirdPlace", "final"]
            semis = [m for m in cup["matches"] if m["stage"] == "semiFinal"]
            assert [(m["homeFrom"], m["awayFrom"]) for m in semis] == [("A1", "B2"), ("B1", "A2")]
            third = next(m for m in cup["matches"] if m["stage"] == "thirdPlace")
            final = next(m for m in cup["matches"] if m["stage"] == "final")
            assert (third["homeFrom"], third["awayFrom"]) == (f"L{semis[0]['id']}", f"L{semis[1]['id']}")
            assert (final["homeFrom"], final["awayFrom"]) == (f"W{semis[0]['id']}", f"W{semis[1]['id']}")
            assert all(m["home"] is None for m in semis + [third, final])

            # The group stage: the better seed wins by as many goals as the seeds differ.
            results = []
            for group_match in [m for m in cup["matches"] if m["stage"] == "group"]:
                home, away = group_match["home"], group_match["away"]
                score = ((away - home) // 2, 0)
                await play(ann, group_match["id"], *score)
                results.append((home, away, *score))
                assert tournament(ann)["phase"] == ("groups" if len(results) < 12 else "knockout")
            for group in tournament(ann)["groups"]:
                want = expected_table(group["teams"], results)
                assert [(r["team"], r["points"], r["goalsFor"], r["goalsAgainst"], r["played"]) for r in group["table"]] \
                    == [(r["team"], r["points"], r["goalsFor"], r["goalsAgainst"], r["played"]) for r in want]
            assert [[r["team"] for r in g["table"]] for g in tournament(ann)["groups"]] == [[1, 3, 5, 7], [2, 4, 6, 8]]
            semis = [match(ann, m["id"]) for m in semis]
            assert [(m["home"], m["away"]) for m in semis] == [(1, 4), (2, 3)], "A1–B2 and B1–A2"

            # Semi-final 1 kicks off and Reds score; then the server goes down.
            pitch = await kick_off(ann, semis[0]["id"])
            await goals(ann, pitch, 1, 0)
            await ann.close()
            return semis[0]["id"], semis[1]["id"], third["id"], final["id"], pitch, tournament(ann)

        semi1, semi2, third, final, pitch, before = run(first_half())
        server.stop()
        server.start()

        async def second_half():
            ann = await Live.connect(server)
            await ann.next()
            session = await ann.login("ann")
            assert session.get("role") == "organiser", session
            assert tournament(ann) == before, "the tournament reads back exactly as it was"
            gather = pitch_gather(ann.snapshot, pitch)
            assert gather["phase"] == "live" and gather["score"] == {"A": 1, "B": 0}
            assert gather["match"] == {"tournament": before["id"], "match": semi1}
            assert match(ann, semi1)["status"] == "live"

            # Level at full time: penalties are needed, and decide it.
            await goals(ann, pitch, 0, 1)
            await rejected(ann, {"kind": "endGather", "pitch": pitch}, "invalid", "penalties")
            await acked(ann, {"kind": "endGather", "pitch": pitch, "penalties": {"A": 5, "B": 4}})
            assert match(ann, semi1)["winner"] == 1 and match(ann, semi1)["penalties"] == {"home": 5, "away": 4}
            await play(ann, semi2, 0, 2)
            assert (match(ann, third)["home"], match(ann, third)["away"]) == (4, 2)
            assert (match(ann, final)["home"], match(ann, final)["away"]) == (1, 3)
            await rejected(ann, {"kind": "endGather", "pitch": match(ann, third)["pitch"],
                                 "penalties": {"A": 1, "B": 0}}, "wrong_phase")
            await play(ann, third, 3, 1)
            assert tournament(ann)["phase"] == "knockout" and tournament(ann)["champion"] is None
            await play(ann, final, 2, 1)
            done = tournament(ann)
            assert done["phase"] == "finished" and done["champion"] == 1
            assert all(m["status"] == "finished" for m in done["matches"])
            await rejected(ann, {"kind": "cancelTournament"}, "wrong_phase", "finished")

            # The endpoints tell the same story.
            status, _, body = server.get("/api/tournament.json")
            assert status == 200 and json.loads(body) == done
            status, _, body = server.get("/api/tournaments.json")
            assert [(t["id"], t["cancelled"], t["champion"]) for t in json.loads(body)["tournaments"]] \
                == [(done["id"], False, 1)]
            history = [e for e in ann.snapshot["history"] if e.get("match")]
            assert {e["match"]["match"] for e in history} >= {semi1, semi2, third, final}
            await ann.close()
        run(second_half())


def test_an_acked_result_survives_a_kill_minus_nine_whole_and_a_refused_one_left_nothing():
    """One commit: killed at once after the ack of a knockout match's full time, the server reads
    back the result, the bracket it fills and the history entry together; killed after a refused
    full time, the match is still live and nothing of it was kept."""
    import signal
    with GatherServer() as server:
        async def before_kill():
            ann = await signed_in(server, "ann")
            await acked(ann, create_action(["Reds", "Blues", "Greens", "Golds"], groups=2, advance=1, pitches=[1]))
            await play(ann, 1, 1, 0)
            await play(ann, 2, 0, 1)
            pitch = await kick_off(ann, 3)
            await goals(ann, pitch, 2, 2)
            await rejected(ann, {"kind": "endGather", "penalties": {"A": 2, "B": 2}}, "invalid")
            await ann.close()
            return ann.version

        version = run(before_kill())
        server.stop(signal.SIGKILL)
        server.start()

        async def after_first_kill():
            ann = await Live.connect(server)
            await ann.next()
            assert ann.version == version
            assert match(ann, 3)["status"] == "live" and pitch_gather(ann.snapshot, 1)["score"] == {"A": 2, "B": 2}
            assert (await ann.login("ann")).get("role") == "organiser"
            reply = await acked(ann, {"kind": "endGather", "penalties": {"A": 3, "B": 4}})
            await ann.close()
            return reply["version"]

        acked_version = run(after_first_kill())
        server.stop(signal.SIGKILL)
        server.start()

        async def after_second_kill():
            viewer = await Live.connect(server)
            await viewer.next()
            assert viewer.version == acked_version
            final = match(viewer, 3)
            assert final["status"] == "finished" and final["penalties"] == {"home": 3, "away": 4}
            assert tournament(viewer)["champion"] == 4 and tournament(viewer)["phase"] == "finished"
            assert viewer.snapshot["history"][0]["id"] == final["historyId"]
            assert viewer.snapshot["history"][0]["match"]["match"] == 3
            assert pitch_gather(viewer.snapshot, 1) is None
            await viewer.close()
        run(after_second_kill())


TEAMS16 = ["Reds", "Blues", "Greens", "Golds", "Whites", "Blacks", "Oranges", "Purples",
           "Silvers", "Browns", "Pinks", "Navies", "Limes", "Teals", "Maroons", "Ambers"]


def test_a_sixteen_team_day_on_four_pitches_scored_by_two_referees_and_one_organiser():
    """The venue's day (issue 42): 4 groups of 4, quarter-finals, semi-finals, third place and the
    final, 32 matches on 4 pitches; pitches 1 and 2 are kept by two referee links (each match
    started, timed, scored and ended from the referee's connection, a level knockout match with
    its penalties), pitches 3 and 4 by the organiser, from creation to champion. Every result is
    the one its scorer sent, and the activity names each referee for its pitch's goals."""
    with GatherServer() as server:
        async def day():
            ann = await signed_in(server, "ann")
            for name in ("Pitch 2", "Pitch 3", "Pitch 4"):
                await acked(ann, {"kind": "addPitch", "name": name})
            await acked(ann, create_action(TEAMS16, groups=4, advance=2, pitches=[1, 2, 3, 4], matchMinutes=1, thirdPlace=True,
                                           breakMinutes=0))
            cup = tournament(ann)
            assert len(cup["matches"]) == 32
            referees = {}
            for pitch, label in ((1, "Ref North"), (2, "Ref South")):
                reply = await acked(ann, {"kind": "createRefereeLink", "pitch": pitch, "label": label, "hours": 6})
                code = reply["result"]["url"].split("#referee=")[1]
                phone = await Live.connect(server)
                await phone.next()
                await phone.send({"type": "referee", "id": f"ref-{pitch}", "code": code})
                session = await phone.session_reply(f"ref-{pitch}")
                assert (session.get("role"), session.get("pitch")) == ("referee", pitch), session
                referees[pitch] = (phone, label)
            north, _ = referees[1]
            await rejected(north, {"kind": "score", "team": "A", "delta": 1, "pitch": 3}, "forbidden")
            await rejected(north, {"kind": "cancelTournament"}, "forbidden")

            by_pitch = {1: [], 2: [], 3: [], 4: []}
            latest = ann.version

            async def send(live, action):
                """Each scorer sends from the newest state (as a phone that saw every change does)."""
                nonlocal latest
                await live.wait_snapshot(latest)
                reply = await acked(live, action)
                latest = max(latest, reply["version"])

            while True:
                await ann.wait_snapshot(latest)
                cup = tournament(ann)
                if cup["phase"] == "finished":
                    break
                ready = [m for m in cup["matches"] if m["status"] == "scheduled" and m["home"] is not None
                         and m["away"] is not None]
                assert ready, "a match can always be played until the champion"
                m = min(ready, key=lambda m: (m["plannedAt"], m["id"]))
                scorer = referees[m["pitch"]][0] if m["pitch"] in referees else ann
                knockout = m["stage"] != "group"
                home, away = (1, 1) if m["id"] % 5 == 0 else (0, 1) if m["id"] % 3 == 0 else (1, 0)
                await send(scorer, {"kind": "startMatch", "match": m["id"]})
                await send(scorer, {"kind": "startTimer", "pitch": m["pitch"]})
                for side, count in (("A", home), ("B", away)):
                    for _ in range(count):
                        await send(scorer, {"kind": "score", "team": side, "delta": 1, "pitch": m["pitch"]})
                end = {"kind": "endGather", "pitch": m["pitch"]}
                if knockout and home == away:
                    end["penalties"] = {"A": 4, "B": 3}
                await send(scorer, end)
                by_pitch[m["pitch"]].append((m["id"], home, away, knockout and home == away))
            await ann.wait_snapshot(latest)
            done = tournament(ann)
            assert done["champion"] is not None and all(m["status"] == "finished" for m in done["matches"])
            assert sum(len(played) for played in by_pitch.values()) == 32
            assert by_pitch[1] and by_pitch[2], "both referees kept their pitches"
            for pitch, played in by_pitch.items():
                for match_id, home, away, shoot_out in played:
                    result = match(ann, match_id)
                    assert (result["pitch"], result["score"]) == (pitch, {"home": home, "away": away}), result
                    assert (result["penalties"] == {"home": 4, "away": 3}) == shoot_out, result
            request = "activity-1"
            await ann.send({"type": "activity", "id": request, "limit": 200})
            items = (await ann.until(lambda m: m.get("id") == request))["items"]
            goals = {}
            for item in items:
                if item["kind"] == "score":
                    goals.setdefault(item["pitch"], set()).add(item["organiser"])
            assert goals[1] == {"Ref North"} and goals[2] == {"Ref South"}, goals
            assert goals[3] == {"ann"} and goals[4] == {"ann"}, goals
            for phone, _ in referees.values():
                await phone.close()
            await ann.close()
        run(day())
