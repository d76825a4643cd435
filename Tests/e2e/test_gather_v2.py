"""gather.v2 (PROTOCOL.md "gather.v2: the same state, as patches"): a client that applies every
patch with an independent RFC 6902 library holds, at every version, the very state a new client
is given; patches are small; a client that stops reading is sent a snapshot, not a backlog."""
import asyncio
import json
import socket
import time

import jsonpatch

import rawws
from gatherlib import GatherServer, Live, pitch_gather, run, signed_in

V2 = ("gather.v2",)


def player(state, name):
    return next(p["id"] for p in state["players"] if p["name"] == name)


def goal_seq(state, pitch, team, nth=-1):
    goals = [e for e in pitch_gather(state, pitch)["events"] if e["kind"] == "goal" and e["team"] == team]
    return goals[nth]["seq"]


def team(state, pitch, side):
    return pitch_gather(state, pitch)["teams"][side]["players"]


# ~35 changes of every kind; a callable builds its action from the state the organiser holds.
STEPS = [
    {"kind": "addPlayer", "name": "Ann", "age": 30, "skill": "professional", "position": "goalkeeper",
     "favouriteTeam": "Arsenal"},
    {"kind": "addPlayer", "name": "Ben", "skill": "amateur", "position": "defender"},
    {"kind": "addPlayer", "name": "Cat"},
    {"kind": "addPlayer", "name": "Dan", "skill": "beginner", "position": "striker"},
    {"kind": "addPlayer", "name": "Eve", "position": "goalkeeper"},
    {"kind": "addPlayer", "name": "Fay ~/ tilde and slash"},
    lambda s: {"kind": "editPlayer", "playerId": player(s, "Cat"), "age": 25, "favouriteTeam": "Spurs"},
    lambda s: {"kind": "editPlayer", "playerId": player(s, "Cat"), "favouriteTeam": None},
    {"kind": "addPitch", "name": "Pitch 2"},
    {"kind": "renamePitch", "pitch": 2, "name": "Back pitch"},
    lambda s: {"kind": "createGather", "playerIds": [player(s, n) for n in ("Ann", "Ben", "Cat", "Dan")]},
    lambda s: {"kind": "assign", "playerId": player(s, "Ann"), "to": "A"},
    lambda s: {"kind": "assign", "playerId": player(s, "Ben"), "to": "B"},
    {"kind": "balanceTeams"},
    {"kind": "renameTeam", "team": "A", "name": "Reds"},
    {"kind": "setTimer", "minutes": 7, "seconds": 30},
    {"kind": "startGather"},
    {"kind": "startTimer"},
    lambda s: {"kind": "score", "team": "A", "delta": 1, "playerId": team(s, 1, "A")[0]},
    {"kind": "score", "team": "B", "delta": 1},
    lambda s: {"kind": "setScorer", "seq": goal_seq(s, 1, "B"), "playerId": team(s, 1, "B")[0],
               "assistId": team(s, 1, "B")[1]},
    lambda s: {"kind": "createGather", "pitch": 2, "playerIds": [player(s, "Eve"), player(s, "Fay ~/ tilde and slash")]},
    lambda s: {"kind": "assign", "pitch": 2, "playerId": player(s, "Eve"), "to": "A"},
    lambda s: {"kind": "assign", "pitch": 2, "playerId": player(s, "Fay ~/ tilde and slash"), "to": "B"},
    {"kind": "startGather", "pitch": 2},
    {"kind": "startTimer", "pitch": 2},
    {"kind": "pauseTimer"},
    lambda s: {"kind": "cancelGoal", "seq": goal_seq(s, 1, "A")},
    {"kind": "score", "team": "A", "delta": 1},
    {"kind": "score", "team": "A", "delta": -1},
    {"kind": "resetTimer"},
    {"kind": "endGather"},
    {"kind": "cancelGather", "pitch": 2},
    {"kind": "addPlayer", "name": "Gus"},
    lambda s: {"kind": "removePlayer", "playerId": player(s, "Gus")},
    {"kind": "removePitch", "pitch": 2},
]


# MARK: - Patches rebuild every version

