"""Public/js/patch.js in a real headless Chromium, checked against PyPI's jsonpatch.

gather.v2 pages turn their state into the next version with applyPatch; if it got one op
wrong, a phone would show a wrong score until the next snapshot.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import jsonpatch
import pytest

from module_page import module_page

PATCH_JS = Path(__file__).resolve().parents[2] / "Public" / "js" / "patch.js"
PAGE = """<!doctype html><meta charset="utf-8"><title>patch.js</title>
<script type="module">
import { applyPatch } from "./patch.js";
window.applyPatch = applyPatch;
window.patchReady = true;
</script>"""

# Each case: apply the ops to a parsed copy of the document; report the result, or the error,
# and whether the document and the ops the caller passed are still as they were.
RUN_CASES = """
return arguments[0].map(([docText, opsText]) => {
  const doc = JSON.parse(docText), ops = JSON.parse(opsText);
  const before = JSON.stringify(doc), opsBefore = JSON.stringify(ops);
  let outcome;
  try { outcome = { result: JSON.stringify(window.applyPatch(doc, ops)) }; }
  catch (error) { outcome = { error: error.name + ": " + error.message }; }
  outcome.untouched = JSON.stringify(doc) === before && JSON.stringify(ops) === opsBefore;
  return outcome;
});
"""


@pytest.fixture(scope="module")
def browser():
    """patch.js served on loopback next to a page that imports it, opened in headless Chromium."""
    with module_page({"patch.js": PATCH_JS}, PAGE, ready="patchReady", prefix="patch-js") as driver:
        yield driver


def run(driver, cases):
    """[(document, ops)] → one outcome per case, from a single round trip to the browser."""
    return driver.execute_script(RUN_CASES, [[json.dumps(doc), json.dumps(ops)] for doc, ops in cases])


def canonical(value) -> str:
    return json.dumps(value, sort_keys=True)


# MARK: - Seeded random documents

KEYS = ["id", "name", "a", "b", "~", "/", "a/b", "~1", "m~0n", "", "-", "0", "ü", "__proto__", "x~/y"]


class RandomJSON:
    """Nested objects and arrays up to depth 5, and the edits the state sees (no integral floats:
    JSON.stringify writes 1.0 as 1)."""

    def __init__(self, seed: int):
        self.random = random.Random(seed)

    def value(self, depth=0):
        kind = self.random.randrange(5 if depth >= 5 else 8)
        if kind in (5, 6):
            return [self.value(depth + 1) for _ in range(self.random.randrange(7))]
        if kind == 7:
            return {self.random.choice(KEYS): self.value(depth + 1) for _ in range(self.random.randrange(6))}
        return self.random.choice([None, True, False, 0, 1, -3, 0.5, -2.75, "", "x", "goal", "~/", "é"])

    def mutated(self, doc, depth=0):
        rnd = self.random
        if isinstance(doc, list):
            doc = list(doc)
            if doc and rnd.random() < 0.45:
                index = rnd.randrange(len(doc))
                doc[index] = self.mutated(doc[index], depth + 1)
                return doc
            choice = rnd.randrange(6)
            if choice < 2:
                for _ in range(1 + rnd.randrange(3)):
                    doc.insert(rnd.randrange(len(doc) + 1), self.value(depth + 1))
            elif choice < 4 and doc:
                start = rnd.randrange(len(doc))
                del doc[start:start + 1 + rnd.randrange(3)]
            elif choice == 4 and doc:
                doc[rnd.randrange(len(doc))] = self.value(depth + 1)
            else:
                return self.value(depth)
            return doc
        if isinstance(doc, dict):
            doc = dict(doc)
            keys = sorted(doc)
            if keys and rnd.random() < 0.45:
                key = rnd.choice(keys)
                doc[key] = self.mutated(doc[key], depth + 1)
                return doc
            choice = rnd.randrange(5)
            if choice < 2:
                doc[rnd.choice(KEYS)] = self.value(depth + 1)
            elif choice < 4 and keys:
                del doc[rnd.choice(keys)]
            else:
                return self.value(depth)
            return doc
        return self.value(depth)


# MARK: - Tests

def test_patches_from_jsonpatch_apply_to_the_target_on_seeded_random_pairs(browser):
    generator = RandomJSON(seed=0x67617468)
    cases, targets, oracle_slips = [], [], 0
    for _ in range(400):  # bounded: 200 pairs are needed, a few are dropped below
        if len(cases) == 200:
            break
        before = generator.value()
        after = before
        for _ in range(1 + generator.random.randrange(3)):
            after = generator.mutated(after)
        ops = jsonpatch.make_patch(before, after).patch
        # make_patch sometimes emits a move that does not reproduce `after` (it takes 0 for False
        # when pairing moves, and mis-escapes some keys): such a pair tests the oracle, not patch.js.
        try:
            reproduced = canonical(jsonpatch.apply_patch(before, ops)) == canonical(after)
        except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException):
            reproduced = False
        if not reproduced:
            oracle_slips += 1
            continue
        cases.append((before, ops))
        targets.append(after)
    assert len(cases) == 200 and oracle_slips <= 20, (len(cases), oracle_slips)

    outcomes = run(browser, cases)
    for (before, ops), after, outcome in zip(cases, targets, outcomes):
        assert "error" not in outcome, (outcome, before, ops)
        assert canonical(json.loads(outcome["result"])) == canonical(after), (before, ops)
        assert outcome["untouched"], ("the input was modified", before, ops)
    kinds = {op["op"] for _, ops in cases for op in ops}
    assert {"add", "remove", "replace"} <= kinds, kinds
    assert sum(len(ops) for _, ops in cases) > 200, "the generator must produce real differences"


def escape(token) -> str:
    return "/" + str(token).replace("~", "~0").replace("/", "~1")


def random_ops(generator: RandomJSON, doc, count: int):
    """`count` valid add/remove/replace ops on `doc`, at random places (array indices, "-",
    escaped keys); each op is valid on the document the ones before it leave."""
    rnd, ops = generator.random, []
    for _ in range(count):
        if not isinstance(doc, (list, dict)):
            op = {"op": "replace", "path": "", "value": generator.value(3)}
        else:
            path, parent = "", doc
            while rnd.random() < 0.6:
                children = [i for i, v in enumerate(parent) if isinstance(v, (list, dict))] if isinstance(parent, list) \
                    else [k for k, v in parent.items() if isinstance(v, (list, dict))]
                if not children:
                    break
                token = rnd.choice(children)
                path, parent = path + escape(token), parent[token]
            existing = list(range(len(parent))) if isinstance(parent, list) else sorted(parent)
            kind = rnd.choice(["add", "add", "remove", "replace"]) if existing else "add"
            if kind == "add" and isinstance(parent, list):
                token = rnd.choice([rnd.randrange(len(parent) + 1), "-"])
            elif kind == "add":
                token = rnd.choice(KEYS)
            else:
                token = rnd.choice(existing)
            op = {"op": kind, "path": path + escape(token)}
            if kind != "remove":
                op["value"] = generator.value(3)
        ops.append(op)
        doc = jsonpatch.apply_patch(doc, [op])
    return ops, doc


def test_random_sequences_of_the_three_ops_agree_with_jsonpatch(browser):
    generator = RandomJSON(seed=0x7632)
    cases, targets = [], []
    for _ in range(150):
        before = generator.value()
        ops, after = random_ops(generator, before, 1 + generator.random.randrange(6))
        cases.append((before, ops))
        targets.append(after)
    for (before, ops), after, outcome in zip(cases, targets, run(browser, cases)):
        assert "error" not in outcome, (outcome, before, ops)
        assert canonical(json.loads(outcome["result"])) == canonical(after), (before, ops)
        assert outcome["untouched"], ("the input was modified", before, ops)
    paths = [op["path"] for _, ops in cases for op in ops]
    assert any(path.endswith("/-") for path in paths) and any("~1" in path for path in paths)


def test_hand_written_patches_of_the_kinds_the_server_sends(browser):
    goal = {"seq": 3, "kind": "goal", "team": "A", "playerId": 9, "assistId": None, "cancelled": False}
    cases = [
        ({"events": [{"seq": 1}]}, [{"op": "add", "path": "/events/-", "value": goal}],
         {"events": [{"seq": 1}, goal]}),
        ({"bench": [1, 2, 3, 4]}, [{"op": "remove", "path": "/bench/3"}, {"op": "remove", "path": "/bench/1"}],
         {"bench": [1, 3]}),
        ({"bench": [1, 2]}, [{"op": "add", "path": "/bench/0", "value": 0}, {"op": "add", "path": "/bench/3", "value": 3}],
         {"bench": [0, 1, 2, 3]}),
        ({"a/b": {"~c": 1}, "~1": 2}, [{"op": "replace", "path": "/a~1b/~0c", "value": 10},
                                       {"op": "replace", "path": "/~01", "value": 20}],
         {"a/b": {"~c": 10}, "~1": 20}),
        ({}, [{"op": "add", "path": "/__proto__", "value": {"polluted": True}}], {"__proto__": {"polluted": True}}),
        ({"score": {"A": 1}}, [{"op": "add", "path": "/score/A", "value": 2}], {"score": {"A": 2}}),
        ({"gone": 1, "kept": 2}, [{"op": "remove", "path": "/gone"}], {"kept": 2}),
        ({"a": 1}, [{"op": "replace", "path": "", "value": [1]}], [1]),
        ({"a": {"x": 1}}, [{"op": "add", "path": "/b", "value": {"y": 1}}, {"op": "replace", "path": "/b/y", "value": 2}],
         {"a": {"x": 1}, "b": {"y": 2}}),
    ]
    for (doc, ops, expected), outcome in zip(cases, run(browser, [(doc, ops) for doc, ops, _ in cases])):
        assert "error" not in outcome, (doc, ops, outcome)
        assert canonical(json.loads(outcome["result"])) == canonical(expected), (doc, ops)
        assert canonical(jsonpatch.apply_patch(doc, ops)) == canonical(expected), "the case itself is wrong"
        assert outcome["untouched"], (doc, ops)
    assert browser.execute_script("return Object.getPrototypeOf(applyPatch({}, "
                                  "[{op: 'add', path: '/__proto__', value: {}}])) === Object.prototype")


def test_an_op_that_does_not_apply_throws_and_leaves_the_document_alone(browser):
    doc = {"list": [1, 2], "s": "text", "o": {"k": 1}}
    bad = [
        [{"op": "replace", "path": "list", "value": 1}],             # no leading slash
        [{"op": "replace", "path": "/o/k~2", "value": 1}],           # ~ not followed by 0 or 1
        [{"op": "replace", "path": "/list/01", "value": 1}],         # leading zero
        [{"op": "add", "path": "/missing/x", "value": 1}],
        [{"op": "remove", "path": "/o/missing"}],
        [{"op": "replace", "path": "/o/missing", "value": 1}],
        [{"op": "replace", "path": "/list/2", "value": 1}],
        [{"op": "add", "path": "/list/3", "value": 1}],
        [{"op": "remove", "path": "/list/-"}],
        [{"op": "add", "path": "/s/x", "value": 1}],
        [{"op": "remove", "path": ""}],
        [{"op": "add", "path": "/x"}],                               # no value
        [{"op": "remove", "path": "/list/0"}, {"op": "remove", "path": "/list/1"}],  # made invalid by the first
        [{"op": "bogus", "path": "/s"}],
    ]
    for ops, outcome in zip(bad, run(browser, [(doc, ops) for ops in bad])):
        assert outcome.get("error", "").startswith("PatchError: "), (ops, outcome)
        assert outcome["untouched"], ops
        with pytest.raises(Exception):  # the reference rejects it too (with its own exception classes)
            jsonpatch.apply_patch(doc, ops)


def test_untouched_parts_are_shared_and_touched_ones_copied(browser):
    shared, copied, original = browser.execute_script("""
        const doc = {players: [{id: 1}], gather: {score: {A: 0, B: 0}, events: [{seq: 1}]}};
        const next = applyPatch(doc, [{op: "replace", path: "/gather/score/A", value: 1}]);
        return [next.players === doc.players && next.gather.events === doc.gather.events,
                next.gather !== doc.gather && next.gather.score !== doc.gather.score,
                doc.gather.score.A];
    """)
    assert shared and copied and original == 0
