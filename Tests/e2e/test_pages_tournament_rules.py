"""The tournament's rules as the pages show them, in real Chromium at phone size against the real
binary: a table marks a place only once it is certain ("through" only when certain), and the new
tournament form offers the next quarter hour as its kick-off time."""
import pytest
from selenium.webdriver.common.by import By

from gatherlib import PASSWORD, run
from pages_support import ORGANISER
from tournament_pages_support import (TEAMS8, add_pitches, connect_organiser, create_action, now_ms, perform,
                                      place_words, play, venue_of_three_pitches)

MARKS = """
return [...document.querySelectorAll('#tournament-tables table.group-table tbody tr')].map((row) => ({
  group: row.closest('table').dataset.group, team: Number(row.dataset.team),
  mark: row.classList.contains('through') ? 'through' : row.classList.contains('out') ? 'out' : '',
  words: row.querySelector('.visually-hidden') ? row.querySelector('.visually-hidden').textContent.trim() : ''}));
"""


@pytest.fixture(scope="module")
def venue():
    with venue_of_three_pitches() as server:
        yield server


async def create(server):
    live = await connect_organiser(server)
    pitches = await add_pitches(live, 2)
    await perform(live, create_action(TEAMS8, 2, 2, pitches, now_ms() - 5 * 60000))
    await live.close()


async def play_group_a(server):
    """Group A's six matches, the better seed winning each; group A's table, first to last."""
    live = await connect_organiser(server)
    for m in [m for m in live.snapshot["tournament"]["matches"] if m["group"] == "A"]:
        await play(live, m["id"], 1, 0)
    table = [row["team"] for row in live.snapshot["tournament"]["groups"][0]["table"]]
    await live.close()
    return table


async def tidy(server):
    live = await connect_organiser(server)
    for m in live.snapshot["tournament"]["matches"]:
        if m["status"] == "live":
            await perform(live, {"kind": "cancelGather", "pitch": m["pitch"]})
    await perform(live, {"kind": "cancelTournament"})
    await live.close()


@pytest.mark.parametrize("width", (390, 360))
def test_a_table_marks_a_place_only_once_it_is_certain(venue, browsers, width):
    server = venue
    run(create(server))
    try:
        phone = browsers(server, width, 800)
        phone.open("/")
        phone.wait(lambda: phone.driver.execute_script(MARKS), 15, "the group tables")
        before = phone.driver.execute_script(MARKS)
        assert len(before) == 8
        assert [row["mark"] for row in before] == [""] * 8, before
        assert [row["words"] for row in before] == [""] * 8, before
        # Group A's six matches, the better seed winning each: its places are settled, B's are not.
        table_a = run(play_group_a(server))
        phone.wait(lambda: any(row["mark"] for row in phone.driver.execute_script(MARKS)), 15, "group A's marks")
        after = {(row["group"], row["team"]): row for row in phone.driver.execute_script(MARKS)}
        assert [after[("A", team)]["mark"] for team in table_a] == ["through", "through", "out", "out"], after
        assert [after[("A", team)]["words"] for team in table_a] == ["(goes through)"] * 2 + ["(out)"] * 2
        assert all(row["mark"] == "" for key, row in after.items() if key[0] == "B"), after
        violations = phone.axe()
        assert not violations, [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in violations]
        assert phone.scroll_width() <= width
        phone.driver.execute_script("document.querySelector('#tournament-tables').scrollIntoView()")
        phone.screenshot(f"tournament-certain-places-{width}.png")
        assert not phone.console_errors()
    finally:
        run(tidy(server))


def test_the_form_offers_the_next_quarter_hour(venue, browsers):
    phone = browsers(venue, 390, 844).login(ORGANISER, PASSWORD)
    button = phone.find("#show-tournament")
    phone.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    phone.wait(lambda: phone.find("#tournament-form").is_displayed(), what="the new tournament form")
    offered = phone.find("#tournament-form [name=startsAt]").get_attribute("value")
    # Minutes from the phone's own clock to the time offered (the next day's when past midnight).
    ahead = phone.driver.execute_script("""
      const [h, m] = arguments[0].split(':').map(Number); const now = new Date();
      const at = new Date(now); at.setHours(h, m, 0, 0); if (at < now) at.setDate(at.getDate() + 1);
      return (at - now) / 60000;""", offered)
    assert offered[-2:] in ("00", "15", "30", "45"), offered
    assert 0 < ahead <= 15, (offered, ahead)


