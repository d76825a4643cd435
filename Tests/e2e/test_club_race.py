"""The last seat, asked for at the same moment through both instances by 50 members (issue 43,
"Done when"; PROTOCOL.md: "No seat is ever given twice, whatever the interleaving", precision
11): exactly one is confirmed, the other 49 wait with positions 1..49 in `answeredAt` order, in
every one of 20 runs, each on a fresh date.

Each run: a date of capacity 2 with one seat taken; 50 threads, each with its connection to its
instance already open (half to each, each from a loopback address of its own), released together
by a barrier."""
import http.client
import json
import threading
from concurrent.futures import ThreadPoolExecutor

from clublib import new_id
from gatherlib import phone_address
from club_week_support import (add_fixture, add_members, answered, answers_by_member, first_start, fixture_dates,
                               organiser_date)

RUNS = 20
RACERS = 50


def open_dates(club, owner, runs: int) -> list[str]:
    """`runs` dates open to members now: fixtures on the day after tomorrow, each opening 14
    days ahead (so this week's and next week's dates are open), at different hours."""
    now = club.now()
    found = []
    for hour in range(8, 8 + (runs + 1) // 2):
        weekday, time, _ = first_start(now, club.time_zone, 2, f"{hour:02d}:00")
        fixture = add_fixture(club, owner, title=f"Race {hour}", weekday=weekday, time=time, capacity=2,
                              opensHoursBefore=336)
        found += [d["id"] for d in fixture_dates(club, owner, fixture["id"]) if d["opensAt"] <= now < d["closesAt"]]
    assert len(found) >= runs, found
    return found[:runs]


def race(club, racers: list[dict], date_id: str) -> list[dict]:
    """Every racer's answer `in`, released together; the member's date of each answer, in order."""
    barrier = threading.Barrier(len(racers))

    def one(index: int) -> dict:
        instance = club.instances[index % 2]
        # From an address of its own, as each phone has: a per-address limit is not what is raced.
        connection = http.client.HTTPConnection("127.0.0.1", instance.port, timeout=30,
                                                source_address=(phone_address(index), 0))
        try:
            connection.connect()
            body = json.dumps({"id": new_id(), "date": date_id, "answer": "in", "guests": 0})
            barrier.wait(timeout=30)
            connection.request("POST", f"/club/api/m/{racers[index]['token']}/answer", body=body,
                               headers={"Content-Type": "application/json"})
            response = connection.getresponse()
            raw = response.read()
            assert response.status == 200, (response.status, raw[:500])
            return json.loads(raw)["date"]
        finally:
            connection.close()
    with ThreadPoolExecutor(max_workers=len(racers)) as pool:
        return list(pool.map(one, range(len(racers))))


def test_fifty_members_race_for_the_last_seat_through_both_instances_one_wins_the_rest_wait_in_order(club):
    owner = club.register_owner()
    members = list(add_members(club, owner, [f"Racer {n:02d}" for n in range(RACERS + 1)]).values())
    holder, racers = members[0], members[1:]
    for run, date_id in enumerate(open_dates(club, owner, RUNS)):
        assert answered(club, holder, date_id, "in")["mine"]["state"] == "confirmed"
        results = race(club, racers, date_id)

        states = [date["mine"]["state"] for date in results]
        assert states.count("confirmed") == 1 and states.count("waiting") == RACERS - 1, (run, states)
        told = {racer["id"]: date["mine"].get("position") for racer, date in zip(racers, results)}
        assert sorted(p for p in told.values() if p is not None) == list(range(1, RACERS)), (run, told)

        date = organiser_date(club, owner, date_id)
        assert (date["confirmedSeats"], date["waiting"]) == (2, RACERS - 1), (run, date)
        by_id = answers_by_member(date)
        winner = next(r["id"] for r in racers if by_id[r["id"]]["state"] == "confirmed")
        waiting = sorted((by_id[r["id"]] for r in racers if r["id"] != winner), key=lambda a: a["position"])
        assert [a["state"] for a in waiting] == ["waiting"] * (RACERS - 1), (run, waiting)
        assert [a["position"] for a in waiting] == list(range(1, RACERS)), (run, waiting)
        # Positions in answer order; the winner answered first; each was told its position.
        times = [a["answeredAt"] for a in waiting]
        assert times == sorted(times) and by_id[winner]["answeredAt"] <= times[0], (run, by_id)
        assert all(told[a["memberId"]] == a["position"] for a in waiting), (run, told, waiting)
        assert told[winner] is None