def test_patches_applied_in_order_give_exactly_the_snapshot_a_new_client_gets_at_every_version():
    with GatherServer() as server:
        async def scenario():
            watcher = await Live.connect(server, subprotocols=V2)
            assert watcher.ws.subprotocol == "gather.v2" and watcher.messages[0]["protocol"] == "gather.v2"
            first = await watcher.next()
            assert first["type"] == "snapshot" and "gather" not in first["state"], first
            states = {first["version"]: first["state"]}
            ann = await signed_in(server, "ann", subprotocols=V2)
            for step in STEPS:
                action = step(ann.snapshot) if callable(step) else step
                reply = await ann.command(action)
                assert reply["type"] == "ack", (action, reply)
                assert ann.version >= reply["version"], f"{action['kind']}: ack {reply['version']} came before its patch"

                fresh = await Live.connect(server, subprotocols=V2)
                snapshot = await fresh.next()
                await fresh.close()
                assert snapshot["type"] == "snapshot" and "gather" not in snapshot["state"]
                await follow(watcher, snapshot["version"], states)
                assert states[snapshot["version"]] == snapshot["state"], f"after {action['kind']}"
            kinds = {m["type"] for m in watcher.messages}
            assert "patch" in kinds and [m["type"] for m in watcher.messages].count("snapshot") == 1
            history = states[watcher.version]["history"]
            assert len(history) == 1 and [p["id"] for p in states[watcher.version]["pitches"]] == [1]
            for client in (watcher, ann):
                await client.close()
            return len(states)
        versions = run(scenario())
        assert versions == len(STEPS) + 1


async def follow(watcher, version, states):
    """Reads the watcher's patches up to `version`, each from the version it holds, recording the
    state of every version. (`Live.next` applies them with the PyPI jsonpatch.)"""
    while watcher.version < version:
        held = watcher.version
        message = await watcher.next(timeout=5)
        assert message["type"] != "snapshot", "a reader that keeps up needs no snapshot"
        if message["type"] == "patch":
            assert message["from"] == held and message["version"] == held + 1, message
            assert {op["op"] for op in message["ops"]} <= {"add", "remove", "replace"}, message["ops"]
            states[message["version"]] = watcher.snapshot


def test_a_client_offering_both_subprotocols_gets_the_first_it_names():
    """Departure from the contract (docs/PROTOCOL.md §2.2): libwebsockets 4.1.6 binds the first
    subprotocol in the CLIENT's list that it knows and exports no way to rebind, so a client
    that wants gather.v2 names it first (the pages offer only gather.v2)."""
    with GatherServer() as server:
        async def scenario():
            for offer, expected in ((("gather.v2", "gather.v1"), "gather.v2"), (("gather.v1", "gather.v2"), "gather.v1")):
                both = await Live.connect(server, subprotocols=offer)
                chosen = (both.ws.subprotocol, both.messages[0]["protocol"])
                assert chosen == (expected, expected), f"offered {offer}, got {chosen}"
                if expected == "gather.v1":
                    await both.close()
                    continue
                snapshot = await both.next()
                assert snapshot["type"] == "snapshot" and "gather" not in snapshot["state"]
                assert [p["id"] for p in snapshot["state"]["pitches"]] == [1]
                await both.close()
            old = await Live.connect(server)
            assert old.messages[0]["protocol"] == "gather.v1" and "gather" in (await old.next())["state"]
            await old.close()
        run(scenario())


# MARK: - Size of a goal

def test_a_goal_in_a_gather_of_22_is_a_patch_frame_of_at_most_512_bytes():
    with GatherServer() as server:
        async def setup():
            ann = await signed_in(server, "ann", subprotocols=V2)
            positions = ("goalkeeper", "defender", "midfielder", "winger", "striker")
            skills = ("beginner", "amateur", "professional")
            for number in range(1, 23):
                reply = await ann.command({"kind": "addPlayer", "name": f"Player number {number:02}",
                                           "age": 20 + number, "skill": skills[number % 3],
                                           "position": positions[number % 5], "favouriteTeam": "Sporting Lisbon"})
                assert reply["type"] == "ack", reply
            await ann.wait_snapshot(reply["version"])
            for action in ({"kind": "createGather", "playerIds": [p["id"] for p in ann.snapshot["players"]]},
                           {"kind": "balanceTeams"}, {"kind": "startGather"}, {"kind": "startTimer"}):
                reply = await ann.command(action)
                assert reply["type"] == "ack", reply
            await ann.wait_snapshot(reply["version"])
            return ann

        async def scenario():
            ann = await setup()
            status, _, sock, leftover = rawws.handshake(server, subprotocol="gather.v2")
            assert " 101 " in status
            frames = FrameReader(sock, leftover)
            frames.until(lambda m: m["type"] == "snapshot")
            gather = pitch_gather(ann.snapshot, 1)
            assert len(gather["teams"]["A"]["players"]) + len(gather["teams"]["B"]["players"]) == 22
            scorer, assist = gather["teams"]["A"]["players"][:2]
            sizes = []
            for action in ({"kind": "score", "team": "A", "delta": 1, "playerId": scorer, "assistId": assist},
                           {"kind": "score", "team": "B", "delta": 1}):
                reply = await ann.command(action)
                assert reply["type"] == "ack", reply
                patch, size = frames.until(lambda m: m["type"] == "patch" and m["version"] == reply["version"],
                                           with_size=True)
                assert any(op["path"].endswith("/score/" + action["team"]) for op in patch["ops"]), patch
                sizes.append(size)
            sock.close()
            await ann.close()
            return sizes
        sizes = run(scenario())
        print(f"goal patch frames: {sizes} bytes")
        assert max(sizes) <= 512, sizes


