"""A phone that opens the page during a password-guessing flood can still log in (issue 41,
point 8): 50 addresses x 2 connections send wrong-password logins (a new password each time,
every 50 ms, answered or not) for 15 s, the flood in a process of its own; the organiser opens a
NEW connection at 2, 5 and 8 s into it — from the address it signed in from before the server
was restarted, or from an address the server never saw — and logs in: answered `session` within 10 s every time, while the
flood is still refused. Real `gather` on port 0, real `wss` clients verifying the generated CA.

A busy laptop (`one_busy_core`: the server and the flood share one core with a loop spinning at
the usual priority) is where it failed. What it took before: the flood's first two guesses start
while their fresh addresses are still clean and hold both password-check places; those addresses
are locked out within a fraction of a second and their checks lowered (nice 10), which on a busy
core barely run; sixteen more of their guesses waited in the queue until one of them ended. A phone
opening the page meanwhile waited for that: at 2 s into the flood, from the address it signed in
from before a restart, 11.2 s; from an address never seen, no answer within 12 s (the gauges: 2
running and 16 waiting for all 12 s, and not one of the crowd's checks ended in the 15 s). Idle, the
same code answered in 1–2 s. Now a check whose address is locked out gives up its place at once and
the queue is cleared as the lock falls (`PasswordChecks.abandon`)."""
import asyncio
import contextlib
import os
import subprocess
import sys
import time

import pytest

from abuse_support import login_reply, metrics, outcome, process_cpu_seconds
from gatherlib import PASSWORD, GatherServer, Live, run
from guessing_crowd_process import LoginFlood

ORGANISER = "captain"
TRIES_AT = (2, 5, 8)


def register(server: GatherServer):
    async def scenario():
        live = await Live.connect(server, source="127.0.0.1")
        await live.next()
        assert (await live.register(ORGANISER))["role"] == "organiser"
        await live.close()
    run(scenario())


async def login_on_a_new_connection(server: GatherServer, source: str) -> tuple[str, float, float]:
    """Opens a connection from `source` and logs in: (answer, s to open, s from open to answer)."""
    started = time.monotonic()
    try:
        live = await asyncio.wait_for(Live.connect(server, source=source), 12)
    except (TimeoutError, asyncio.TimeoutError, OSError) as error:
        return f"not opened ({type(error).__name__})", time.monotonic() - started, 0.0
    opened = time.monotonic()
    try:
        answer = outcome(await login_reply(live, ORGANISER, PASSWORD, timeout=12))
    except (TimeoutError, asyncio.TimeoutError):
        answer = "no answer"
    answered = time.monotonic()
    asyncio.ensure_future(live.close())
    return answer, opened - started, answered - opened


SPIN = "import time\nend = time.monotonic() + float(__import__('sys').argv[1])\nwhile time.monotonic() < end: pass\n"


@contextlib.contextmanager
def one_busy_core(seconds: float, *pids: int):
    """A laptop whose CPU is busy: the processes `pids` (every thread) share one core with a
    loop that spins at the usual priority for `seconds` (a process of its own, ended on the way
    out)."""
    core = min(os.sched_getaffinity(0))
    for pid in pids:
        subprocess.run(["taskset", "-a", "-p", "-c", str(core), str(pid)], check=True, capture_output=True)
    spinner = subprocess.Popen(["taskset", "-c", str(core), sys.executable, "-c", SPIN, str(seconds)])
    try:
        yield
    finally:
        spinner.kill()
        spinner.wait(10)


@pytest.mark.timing
@pytest.mark.parametrize("phone, laptop", [("signed-in-before", "idle"), ("signed-in-before", "busy"),
                                           ("never-seen", "busy")])
def test_a_login_on_a_connection_opened_during_a_flood_is_answered_within_ten_seconds(phone, laptop):
    with GatherServer() as server:
        register(server)
        if phone == "signed-in-before":
            # Signed in last Sunday: the server was restarted since, so 127.0.0.1 is clean but not
            # trusted for the first try (a sign-in within the hour is, §12.2); the later tries are.
            server.stop()
            server.start()
        cpu_before = process_cpu_seconds(server.process.pid)

        samples = []

        async def sample(attack_started: float):
            """Twice a second: the password checks running and waiting, and the Coordinator's
            spectator lane (how deep, its oldest message's wait, what was dropped in all)."""
            while True:
                await asyncio.sleep(0.5)
                reading = await asyncio.get_running_loop().run_in_executor(None, metrics, server)
                samples.append((round(time.monotonic() - attack_started, 1),
                                int(reading["gather_password_checks_running"]), int(reading["gather_password_checks_waiting"]),
                                int(reading.get('gather_coordinator_queue_depth{lane="spectator"}', -1)),
                                int(reading.get('gather_coordinator_queue_oldest_wait_ms{lane="spectator"}', -1)),
                                int(reading.get("gather_coordinator_queue_dropped_total", -1))))

        async def scenario():
            tries = []
            with LoginFlood(server, ORGANISER, seconds=15) as flood, contextlib.ExitStack() as busy:
                if laptop == "busy":
                    busy.enter_context(one_busy_core(20, server.process.pid, flood.process.pid))
                attack_started = flood.start()
                sampler = asyncio.ensure_future(sample(attack_started))
                for index, at in enumerate(TRIES_AT):
                    await asyncio.sleep(max(0, attack_started + at - time.monotonic()))
                    source = "127.0.0.1" if phone == "signed-in-before" else f"127.0.3.{index + 1}"
                    answer, to_open, to_answer = await login_on_a_new_connection(server, source)
                    tries.append((at, answer, to_open, to_answer))
                sampler.cancel()
                reading = metrics(server)
                answers = await asyncio.get_running_loop().run_in_executor(None, flood.answers)
            return tries, answers, reading

        tries, answers, reading = run(scenario())
        cpu = process_cpu_seconds(server.process.pid) - cpu_before
        print(f"login during a flood ({phone}, {laptop} laptop): (s into the flood, answer, s to open, s open to answer) "
              f"{[(at, a, round(o, 2), round(s, 2)) for at, a, o, s in tries]}; totals "
              f"{[round(o + s, 2) for _, _, o, s in tries]} s; the flood's answers {answers}; "
              f"KDF peak {reading['gather_password_checks_peak']:.0f}; server CPU {cpu:.1f} s; "
              f"load {os.getloadavg()[0]:.1f}; (s, checks running, waiting, spectator lane depth, oldest ms, dropped in all) {samples}")
        assert [answer for _, answer, _, _ in tries] == ["session"] * len(TRIES_AT), tries
        assert all(to_open + to_answer < 10 for _, _, to_open, to_answer in tries), tries
        # The flood is still limited: it never signs in, and nearly all its guesses are refused unchecked.
        assert answers.get("session", 0) == 0, answers
        assert answers.get("unauthorized", 0) <= 10, answers