def test_the_preview_crosses_four_groups_as_the_server_does(venue, browsers):
    """Sixteen teams in four groups, two through: the form's preview pairs the quarter-finals
    A1–B2, C1–D2, B1–A2, D1–C2, and the server makes exactly those matches."""
    import json
    phone = browsers(venue, 390, 844).login(ORGANISER, PASSWORD)
    button = phone.find("#show-tournament")
    phone.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    phone.wait(lambda: phone.find("#tournament-form").is_displayed(), what="the new tournament form")
    phone.fill("#tournament-form [name=name]", "Crossed Cup")
    phone.fill("#tournament-form [name=teams]", "\n".join(f"Team {n:02d}" for n in range(1, 17)))
    phone.driver.execute_script("document.querySelector('#tournament-form [name=groups]').value = '4'")
    phone.fill("#tournament-form [name=advance]", "2")
    preview = phone.find("#tournament-preview")
    phone.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", preview)
    preview.click()
    phone.wait(lambda: phone.find("#tournament-create-confirm").is_displayed(), what="the preview")
    lines = {int(e.get_attribute("data-match")): e.text for e in phone.driver.find_elements(By.CSS_SELECTOR, ".tpreview-schedule li")}
    quarters = [text.split(": ", 1)[1] for _, text in sorted(lines.items()) if "Quarter-final" in text]
    assert quarters == ["Group A winner v Group B runner-up", "Group C winner v Group D runner-up",
                        "Group B winner v Group A runner-up", "Group D winner v Group C runner-up"], quarters
    violations = phone.axe()
    assert not violations, [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in violations]
    confirm = phone.find("#tournament-create-confirm")
    phone.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", confirm)
    confirm.click()
    phone.wait(lambda: phone.driver.find_elements(By.CSS_SELECTOR, "#tournament-pitches .tpitch"), 15, "the tournament day")
    _, _, body = venue.get("/api/tournament.json")
    made = json.loads(body)
    served = {m["id"]: f"{place_words(m['homeFrom'])} v {place_words(m['awayFrom'])}" for m in made["matches"] if m["stage"] == "quarterFinal"}
    assert [served[i] for i in sorted(served)] == quarters
    assert sorted(lines) == [m["id"] for m in made["matches"]]
    run(tidy_created(venue))


async def tidy_created(server):
    live = await connect_organiser(server)
    await perform(live, {"kind": "cancelTournament"})
    await live.close()


async def create_on_three(server):
    live = await connect_organiser(server)
    pitches = await add_pitches(live, 3)
    await perform(live, create_action(TEAMS8, 2, 2, pitches, now_ms() + 60 * 60000))
    names = {p["id"]: p["name"] for p in live.snapshot["pitches"]}
    on_three = [m["id"] for m in live.snapshot["tournament"]["matches"] if m["pitch"] == pitches[2]]
    await live.close()
    return pitches[2], names[pitches[2]], on_three