class FrameReader:
    """Server text messages off a raw socket, each with its frame's size on the wire (header included)."""

    def __init__(self, sock, leftover=b""):
        self.sock, self.buffer, self.pending = sock, leftover, []

    def until(self, predicate, timeout=10, with_size=False):
        deadline = time.monotonic() + timeout
        while True:
            frames, self.buffer = rawws.split_frames(self.buffer)
            self.pending += [payload for opcode, payload in frames if opcode == 0x1]
            while self.pending:
                payload = self.pending.pop(0)
                message = json.loads(payload)
                if predicate(message):
                    header = 2 if len(payload) < 126 else 4 if len(payload) < 65536 else 10
                    return (message, header + len(payload)) if with_size else message
            if time.monotonic() >= deadline:
                raise TimeoutError("no matching frame")
            self.sock.settimeout(max(0.05, deadline - time.monotonic()))
            try:
                chunk = self.sock.recv(65536)
            except (TimeoutError, socket.timeout):
                continue
            assert chunk, "the server closed the connection"
            self.buffer += chunk

    def catch_up(self, latest, rejected=250, timeout=20):
        """Reads snapshots, patches and rejections until the state it holds (patches applied in
        order) is at `latest` and `rejected` rejections have come; returns (messages, held state).
        A newer version overtakes replies still queued, so the last answers may come after it."""
        received, held_version, held_state = [], None, None
        while held_version != latest or sum(1 for m in received if m["type"] == "rejected") < rejected:
            message = self.until(lambda m: m["type"] in ("snapshot", "patch", "rejected"), timeout=timeout)
            received.append(message)
            if message["type"] == "snapshot":
                held_version, held_state = message["version"], message["state"]
            elif message["type"] == "patch" and message["from"] == held_version:
                held_state = jsonpatch.apply_patch(held_state, message["ops"])
                held_version = message["version"]
        return received, held_state


# MARK: - A client that stops reading

WIDE = "\U0001F600" * 47  # 47 characters, each 12 bytes of JSON (a \\u surrogate pair)
WIDE_ID = "\U0001F600" * 64  # the longest `id` allowed (64 characters, 256 bytes): ~770 bytes echoed


async def stall_then_change(stalled, ann) -> int:
    """Asks, on the `stalled` socket, for 250 answers (~880 bytes each, commands a spectator may
    not send) it will not read, then makes 30 changes as `ann`; returns the last version."""
    forbidden = json.dumps({"type": "command", "id": WIDE_ID, "base": 0,
                            "action": {"kind": "resetTimer"}}).encode()
    stalled.sendall(b"".join(rawws.frame(0x1, forbidden) for _ in range(250)))
    await asyncio.sleep(0.5)
    for change in range(30):
        reply = await ann.command({"kind": "addPlayer", "name": f"{change:02}{WIDE}"})
        assert reply["type"] == "ack", reply
    return reply["version"]


def test_a_client_that_stops_reading_gets_one_snapshot_instead_of_a_backlog_of_patches():
    """A phone that stops reading: it takes only a few KB (a small receive window and segment size)
    and has asked for 250 answers of ~880 bytes it does not read (commands a spectator may not
    send, each echoing a 64-character id), more than every buffer between it and the server holds
    (~190 KB on Linux loopback): the server cannot write to it while 30 changes are made."""
    with GatherServer() as server:
        async def scenario():
            ann = await signed_in(server, "ann", subprotocols=V2)
            options = ((socket.SOL_SOCKET, socket.SO_RCVBUF, 4096), (socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536))
            status, _, stalled, leftover = rawws.handshake(server, subprotocol="gather.v2", socket_options=options)
            assert " 101 " in status
            latest = await stall_then_change(stalled, ann)
            await ann.wait_snapshot(latest)

            received, held_state = FrameReader(stalled, leftover).catch_up(latest)
            stalled.close()
            states = [(m["type"], m["version"]) for m in received if m["type"] != "rejected"]
            assert sum(1 for m in received if m["type"] == "rejected") == 250
            patches = sum(1 for kind, _ in states if kind == "patch")
            assert states[0] == ("snapshot", 0) and states[-1] == ("snapshot", latest), states
            assert patches < 30, f"the stalled client was sent {patches} patches: {states}"
            assert held_state == ann.snapshot
            await ann.close()
            return states
        states = run(scenario())
        print(f"stalled client received: {states}")
