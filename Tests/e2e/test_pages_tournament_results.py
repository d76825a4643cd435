"""One result everywhere, over the real binary and real Chromium: a tournament match corrected from
1–0 to 1–1 reads 1–1 on the spectator's latest results (360 px), the venue overview, the tournament,
history.json and history.csv, with who corrected it and when; a final decided on penalties shows its
winner and the shoot-out everywhere ("X 2 – 2 Y · X on penalties 4–3"), never "Draw".
Screenshot: Tests/e2e/artifacts/tournament-corrected-result-360.png."""
import csv
import io
import json

from selenium.webdriver.common.by import By

from gatherlib import GatherServer, run
from pages_support import ORGANISER, organiser, register_organiser
from tournament_pages_support import add_pitches, create_action, match, now_ms, perform, play

TEAMS = ("Olympique", "Atlético", "Celtic", "Rapid")  # groups: A Olympique, Celtic; B Atlético, Rapid


def get_json(server, path):
    status, _, body = server.get(path)
    assert status == 200, (path, status)
    return json.loads(body)


def history_rows(server):
    status, _, body = server.get("/api/history.csv")
    assert status == 200
    return list(csv.DictReader(io.StringIO(body.decode("utf-8-sig"))))


def entry_of(server, match_id):
    history = get_json(server, "/api/history.json")["history"]
    return next(entry for entry in history if entry.get("match", {}).get("match") == match_id)


def row_of(server, history_id):
    return next(row for row in history_rows(server) if row["id"] == history_id)


def list_texts(browser, css):
    return [element.text for element in browser.driver.find_elements(By.CSS_SELECTOR, css)]


def test_a_corrected_result_and_a_shoot_out_read_the_same_on_every_view(browsers):
    with GatherServer() as server:
        register_organiser(server)
        state = {}

        async def group_stage():
            live = await organiser(server)
            try:
                pitches = await add_pitches(live, 2)
                await perform(live, create_action(TEAMS, 2, 1, pitches, now_ms(), thirdPlace=False))
                first = next(m for m in live.snapshot["tournament"]["matches"] if m["stage"] == "group")
                state["first"] = first["id"]
                for m in list(live.snapshot["tournament"]["matches"]):
                    if m["stage"] == "group":
                        home, away = (1, 0) if m["id"] == first["id"] else (0, 1)
                        await play(live, m["id"], home, away)
            finally:
                await live.close()
        run(group_stage())
        first = state["first"]
        played = entry_of(server, first)
        assert (played["score"], played["winner"]) == ({"A": 1, "B": 0}, "A")
        assert "correctedAt" not in played and "penalties" not in played
        home, away = played["teams"]["A"]["name"], played["teams"]["B"]["name"]

        spectator = browsers(server, 360, 740).open("/")
        spectator.wait(lambda: any(f"{home} 1 – 0 {away}" in text for text in list_texts(spectator, "#history li")),
                       15, "the result as played on the spectator's page")
        overview = browsers(server, 1280, 720)
        overview.open("/scoreboard.html?pitch=all")

        async def correct():
            live = await organiser(server)
            try:
                await perform(live, {"kind": "correctResult", "match": first, "score": {"home": 1, "away": 1}})
            finally:
                await live.close()
        before = now_ms()
        run(correct())

        # The tournament, the history and the exports say 1–1, with the correction.
        assert match_score(get_json(server, "/api/tournament.json"), first) == {"home": 1, "away": 1}
        corrected = entry_of(server, first)
        assert corrected["id"] == played["id"]
        assert (corrected["score"], corrected["winner"]) == ({"A": 1, "B": 1}, "draw")
        assert before - 1000 <= corrected["correctedAt"] <= now_ms() + 1000, corrected
        assert corrected["correctedBy"] == ORGANISER, corrected
        row = row_of(server, played["id"])
        assert (row["score_a"], row["score_b"], row["winner"]) == ("1", "1", "draw"), row
        assert row["corrected_at"].endswith("Z") and row["corrected_by"] == corrected["correctedBy"], row
        assert (row["penalties_a"], row["penalties_b"]) == ("", ""), row

        # The spectator's latest results and the venue overview say it too.
        spectator.wait(lambda: f"{home} 1 – 1 {away} · Draw" in list_texts(spectator, "#history li strong"),
                       10, "the corrected result on the spectator's page")
        assert not [text for text in list_texts(spectator, "#history li strong") if f"{home} 1 – 0 {away}" in text]
        pitch_of_first = played["pitch"]["id"]
        card = f'#venue .venue-pitch[data-pitch="{pitch_of_first}"]'
        overview.wait(lambda: overview.driver.find_elements(By.CSS_SELECTOR, card)
                      and [overview.text(f"{card} .venue-goals.a"), overview.text(f"{card} .venue-goals.b")] == ["1", "1"],
                      10, "the corrected result on the venue overview")
        assert overview.text(f"{card} .venue-goal").startswith("Draw"), overview.text(f"{card} .venue-goal")
        spectator.driver.execute_script("document.querySelector('#history').scrollIntoView({block: 'center'})")
        spectator.screenshot("tournament-corrected-result-360.png")

        # The final, level after time, decided on penalties 4–3.
        async def final():
            live = await organiser(server)
            try:
                final_match = next(m for m in live.snapshot["tournament"]["matches"] if m["stage"] == "final")
                await play(live, final_match["id"], 2, 2, penalties=(4, 3))
                return match(live, final_match["id"])
            finally:
                await live.close()
        final_match = run(final())
        assert final_match["penalties"] == {"home": 4, "away": 3}
        decided = entry_of(server, final_match["id"])
        winner = decided["teams"]["A"]["name"]
        loser = decided["teams"]["B"]["name"]
        assert (decided["score"], decided["penalties"], decided["winner"]) == ({"A": 2, "B": 2}, {"A": 4, "B": 3}, "A")
        row = row_of(server, decided["id"])
        assert (row["score_a"], row["score_b"], row["winner"], row["penalties_a"], row["penalties_b"]) \
            == ("2", "2", "A", "4", "3"), row
        line = f"{winner} 2 – 2 {loser} · {winner} on penalties 4–3"
        spectator.wait(lambda: line in list_texts(spectator, "#history li strong"), 10, "the shoot-out's winner")
        card = f'#venue .venue-pitch[data-pitch="{decided["pitch"]["id"]}"] .venue-goal'
        overview.wait(lambda: overview.driver.find_elements(By.CSS_SELECTOR, card)
                      and overview.text(card).startswith(f"{winner} on penalties 4–3"), 10, "the overview's shoot-out")
        assert not [text for text in list_texts(spectator, "#history li strong") if "2 – 2" in text and "Draw" in text]
        assert not spectator.console_errors() and not overview.console_errors()


def match_score(tournament, match_id):
    return next(m for m in tournament["matches"] if m["id"] == match_id)["score"]
