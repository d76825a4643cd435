"""A relay's spectator that cannot keep up (issue 21's faults): the relay is the Transport, so a
phone that stops reading costs a bounded outbox and gets one snapshot instead of a backlog of
patches, exactly as on the venue's door — and the other followers are not held up."""
import base64
import os
import socket

import rawws
from gatherlib import run, signed_in
from natslib import V2, relay_follower, venue_and_relay
from test_gather_v2 import FrameReader, stall_then_change


def plain_handshake(port: int, socket_options) -> tuple[socket.socket, bytes]:
    """A gather.v2 WebSocket over plain TCP (a relay without TLS), with a tiny receive window."""
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    for level, option, value in socket_options:
        raw.setsockopt(level, option, value)
    raw.settimeout(10)
    raw.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    raw.sendall((f"GET /live HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: gather.v2\r\n\r\n").encode())
    head, leftover = rawws.read_response_head(raw)
    assert b" 101 " in head.split(b"\r\n")[0], head
    return raw, leftover


def test_a_relay_spectator_that_stops_reading_gets_one_snapshot_and_holds_up_nobody():
    with venue_and_relay() as (broker, server, relay):
        async def scenario():
            reading = await relay_follower(relay)
            ann = await signed_in(server, "ann", subprotocols=V2)
            options = ((socket.SOL_SOCKET, socket.SO_RCVBUF, 4096), (socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536))
            stalled, leftover = plain_handshake(relay.port, options)
            latest = await stall_then_change(stalled, ann)
            # The follower that reads keeps up, patch by patch, while the other stalls.
            await reading.wait_snapshot(latest, timeout=10)
            assert reading.snapshot == ann.snapshot
            assert [m["type"] for m in reading.messages].count("snapshot") == 1

            received, held_state = FrameReader(stalled, leftover).catch_up(latest)
            stalled.close()
            states = [(m["type"], m["version"]) for m in received if m["type"] != "rejected"]
            # Within its token bucket a command on a relay is forbidden; beyond it the Transport
            # refuses it as rate_limited before anything reads it. Nothing else is answered.
            codes = [m["code"] for m in received if m["type"] == "rejected"]
            assert set(codes) == {"forbidden", "rate_limited"}, set(codes)
            assert states[-1] == ("snapshot", latest), states
            assert sum(1 for kind, _ in states if kind == "patch") < 30, states
            print(f"stalled relay follower received: {states}")
            assert held_state == ann.snapshot
            for client in (reading, ann):
                await client.close()
        run(scenario())
