"""A full history over gather.v2 (PROTOCOL.md §10): once it holds its 20 entries, a gather that
ends drops the oldest and files the newest, and the patch says just that (one removal, one
addition) instead of replacing all 20 entries; applied in order by the PyPI jsonpatch, the
patches still give exactly the snapshot a new client gets."""
import json

from gatherlib import GatherServer, Live, run, signed_in
from tournament_support import acked, create_action, tournament

V2 = ("gather.v2",)


def test_a_gather_ending_with_a_full_history_is_one_removal_and_one_addition():
    with GatherServer() as server:
        async def scenario():
            ann = await signed_in(server, "ann")
            watcher = await Live.connect(server, subprotocols=V2)
            await watcher.next()
            await acked(ann, create_action([f"Team {n}" for n in range(1, 9)], groups=1, advance=2, pitches=[1]))
            ended = []
            for match in [m for m in tournament(ann)["matches"] if m["stage"] == "group"][:22]:
                await acked(ann, {"kind": "startMatch", "match": match["id"]})
                reply = await acked(ann, {"kind": "endGather", "pitch": 1})
                await watcher.wait_snapshot(reply["version"])
                patch = next(m for m in watcher.messages if m["type"] == "patch" and m["version"] == reply["version"])
                ended.append((len(ann.snapshot["history"]), patch))
            fresh = await Live.connect(server, subprotocols=V2)
            snapshot = await fresh.next()
            assert snapshot["type"] == "snapshot" and snapshot["version"] == watcher.version
            assert watcher.snapshot == snapshot["state"], "the patches rebuild the state exactly"
            for client in (fresh, watcher, ann):
                await client.close()
            return ended

        ended = run(scenario())
        assert [count for count, _ in ended] == list(range(1, 21)) + [20, 20]
        for _, patch in ended[20:]:
            history_ops = [(op["op"], op["path"]) for op in patch["ops"] if op["path"].startswith("/history")]
            # Newest first (§8.6): the oldest leaves from the end, the newest comes in at the front.
            assert history_ops == [("remove", "/history/19"), ("add", "/history/0")], history_ops
            assert len(json.dumps(patch)) < 4000, len(json.dumps(patch))
