"""Catching up by patches on the real venue server (docs/PROTOCOL.md §16.4): a phone that drops
the Wi-Fi and comes back with `/live?epoch=E&version=V` is sent the patches it missed, not the
whole state, on the TLS port and through the spectator door.

The epoch comes from the venue server's `welcome`; while the server sends none, there is nothing
to resume from and these tests are skipped (they say so), rather than pass on nothing.
"""
from __future__ import annotations

import json

import pytest

from gatherlib import GatherServer, Live, run, signed_in

V2 = ("gather.v2",)


def compact(message: dict) -> int:
    return len(json.dumps(message, separators=(",", ":")).encode())


async def state_frames_before_marker(live: Live) -> list[dict]:
    """What the server had queued for `live` before the answer to a marker it sends now: an
    unknown message is answered `error`, after any state the connection was owed."""
    await live.send({"type": "catch-up-marker"})
    frames = []
    while True:
        message = await live.next(timeout=10)
        if message["type"] == "error":
            return frames
        if message["type"] in ("snapshot", "patch"):
            frames.append(message)


async def phone_with_state(server: GatherServer, url: str) -> tuple[Live, str]:
    phone = await Live.connect(server, url=url, subprotocols=V2)
    epoch = phone.messages[0].get("epoch")
    if not epoch:
        await phone.close()
        pytest.skip("the venue's welcome carries no epoch yet: nothing to resume from")
    await phone.until(lambda m: m["type"] == "snapshot")
    return phone, epoch


async def come_back(server: GatherServer, url: str, epoch: str, held: Live, query: str | None = None) -> Live:
    """A new connection that holds what `held` held, opened with the catch-up query."""
    query = query if query is not None else f"?epoch={epoch}&version={held.version}"
    again = await Live.connect(server, url=url + query, subprotocols=V2)
    again.snapshot, again.version = held.snapshot, held.version
    return again


@pytest.mark.parametrize("door", [False, True], ids=["tls", "spectator-door"])
def test_a_phone_back_after_a_drop_is_sent_only_the_patches_it_missed(door):
    with GatherServer(spectator_door=True) as server:
        async def scenario():
            url = f"ws://127.0.0.1:{server.spectator_port}/live" if door else server.ws_url
            ann = await signed_in(server, "ann", subprotocols=V2)
            for index in range(22):  # a squad on the roster: what a snapshot weighs on a match day
                assert (await ann.command({"kind": "addPlayer", "name": f"Player {index:02}"}))["type"] == "ack"
            phone, epoch = await phone_with_state(server, url)
            snapshot_bytes = compact(phone.messages[-1])
            await phone.close()
            for index in range(3):
                reply = await ann.command({"kind": "addPlayer", "name": f"While away {index}"})
                assert reply["type"] == "ack", reply
            latest = reply["version"]
            await ann.wait_snapshot(latest)

            again = await come_back(server, url, epoch, phone)
            frames = await state_frames_before_marker(again)
            assert [(m["type"], m["from"]) for m in frames] == [("patch", latest - 3 + i) for i in range(3)], frames
            assert again.version == latest and again.snapshot == ann.snapshot
            patch_bytes = sum(compact(m) for m in frames)
            assert patch_bytes < snapshot_bytes, (patch_bytes, snapshot_bytes)
            print(f"back after 3 changes: {patch_bytes} bytes of patches instead of a {snapshot_bytes}-byte snapshot")

            current = await come_back(server, url, epoch, again)
            assert await state_frames_before_marker(current) == [], "up to date: nothing after welcome"
            for client in (ann, again, current):
                await client.close()
        run(scenario())


def test_a_malformed_or_foreign_query_gets_the_snapshot():
    with GatherServer() as server:
        async def scenario():
            ann = await signed_in(server, "ann", subprotocols=V2)
            phone, epoch = await phone_with_state(server, server.ws_url)
            reply = await ann.command({"kind": "addPlayer", "name": "One more"})
            await phone.close()
            for query in (f"?epoch={epoch}&version={phone.version}&version={phone.version}",
                          f"?epoch=someone-elses-epoch&version={phone.version}",
                          f"?epoch={epoch}&version=-1", f"?epoch={epoch}"):
                again = await come_back(server, server.ws_url, epoch, phone, query=query)
                frames = await state_frames_before_marker(again)
                assert [(m["type"], m["version"]) for m in frames] == [("snapshot", reply["version"])], query
                await again.close()
            await ann.close()
        run(scenario())