@pytest.mark.parametrize("width", (390, 360))
def test_a_pitch_with_unplayed_matches_says_which_and_moves_them(venue, browsers, width):
    """Removing a pitch that still has tournament matches: the notice names them and nothing goes;
    "Move matches" sends them to another pitch, after which the pitch can go."""
    import json
    third, name, on_three = run(create_on_three(venue))
    try:
        phone = browsers(venue, width, 800).login(ORGANISER, PASSWORD)
        phone.click("#pitch-manage summary")
        remove = phone.find(f"#pitch-list button.danger[aria-label='Remove {name}']")
        phone.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", remove)
        remove.click()
        phone.wait(lambda: phone.driver.switch_to.alert, what="the confirmation").accept()
        listed = ", ".join(map(str, on_three))
        phone.wait(lambda: listed in phone.text("#notice"), 10, "the refusal naming the matches")
        assert name in phone.text("#notice")
        assert phone.driver.find_elements(By.CSS_SELECTOR, f"#pitch-list button.danger[aria-label='Remove {name}']"), \
            "the pitch is still there"
        form = phone.find(f"#pitch-list form.move-matches[data-pitch='{third}']")
        violations = phone.axe()
        assert not violations, [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in violations]
        small = phone.driver.execute_script("""
          return [...document.querySelectorAll('#pitch-list form.move-matches select, #pitch-list form.move-matches button')]
            .map((el) => el.getBoundingClientRect()).filter((box) => box.width < 44 || box.height < 44).length;""")
        assert small == 0
        assert phone.scroll_width() <= width
        phone.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", form)
        phone.screenshot(f"tournament-move-matches-{width}.png")
        form.find_element(By.CSS_SELECTOR, "button").click()
        phone.wait(lambda: not phone.driver.find_elements(By.CSS_SELECTOR, f"#pitch-list form.move-matches[data-pitch='{third}']"),
                   10, "the matches moved")
        made = json.loads(venue.get("/api/tournament.json")[2])
        assert [m["pitch"] for m in made["matches"] if m["id"] in on_three] != [third] * len(on_three)
        assert all(m["pitch"] != third for m in made["matches"])
        remove = phone.find(f"#pitch-list button.danger[aria-label='Remove {name}']")
        phone.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", remove)
        remove.click()
        phone.wait(lambda: phone.driver.switch_to.alert, what="the confirmation").accept()
        phone.wait(lambda: not phone.driver.find_elements(By.CSS_SELECTOR, f"#pitch-list button.danger[aria-label='Remove {name}']"),
                   10, "the pitch removed")
        assert not phone.console_errors()
    finally:
        run(tidy_created(venue))


async def create_ahead(server):
    live = await connect_organiser(server)
    pitches = await add_pitches(live, 2)
    await perform(live, create_action(TEAMS8, 2, 2, pitches[:2], now_ms() + 60 * 60000))
    await live.close()


async def end_pitch(server, pitch):
    live = await connect_organiser(server)
    await perform(live, {"kind": "endGather", "pitch": pitch})
    await live.close()


def test_starting_early_brings_the_pitchs_day_forward(venue, browsers):
    """A day planned an hour ahead: "Start now and bring the day forward" sends startEarly, and
    once that match ends the next on its pitch is expected a break later, before its plan."""
    import json
    run(create_ahead(venue))
    try:
        phone = browsers(venue, 390, 844).login(ORGANISER, PASSWORD)
        button = phone.find("#show-tournament")
        phone.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
        button.click()
        phone.wait(lambda: phone.driver.find_elements(By.CSS_SELECTOR, "#tournament-pitches .start-early[data-match='1']"),
                   15, "the early start of match 1")
        violations = phone.axe()
        assert not violations, [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in violations]
        small = phone.driver.execute_script("""
          return [...document.querySelectorAll('#tournament-pitches button')].map((el) => el.getBoundingClientRect())
            .filter((box) => box.width > 0 && (box.width < 44 || box.height < 44)).length;""")
        assert small == 0
        early = phone.find("#tournament-pitches .start-early[data-match='1']")
        phone.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", early)
        phone.screenshot("tournament-start-early-390.png")
        early.click()
        phone.wait(lambda: json.loads(venue.get("/api/tournament.json")[2])["matches"][0]["status"] == "live", 10, "match 1 live")
        made = json.loads(venue.get("/api/tournament.json")[2])
        pitch = made["matches"][0]["pitch"]
        run(end_pitch(venue, pitch))
        ended = now_ms()
        made = json.loads(venue.get("/api/tournament.json")[2])
        following = sorted((m for m in made["matches"] if m["pitch"] == pitch and m["status"] == "scheduled"),
                           key=lambda m: (m["plannedAt"], m["id"]))[0]
        assert following["expectedAt"] < following["plannedAt"], following
        assert abs(following["expectedAt"] - (ended + made["rules"]["breakMinutes"] * 60000)) < 5000, following
    finally:
        run(tidy_created(venue))
